// minhash-lsh: a MinHash LSH index of the kept documents.

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "duplicate_finder.h"
#include "kept_sets.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/index/minhash_lsh_index.h"

namespace neardup::dedup {

absl::StatusOr<LshParams> ChooseBanding(double threshold, int num_perm,
                                        Verify verify, int bands) {
  if (bands > 0) {
    if (num_perm % bands != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--bands ", bands, " does not divide --num-perm ", num_perm));
    }
    return LshParams{bands, num_perm / bands};
  }
  if (verify == Verify::kNone) {
    return LshParamsForThreshold(threshold, num_perm);
  }
  // Verified candidates: find (nearly) every pair at the threshold.
  return LshParamsRecallFirst(threshold, num_perm);
}

namespace {

class MinHashFinder : public DuplicateFinder {
 public:
  MinHashFinder(std::unique_ptr<MinHashLshIndex> index, Verify verify,
                double threshold)
      : index_(std::move(index)), verify_(verify), threshold_(threshold) {}

  absl::StatusOr<std::optional<Match>> FindOrKeep(
      uint32_t doc, DocFingerprint* fingerprint) override {
    std::optional<Match> match;
    OwnSet own{fingerprint->token_set};
    if (verify_ == Verify::kExact) {
      ASSIGN_OR_RETURN(const std::vector<uint32_t> candidates,
                       index_->Candidates(fingerprint->minhash));
      match = kept_sets_.BestMatch(own, candidates, threshold_);
    } else {
      // --verification none: any band hit counts, scored only to name the
      // closest.
      const double floor = verify_ == Verify::kNone ? 0.0 : threshold_;
      ASSIGN_OR_RETURN(std::vector<ScoredId> hits,
                       index_->Query(fingerprint->minhash, floor));
      if (!hits.empty()) match = Match{hits.front().id, hits.front().score};
    }
    if (match) return match;
    RETURN_IF_ERROR(index_->Insert(doc, fingerprint->minhash));
    if (verify_ == Verify::kExact) {
      kept_sets_.Keep(doc, own, fingerprint->token_chunk);
    }
    return std::nullopt;
  }

  size_t MemoryBytes() const override {
    return index_->MemoryBytes() + kept_sets_.MemoryBytes();
  }

  nlohmann::ordered_json Stats() const override {
    const LshParams& lsh = index_->options().lsh;
    return {{"bands", lsh.bands},
            {"rows", lsh.rows},
            {"index_bytes", index_->MemoryBytes()},
            {"token_set_bytes", kept_sets_.MemoryBytes()}};
  }

 private:
  std::unique_ptr<MinHashLshIndex> index_;
  KeptSets kept_sets_;
  Verify verify_;
  double threshold_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<DuplicateFinder>> MakeMinHashFinder(
    const DedupOptions& options, uint64_t reserve_docs) {
  MinHashIndexOptions index_options;
  index_options.num_perm = options.fingerprint.num_perm;
  ASSIGN_OR_RETURN(
      index_options.lsh,
      ChooseBanding(options.threshold, options.fingerprint.num_perm,
                    options.verify, options.bands));
  // One thread inserts and queries: a single shard is fastest.
  index_options.shards = 1;
  ASSIGN_OR_RETURN(std::unique_ptr<MinHashLshIndex> index,
                   MinHashLshIndex::Create(index_options));
  if (reserve_docs > 0) {
    index->Reserve(static_cast<uint32_t>(
        std::min<uint64_t>(reserve_docs, MinHashLshIndex::kMaxId)));
  }
  return std::make_unique<MinHashFinder>(std::move(index), options.verify,
                                         options.threshold);
}

}  // namespace neardup::dedup
