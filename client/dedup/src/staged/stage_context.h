#ifndef NEARDUP_CLIENT_DEDUP_SRC_STAGED_STAGE_CONTEXT_H_
#define NEARDUP_CLIENT_DEDUP_SRC_STAGED_STAGE_CONTEXT_H_

// What every staged dedup task knows: where the files of each stage lie,
// the manifests tasks leave when done, the records stages hand on, and the
// figures derived from the options (bands, SimHash tables, which task owns
// which band or document).

#include <compare>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "neardup/core/index/lsh_params.h"
#include "neardup/dataset/input_files.h"
#include "neardup/dedup/dedup_options.h"
#include "neardup/dedup/staged.h"

namespace neardup::dedup::staged {

// What a document is compared by (its shingle set, MinHash slots or
// SimHash, as the options use them), hashed: documents with equal keys
// score alike against every document.
struct TwinKey {
  uint64_t low = 0;
  uint64_t high = 0;
  auto operator<=>(const TwinKey&) const = default;
};

// A record of a signatures part, in input order (FileKind::kDocs).
struct DocEntry {
  uint64_t out_bytes = 0;  // what the output gets when it is kept
  uint64_t simhash = 0;    // simhash
  uint32_t kind = 0;       // DocFingerprint::Kind
  uint32_t reserved = 0;
  TwinKey twin;
};
static_assert(sizeof(DocEntry) == 40);

// A document that compares exactly as an earlier one (its twin leader, the
// first of its class) does with every document: one the buckets stage
// pairs with no one (exact copies would make quadratic pairs), the clusters
// stage decides as its leader's twin.
struct Twin {
  uint64_t member = 0;
  uint64_t leader = 0;
  auto operator<=>(const Twin&) const = default;
};

// A leader of twins and its last twin (after which it needs no tracking).
struct TwinLeader {
  uint64_t leader = 0;
  uint64_t last = 0;
  auto operator<=>(const TwinLeader&) const = default;
};

// Two documents that may be near-duplicates, by global number.
struct DocPair {
  uint64_t later = 0;
  uint64_t earlier = 0;
  auto operator<=>(const DocPair&) const = default;
};
static_assert(sizeof(DocPair) == 16);

// A pair at the threshold and its similarity (what the one-process run's
// index or exact verification would score it).
struct Edge {
  uint64_t later = 0;
  uint64_t earlier = 0;
  double similarity = 0;
};
static_assert(sizeof(Edge) == 24);

class StageContext {
 public:
  static absl::StatusOr<StageContext> Create(const DedupOptions& options,
                                             const StagedRun& run);

  const DedupOptions& options() const { return *options_; }
  const StagedRun& run() const { return *run_; }
  bool exact() const { return options_->verify == Verify::kExact; }
  bool simhash() const { return options_->algorithm == Algorithm::kSimHash; }
  // What the run's files were made with, in their manifests: the
  // signatures' config hash, mixed with the width of the shingle sets when
  // they are not 64-bit (so that a build before widths refuses them).
  uint64_t config_hash() const { return config_hash_; }
  // The signatures' own (what a dump's minhash/simhash_config_hash is).
  uint64_t signature_config_hash() const { return signature_config_hash_; }
  // The MinHash config's (it also makes the shingle sets).
  uint64_t minhash_config_hash() const { return minhash_config_hash_; }

  // Signatures parts 0 .. reference_parts() - 1 are the references', the
  // inputs' parts follow; filter task i writes part InputPart(i).
  int reference_parts() const { return run_->reference_parts; }
  int InputPart(int task) const { return reference_parts() + task; }

  // minhash-lsh, perceptual: the banding (as the one-process index's).
  const LshParams& lsh() const { return lsh_; }
  // simhash: the tables' key masks (as the one-process index's).
  const std::vector<uint64_t>& masks() const { return masks_; }
  // Bands (minhash) or tables (simhash) bucket task `task` owns.
  std::pair<int, int> KeyRange(int task) const;
  // The buckets task that lists the twins (the first that owns keys:
  // every class of twins shares every bucket).
  int TwinsTask() const;
  // The similarity of twins, as the one-process run scores them.
  double TwinSimilarity() const;

  // The input files of signatures part `part` (whole files: a part may
  // have none; a reference part has none).
  std::vector<dataset::InputFile> PartFiles(int part) const;

  // "<work>/<stage>".
  std::string Dir(Stage stage) const;
  // "<work>/signatures/part-<part><suffix>".
  std::string PartPath(int part, std::string_view suffix) const;

  // Records that task `index` of `stage` is done (its outputs in place).
  absl::Status WriteManifest(Stage stage, int index,
                             nlohmann::ordered_json fields) const;
  // The manifest of a done task, FAILED_PRECONDITION (saying which task to
  // run) when it is not done, was run with another plan, or is out of date
  // (a manifest it was made from was written again since). Recorded as an
  // input of the manifest this task writes.
  absl::StatusOr<nlohmann::json> ReadManifest(Stage stage, int index) const;
  // Every task's manifest of `stage`.
  absl::StatusOr<std::vector<nlohmann::json>> ReadManifests(Stage stage) const;

  // After the signatures: the first global number of each part (and the
  // total after the last).
  absl::StatusOr<std::vector<uint64_t>> PartStarts() const;
  // Documents [begin, end) of verify task `task`: its share of the inputs'
  // documents [first, total) (pairs of two reference documents are made by
  // no one).
  std::pair<uint64_t, uint64_t> DocRange(int task, uint64_t first,
                                         uint64_t total) const;

 private:
  StageContext() = default;

  const DedupOptions* options_ = nullptr;
  const StagedRun* run_ = nullptr;
  std::vector<dataset::InputFile> files_;
  uint64_t config_hash_ = 0;
  uint64_t signature_config_hash_ = 0;
  uint64_t minhash_config_hash_ = 0;
  LshParams lsh_;
  std::vector<uint64_t> masks_;
  absl::Time started_;  // when this task started
  // The generation of every manifest read ("<stage>/task-<i>"), recorded
  // as the inputs of the one this task writes.
  mutable nlohmann::ordered_json read_ = nlohmann::ordered_json::object();
};

}  // namespace neardup::dedup::staged

#endif  // NEARDUP_CLIENT_DEDUP_SRC_STAGED_STAGE_CONTEXT_H_
