#include "neardup/core/index/internal/slot_store.h"

#include <algorithm>

namespace neardup::index_internal {
namespace {

template <typename T>
std::vector<T> Truncate(std::span<const uint64_t> slots) {
  std::vector<T> out(slots.size());
  for (size_t i = 0; i < slots.size(); ++i) out[i] = static_cast<T>(slots[i]);
  return out;
}

// Plain loop: compilers vectorise it on the baseline ISA.
template <typename T>
int CountEqualSlots(const T* a, const T* b, int n) {
  int equal = 0;
  for (int i = 0; i < n; ++i) equal += a[i] == b[i];
  return equal;
}

// Grows `v` to hold `size` elements. Past the capacity, grows it by 25%
// and exactly: doubling would strand up to half of the biggest array in the
// index.
template <typename T>
void GrowTo(PodVector<T>& v, size_t size) {
  if (size <= v.size()) return;
  if (size > v.capacity()) {
    v.reserve(std::max(size, v.capacity() + v.capacity() / 4));
  }
  v.resize(size);
}

template <typename T>
void SetRow(PodVector<T>& v, size_t offset, std::span<const uint64_t> slots) {
  GrowTo(v, offset + slots.size());
  for (size_t i = 0; i < slots.size(); ++i) {
    v[offset + i] = static_cast<T>(slots[i]);
  }
}

template <typename T>
std::vector<uint64_t> GetRow(const PodVector<T>& v, size_t offset, int n) {
  return std::vector<uint64_t>(v.begin() + offset, v.begin() + offset + n);
}

}  // namespace

SlotProbe::SlotProbe(std::span<const uint64_t> slots, int bits) {
  switch (bits) {
    case 8:
      s8_ = Truncate<uint8_t>(slots);
      break;
    case 16:
      s16_ = Truncate<uint16_t>(slots);
      break;
    case 32:
      s32_ = Truncate<uint32_t>(slots);
      break;
    default:
      s64_ = Truncate<uint64_t>(slots);
      break;
  }
}

void SlotStore::Set(uint32_t row, std::span<const uint64_t> slots) {
  const size_t offset = static_cast<size_t>(row) * num_perm_;
  switch (bits_) {
    case 8:
      SetRow(s8_, offset, slots);
      break;
    case 16:
      SetRow(s16_, offset, slots);
      break;
    case 32:
      SetRow(s32_, offset, slots);
      break;
    default:
      SetRow(s64_, offset, slots);
      break;
  }
}

std::vector<uint64_t> SlotStore::Get(uint32_t row) const {
  const size_t offset = static_cast<size_t>(row) * num_perm_;
  switch (bits_) {
    case 8:
      return GetRow(s8_, offset, num_perm_);
    case 16:
      return GetRow(s16_, offset, num_perm_);
    case 32:
      return GetRow(s32_, offset, num_perm_);
    default:
      return GetRow(s64_, offset, num_perm_);
  }
}

int SlotStore::CountEqual(uint32_t row, const SlotProbe& probe) const {
  const size_t offset = static_cast<size_t>(row) * num_perm_;
  switch (bits_) {
    case 8:
      return CountEqualSlots(s8_.data() + offset, probe.s8_.data(), num_perm_);
    case 16:
      return CountEqualSlots(s16_.data() + offset, probe.s16_.data(),
                             num_perm_);
    case 32:
      return CountEqualSlots(s32_.data() + offset, probe.s32_.data(),
                             num_perm_);
    default:
      return CountEqualSlots(s64_.data() + offset, probe.s64_.data(),
                             num_perm_);
  }
}

namespace {
// Exact the first time (one bulk load); by half at least afterwards, so that
// batch-by-batch reservations do not copy the array every time.
template <typename T>
void ReserveGrowing(PodVector<T>& v, size_t size) {
  if (size > v.capacity()) {
    v.reserve(std::max(size, v.capacity() + v.capacity() / 2));
  }
}
}  // namespace

void SlotStore::ReserveRows(size_t rows) {
  const size_t size = rows * num_perm_;
  switch (bits_) {
    case 8:
      ReserveGrowing(s8_, size);
      break;
    case 16:
      ReserveGrowing(s16_, size);
      break;
    case 32:
      ReserveGrowing(s32_, size);
      break;
    default:
      ReserveGrowing(s64_, size);
      break;
  }
}

size_t SlotStore::MemoryBytes() const {
  return s8_.capacity() + s16_.capacity() * 2 + s32_.capacity() * 4 +
         s64_.capacity() * 8;
}

}  // namespace neardup::index_internal
