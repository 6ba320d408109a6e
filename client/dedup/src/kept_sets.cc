#include "kept_sets.h"

#include "neardup/core/shingle_set.h"

namespace neardup::dedup {

std::optional<Match> KeptSets::BestMatch(OwnSet& own,
                                         std::span<const uint32_t> candidates,
                                         double threshold) {
  if (candidates.empty()) return std::nullopt;
  if (!own.sorted) {
    own.hashes = own.hashes.first(SortUniqueHashes(own.hashes));
    own.sorted = true;
  }
  std::optional<Match> best;
  for (uint32_t candidate : candidates) {
    const double j = ExactJaccard64(own.hashes, store_.GetSorted(candidate));
    if (j >= threshold &&
        (!best || j > best->similarity ||
         (j == best->similarity && candidate < best->representative))) {
      best = Match{candidate, j};
    }
  }
  return best;
}

}  // namespace neardup::dedup
