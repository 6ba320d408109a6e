#include "neardup/dedup/internal/bloom_filter.h"

#include <algorithm>
#include <cmath>

namespace neardup::dedup {
namespace {

uint64_t Mix(uint64_t x) {  // splitmix64 finalizer
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// Maps a 64-bit hash onto [0, n) without a division.
uint64_t Reduce(uint64_t hash, uint64_t n) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(hash) * n) >>
                               64);
}

}  // namespace

BloomFilter::BloomFilter(uint64_t expected_keys, double false_positive_rate) {
  const double n = static_cast<double>(std::max<uint64_t>(expected_keys, 1));
  const double p = std::clamp(false_positive_rate, 1e-12, 0.5);
  const double ln2 = std::log(2.0);
  const double bits = std::ceil(-n * std::log(p) / (ln2 * ln2));
  num_bits_ = std::max<uint64_t>(64, static_cast<uint64_t>(bits));
  num_bits_ = (num_bits_ + 63) / 64 * 64;
  num_probes_ =
      std::clamp(static_cast<int>(std::lround(num_bits_ / n * ln2)), 1, 30);
  words_.assign(num_bits_ / 64, 0);
}

void BloomFilter::Insert(uint64_t key) {
  const uint64_t h1 = Mix(key);
  const uint64_t h2 = Mix(key ^ 0x9e3779b97f4a7c15ULL) | 1;
  for (int i = 0; i < num_probes_; ++i) {
    const uint64_t bit = Reduce(h1 + i * h2, num_bits_);
    words_[bit >> 6] |= uint64_t{1} << (bit & 63);
  }
}

bool BloomFilter::MayContain(uint64_t key) const {
  const uint64_t h1 = Mix(key);
  const uint64_t h2 = Mix(key ^ 0x9e3779b97f4a7c15ULL) | 1;
  for (int i = 0; i < num_probes_; ++i) {
    const uint64_t bit = Reduce(h1 + i * h2, num_bits_);
    if ((words_[bit >> 6] & (uint64_t{1} << (bit & 63))) == 0) return false;
  }
  return true;
}

}  // namespace neardup::dedup
