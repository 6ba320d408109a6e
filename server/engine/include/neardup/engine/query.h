#ifndef NEARDUP_ENGINE_QUERY_H_
#define NEARDUP_ENGINE_QUERY_H_

// A query against one collection, in the engine's terms (no protobuf): it
// reads as validate and plan (PlanQuery: CheckQuery, then the collection's
// defaults applied) -> probe and verify (ProbeQuery: fingerprint the probe,
// ask the index, verify exactly, merge hybrids, add kept distances) ->
// resolve (ResolveMatches: read each hit's document, explain it) -> render
// (the caller's).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "neardup/core/explain.h"
#include "neardup/core/index/query_stats.h"
#include "neardup/core/query_algorithm.h"
#include "neardup/engine/collection.h"
#include "neardup/engine/embedders.h"
#include "neardup/storage/document.h"

namespace neardup::engine {

// What one call may spend: checked inside loops whose length the request
// chooses.
struct CallBudget {
  // > 0: an answer stops adding matches before it outgrows this (streams
  // keep their buffered answers small); 0: the message limit.
  size_t max_response_bytes = 0;
  absl::Time deadline = absl::InfiniteFuture();
  // True once the caller has gone away.
  std::function<bool()> cancelled;

  // DEADLINE_EXCEEDED or CANCELLED when the call should stop, naming
  // `doing`.
  absl::Status Check(std::string_view doing) const;
};

using QueryAlgorithm = ::neardup::QueryAlgorithm;

// Explain reads both texts of every match it explains: a query explains at
// most this many matches and this much text; matches past that say why.
inline constexpr size_t kExplainMatchesPerQuery = 100;
inline constexpr size_t kExplainTextBytesPerQuery = size_t{32} << 20;
// Why a match past the explain budget has no passages.
std::string ExplainBudgetSpent();
// MinHash matches a hybrid query weighs by cosine, at most (the best by
// Jaccard): a flood of near-copies costs this many dot products, no more.
inline constexpr size_t kMaxHybridMinHash = 10000;

struct QuerySpec {
  QueryAlgorithm algorithm = QueryAlgorithm::kMinHash;
  // The probe: a text (fingerprinted here), or signatures (their evidence
  // is not used), or for a semantic query only its vector.
  std::optional<std::string_view> text;
  std::optional<SignatureInput> signatures;
  // A unit vector already checked against the collection's space.
  std::optional<std::vector<float>> embedding;
  double threshold = 0;                  // MinHash; 0: the collection's
  std::optional<uint32_t> max_distance;  // SimHash; the collection's if unset
  std::optional<double> min_cosine;      // semantic and hybrid
  size_t top_k = 10;                     // >= 1
  std::string exclude_id;                // never answered
};

// Whether `spec` (without its probe) can run on `collection`: algorithm
// against the collection's families, embedding and min_cosine.
absl::Status CheckQuery(const Collection& collection, const QuerySpec& spec);

// A query's parameters with the collection's defaults applied: what
// ProbeQuery runs.
struct QueryPlan {
  QueryAlgorithm algorithm = QueryAlgorithm::kMinHash;
  double threshold = 0;     // MinHash and hybrids
  int max_distance = 0;     // SimHash, at most 64
  double min_cosine = 0;    // semantic and hybrids
  size_t wanted = 0;        // hits: top_k, and one more to skip exclude_id
  size_t minhash_take = 0;  // from the MinHash index: wanted, or for a
                            // hybrid at least kMaxHybridMinHash
};

// Validates `spec` (CheckQuery; a text probe only needs to be there, not
// extracted yet) and plans it.
absl::StatusOr<QueryPlan> PlanQuery(const Collection& collection,
                                    const QuerySpec& spec);

// One ranked hit, before its document is read.
struct QueryHit {
  uint32_t internal_id = 0;
  double similarity = 0;
  std::optional<int> hamming_distance;  // SimHash
  std::optional<MinHashMatch> minhash;
  std::optional<float> cosine;  // semantic and hybrid
  // Each kept family's distance, where the probe and the document both have
  // a value (in KeptFamilies() order).
  std::vector<KeptDistance> kept_distances;
};

struct ProbeResult {
  std::vector<QueryHit> hits;  // best first; at most top_k (+1 to exclude)
  bool truncated = false;      // a hybrid left MinHash matches out
};

// Runs `plan` (PlanQuery's, of this spec): fingerprints the probe as the
// algorithm needs, asks the index, verifies (exact Jaccard where the
// collection verifies exactly), merges hybrids and adds each kept family's
// distance where both sides have a value.
absl::StatusOr<ProbeResult> ProbeQuery(const Collection& collection,
                                       const QuerySpec& spec,
                                       const QueryPlan& plan,
                                       const EmbedderCache* embedders,
                                       IndexQueryStats* stats);

// A hit with its document read (and explained, when asked).
struct ResolvedMatch {
  const QueryHit* hit = nullptr;
  std::string external_id;
  storage::Metadata metadata;  // when asked for
  // Explain: the passages, or why there are none.
  std::optional<Explanation> passages;
  std::string explain_unavailable;
};

struct ResolveOptions {
  // The probe's text, for explain; null when it came as signatures.
  const std::string* probe_text = nullptr;
  bool explain = false;
  bool include_metadata = false;
};

// Reads the hits' documents in rank order and hands each to `emit`, until
// top_k were emitted, the hits run out, or `emit` returns false (the
// answer is full). Skips documents deleted meanwhile and exclude_id.
absl::Status ResolveMatches(const Collection& collection, const QuerySpec& spec,
                            const ProbeResult& probe,
                            const ResolveOptions& options,
                            const CallBudget& call,
                            absl::FunctionRef<bool(const ResolvedMatch&)> emit);

}  // namespace neardup::engine

#endif  // NEARDUP_ENGINE_QUERY_H_
