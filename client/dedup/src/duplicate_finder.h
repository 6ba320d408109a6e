#ifndef NEARDUP_CLIENT_DEDUP_SRC_DUPLICATE_FINDER_H_
#define NEARDUP_CLIENT_DEDUP_SRC_DUPLICATE_FINDER_H_

// The in-order half of the pipeline: decides whether a document duplicates
// a document kept earlier, and if not remembers it. Called by one thread, in
// input order, so the outcome never depends on the number of threads.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "fingerprinter.h"
#include "neardup/core/index/lsh_params.h"
#include "neardup/dedup/decision.h"
#include "neardup/dedup/dedup_options.h"

namespace neardup::dedup {

struct Match {
  uint32_t representative;  // kUnknownDoc when the method cannot say
  double similarity;        // to the representative; NaN when unknown
};

class DuplicateFinder {
 public:
  virtual ~DuplicateFinder() = default;
  // The kept document `doc` duplicates (the most similar one, ties to the
  // earliest), or nullopt after keeping `doc`. May move fingerprint data.
  virtual absl::StatusOr<std::optional<Match>> FindOrKeep(
      uint32_t doc, DocFingerprint* fingerprint) = 0;
  // Heap bytes of the index and kept data.
  virtual size_t MemoryBytes() const = 0;
  // The algorithm's own figures, merged into the stats JSON.
  virtual nlohmann::ordered_json Stats() const = 0;
  // False for methods that keep no documents (no representative to name).
  virtual bool names_representatives() const { return true; }
};

// Bands for minhash-lsh: LshParamsForThreshold(t) when the index decides
// alone (--verification none); when candidates are verified, the recall-first
// banding with its floor at t (a pair at t is a candidate with probability
// >= 0.995), so verification sees (nearly) every pair at or above the
// threshold. `bands` > 0 forces it (it must divide num_perm).
absl::StatusOr<LshParams> ChooseBanding(double threshold, int num_perm,
                                        Verify verify, int bands);

// `reserve_docs` > 0 sizes the index for that many kept documents up front
// (no rehashing while it fills); 0 lets it grow.
absl::StatusOr<std::unique_ptr<DuplicateFinder>> MakeMinHashFinder(
    const DedupOptions& options, uint64_t reserve_docs);
// `expected_docs` is not used: the SimHash index grows as it fills.
absl::StatusOr<std::unique_ptr<DuplicateFinder>> MakeSimHashFinder(
    const DedupOptions& options, uint64_t expected_docs);
// `expected_docs` sizes the Bloom filters.
absl::StatusOr<std::unique_ptr<DuplicateFinder>> MakeLshBloomFinder(
    const DedupOptions& options, uint64_t expected_docs);

}  // namespace neardup::dedup

#endif  // NEARDUP_CLIENT_DEDUP_SRC_DUPLICATE_FINDER_H_
