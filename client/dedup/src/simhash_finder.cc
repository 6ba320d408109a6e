// simhash: kept documents' 64-bit SimHashes in a permuted-table index;
// a document within Hamming distance k of a kept one is a duplicate.

#include "absl/strings/str_cat.h"
#include "duplicate_finder.h"
#include "kept_sets.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/fingerprint_settings.h"
#include "neardup/core/index/simhash_index.h"

namespace neardup::dedup {
namespace {

class SimHashFinder : public DuplicateFinder {
 public:
  SimHashFinder(std::unique_ptr<SimHashIndex> index, Verify verify,
                double threshold)
      : index_(std::move(index)), verify_(verify), threshold_(threshold) {}

  absl::StatusOr<std::optional<Match>> FindOrKeep(
      uint32_t doc, DocFingerprint* fingerprint) override {
    ASSIGN_OR_RETURN(std::vector<IdDistance> hits,
                     index_->Query(fingerprint->simhash));
    std::optional<Match> match;
    OwnSet own{fingerprint->token_set};
    if (verify_ == Verify::kExact) {
      // Hamming finds the candidates; the shingle sets decide.
      std::vector<uint32_t> candidates;
      candidates.reserve(hits.size());
      for (const IdDistance& hit : hits) candidates.push_back(hit.id);
      match = kept_sets_.BestMatch(own, candidates, threshold_);
    } else if (!hits.empty()) {  // nearest first, ties by ascending id
      match = Match{hits.front().id, SimHashSimilarity(hits.front().distance)};
    }
    if (match) return match;
    RETURN_IF_ERROR(index_->Insert(doc, fingerprint->simhash));
    if (verify_ == Verify::kExact) {
      kept_sets_.Keep(doc, own, fingerprint->token_chunk);
    }
    return std::nullopt;
  }

  size_t MemoryBytes() const override {
    return index_->MemoryBytes() + kept_sets_.MemoryBytes();
  }

  nlohmann::ordered_json Stats() const override {
    return {{"max_distance", index_->options().max_distance},
            {"tables", index_->num_tables()},
            {"index_bytes", index_->MemoryBytes()},
            {"token_set_bytes", kept_sets_.MemoryBytes()}};
  }

 private:
  std::unique_ptr<SimHashIndex> index_;
  KeptSets kept_sets_;
  Verify verify_;
  double threshold_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<DuplicateFinder>> MakeSimHashFinder(
    const DedupOptions& options, uint64_t /*expected_docs*/) {
  SimHashIndexOptions index_options;
  index_options.max_distance = options.max_distance;
  index_options.shards = 1;  // one thread inserts and queries
  ASSIGN_OR_RETURN(std::unique_ptr<SimHashIndex> index,
                   SimHashIndex::Create(index_options));
  return std::make_unique<SimHashFinder>(std::move(index), options.verify,
                                         options.threshold);
}

}  // namespace neardup::dedup
