#ifndef NEARDUP_CLIENT_DEDUP_SRC_KEPT_SETS_H_
#define NEARDUP_CLIENT_DEDUP_SRC_KEPT_SETS_H_

// --verification exact, once for the finders that keep shingle sets
// (minhash-lsh, simhash): a document's candidates are decided by the exact
// Jaccard of their kept sets with its own.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "duplicate_finder.h"
#include "neardup/dedup/internal/hash_chunk.h"
#include "neardup/dedup/internal/token_set_store.h"

namespace neardup::dedup {

// A document's own set as verification leaves it: sorted and distinct once
// it had a candidate, raw otherwise.
struct OwnSet {
  std::span<uint64_t> hashes;
  bool sorted = false;
};

class KeptSets {
 public:
  // The candidate whose kept set has the highest exact Jaccard with `own`,
  // at or above `threshold` (ties: the lowest id), or nullopt.
  std::optional<Match> BestMatch(OwnSet& own,
                                 std::span<const uint32_t> candidates,
                                 double threshold);
  // Keeps `doc`'s set, which lies in `chunk`.
  void Keep(uint32_t doc, const OwnSet& own,
            const std::shared_ptr<HashChunk>& chunk) {
    store_.Add(doc, own.hashes, own.sorted, chunk);
  }
  size_t MemoryBytes() const { return store_.MemoryBytes(); }

 private:
  TokenSetStore store_;
};

}  // namespace neardup::dedup

#endif  // NEARDUP_CLIENT_DEDUP_SRC_KEPT_SETS_H_
