#ifndef NEARDUP_CORE_INDEX_UNION_FIND_H_
#define NEARDUP_CORE_INDEX_UNION_FIND_H_

// Disjoint sets over dense 32-bit ids, for grouping near-duplicates into
// clusters: union by rank plus path halving, so any sequence of operations
// runs in near-linear time. Not thread-safe.

#include <cstdint>
#include <vector>

namespace neardup {

class UnionFind {
 public:
  explicit UnionFind(uint32_t size = 0) { Grow(size); }

  // Makes ids [size(), new_size) singletons.
  void Grow(uint32_t new_size);
  uint32_t size() const { return static_cast<uint32_t>(parent_.size()); }

  // The representative of `id`'s set. `id` < size().
  uint32_t Find(uint32_t id);
  // Merges the sets of `a` and `b`; returns false when already merged.
  bool Union(uint32_t a, uint32_t b);
  bool Connected(uint32_t a, uint32_t b) { return Find(a) == Find(b); }

  // Sets with more than one member, each sorted ascending, ordered by their
  // smallest member. Deterministic whatever the order of unions.
  std::vector<std::vector<uint32_t>> Clusters();

 private:
  std::vector<uint32_t> parent_;
  std::vector<uint8_t> rank_;
};

}  // namespace neardup

#endif  // NEARDUP_CORE_INDEX_UNION_FIND_H_
