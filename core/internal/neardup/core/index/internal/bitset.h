#ifndef NEARDUP_CORE_INDEX_INTERNAL_BITSET_H_
#define NEARDUP_CORE_INDEX_INTERNAL_BITSET_H_

// A growable bitset over rows. Not thread-safe.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace neardup::index_internal {

class Bitset {
 public:
  bool Test(uint32_t row) const {
    const size_t word = row >> 6;
    return word < words_.size() && ((words_[word] >> (row & 63)) & 1);
  }
  void Set(uint32_t row) {
    const size_t word = row >> 6;
    if (word >= words_.size()) words_.resize(word + 1 + words_.size() / 4, 0);
    words_[word] |= uint64_t{1} << (row & 63);
  }
  void Clear(uint32_t row) {
    const size_t word = row >> 6;
    if (word < words_.size()) words_[word] &= ~(uint64_t{1} << (row & 63));
  }
  size_t MemoryBytes() const { return words_.capacity() * sizeof(uint64_t); }

 private:
  std::vector<uint64_t> words_;
};

}  // namespace neardup::index_internal

#endif  // NEARDUP_CORE_INDEX_INTERNAL_BITSET_H_
