#ifndef NEARDUP_DEDUP_INTERNAL_BLOOM_FILTER_H_
#define NEARDUP_DEDUP_INTERNAL_BLOOM_FILTER_H_

// A classic Bloom filter over 64-bit keys: m bits, k probes by double
// hashing. Sized for n keys at false-positive rate p:
//   m = -n ln p / (ln 2)^2,  k = round(m / n * ln 2).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace neardup::dedup {

class BloomFilter {
 public:
  BloomFilter(uint64_t expected_keys, double false_positive_rate);

  void Insert(uint64_t key);
  bool MayContain(uint64_t key) const;

  uint64_t num_bits() const { return num_bits_; }
  int num_probes() const { return num_probes_; }
  size_t MemoryBytes() const { return words_.size() * sizeof(uint64_t); }

 private:
  uint64_t num_bits_;
  int num_probes_;
  std::vector<uint64_t> words_;
};

}  // namespace neardup::dedup

#endif  // NEARDUP_DEDUP_INTERNAL_BLOOM_FILTER_H_
