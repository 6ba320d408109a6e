// simhash: kept documents' 64-bit SimHashes in a permuted-table index;
// a document within Hamming distance k of a kept one is a duplicate.

#include "absl/strings/str_cat.h"
#include "duplicate_finder.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/fingerprint_settings.h"
#include "neardup/core/index/simhash_index.h"
#include "neardup/dedup/internal/token_set_store.h"

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
    std::span<uint64_t> mine;
    bool mine_sorted = false;
    if (verify_ == Verify::kExact) {
      // Hamming finds the candidates; the shingle sets decide.
      mine = fingerprint->token_set;
      if (!hits.empty()) {
        mine = mine.first(SortUniqueHashes(mine));
        mine_sorted = true;
      }
      for (const IdDistance& hit : hits) {
        const std::span<const uint64_t> theirs = token_sets_.GetSorted(hit.id);
        const double j = ExactJaccard64(mine, theirs);
        if (j >= threshold_ &&
            (!match || j > match->similarity ||
             (j == match->similarity && hit.id < match->representative))) {
          match = Match{hit.id, j};
        }
      }
    } else if (!hits.empty()) {  // nearest first, ties by ascending id
      match = Match{hits.front().id, SimHashSimilarity(hits.front().distance)};
    }
    if (match) return match;
    RETURN_IF_ERROR(index_->Insert(doc, fingerprint->simhash));
    if (verify_ == Verify::kExact) {
      token_sets_.Add(doc, mine, mine_sorted, fingerprint->token_chunk);
    }
    return std::nullopt;
  }

  size_t MemoryBytes() const override {
    return index_->MemoryBytes() + token_sets_.MemoryBytes();
  }

  nlohmann::ordered_json Stats() const override {
    return {{"max_distance", index_->options().max_distance},
            {"tables", index_->num_tables()},
            {"index_bytes", index_->MemoryBytes()},
            {"token_set_bytes", token_sets_.MemoryBytes()}};
  }

 private:
  std::unique_ptr<SimHashIndex> index_;
  TokenSetStore token_sets_;
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
