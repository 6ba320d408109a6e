#ifndef NEARDUP_CORE_INDEX_INTERNAL_SLOT_STORE_H_
#define NEARDUP_CORE_INDEX_INTERNAL_SLOT_STORE_H_

// The low 8, 16, 32 or 64 bits of every MinHash slot of every row, packed
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
  std::vector<uint8_t> s8_;
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
  // Asks the CPU to fetch `row`'s slots (a row below the stored ones):
  // candidates are scattered, so scoring one while the next few arrive
  // hides most of their cache misses.
  void Prefetch(uint32_t row) const {
    const size_t offset = static_cast<size_t>(row) * num_perm_;
    const char* begin = nullptr;
    size_t bytes = 0;
    switch (bits_) {
      case 8:
        begin = reinterpret_cast<const char*>(s8_.data() + offset);
        bytes = num_perm_;
        break;
      case 16:
        begin = reinterpret_cast<const char*>(s16_.data() + offset);
        bytes = 2 * static_cast<size_t>(num_perm_);
        break;
      case 32:
        begin = reinterpret_cast<const char*>(s32_.data() + offset);
        bytes = 4 * static_cast<size_t>(num_perm_);
        break;
      default:
        begin = reinterpret_cast<const char*>(s64_.data() + offset);
        bytes = 8 * static_cast<size_t>(num_perm_);
        break;
    }
    for (size_t at = 0; at < bytes; at += 64) __builtin_prefetch(begin + at);
  }
  void ReserveRows(size_t rows);
  size_t MemoryBytes() const;

 private:
  int num_perm_;
  int bits_;
  PodVector<uint8_t> s8_;
  PodVector<uint16_t> s16_;
  PodVector<uint32_t> s32_;
  PodVector<uint64_t> s64_;
};

}  // namespace neardup::index_internal

#endif  // NEARDUP_CORE_INDEX_INTERNAL_SLOT_STORE_H_
