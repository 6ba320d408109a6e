#ifndef NEARDUP_CORE_INDEX_INTERNAL_SLOT_STORE_H_
#define NEARDUP_CORE_INDEX_INTERNAL_SLOT_STORE_H_

// The low 16, 32 or 64 bits of every MinHash slot of every row, packed
// row-major, for scoring candidates in memory. Not thread-safe.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "neardup/core/index/internal/pod_vector.h"

namespace neardup::index_internal {

// A query signature cut to the store's width once, then compared to rows.
class SlotProbe {
 public:
  SlotProbe(std::span<const uint64_t> slots, int bits);

 private:
  friend class SlotStore;
  std::vector<uint16_t> s16_;
  std::vector<uint32_t> s32_;
  std::vector<uint64_t> s64_;
};

class SlotStore {
 public:
  SlotStore(int num_perm, int bits) : num_perm_(num_perm), bits_(bits) {}

  void Set(uint32_t row, std::span<const uint64_t> slots);
  std::vector<uint64_t> Get(uint32_t row) const;
  // Number of slots of `row` equal to the probe's.
  int CountEqual(uint32_t row, const SlotProbe& probe) const;
  void ReserveRows(size_t rows);
  size_t MemoryBytes() const;

 private:
  int num_perm_;
  int bits_;
  PodVector<uint16_t> s16_;
  PodVector<uint32_t> s32_;
  PodVector<uint64_t> s64_;
};

}  // namespace neardup::index_internal

#endif  // NEARDUP_CORE_INDEX_INTERNAL_SLOT_STORE_H_
