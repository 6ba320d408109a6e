#ifndef NEARDUP_CORE_INTERNAL_INLINE_HASH_H_
#define NEARDUP_CORE_INTERNAL_INLINE_HASH_H_

// Header-inlined token hashes for the fingerprint hot loops. xxHash comes from
// the system package; XXH_INLINE_ALL makes its functions static inline here.

#include <cstdint>
#include <cstring>
#include <string_view>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "neardup/core/hash.h"

namespace neardup::internal {

// XXH3_128bits_withSeed, with its dispatch on length done here so that the
// short cases (every word and shingle) inline into the caller's loop. Same
// branches, same functions, same bytes as the library's entry point.
inline Hash128 InlineXxh3(std::string_view bytes, uint64_t seed) {
  const auto* input = reinterpret_cast<const xxh_u8*>(bytes.data());
  const size_t len = bytes.size();
  XXH128_hash_t h;
  if (len <= 16) {
    h = XXH3_len_0to16_128b(input, len, XXH3_kSecret, seed);
  } else if (len <= 128) {
    h = XXH3_len_17to128_128b(input, len, XXH3_kSecret, sizeof(XXH3_kSecret),
                              seed);
  } else {
    h = XXH3_128bits_withSeed(bytes.data(), len, seed);
  }
  return {h.low64, h.high64};
}

inline uint64_t Rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

inline uint64_t Fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}

inline uint64_t LoadLe64(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;  // x86-64 and AArch64 Linux are little-endian
}

// MurmurHash3_x64_128 (Austin Appleby's public-domain algorithm), with the
// full 64-bit seed in both halves as txtfp does. Returns (h1, h2).
inline Hash128 InlineMurmur3(std::string_view bytes, uint64_t seed) {
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t len = bytes.size();
  const size_t nblocks = len / 16;
  uint64_t h1 = seed;
  uint64_t h2 = seed;
  constexpr uint64_t c1 = 0x87c37b91114253d5ull;
  constexpr uint64_t c2 = 0x4cf5ad432745937full;

  for (size_t i = 0; i < nblocks; ++i) {
    uint64_t k1 = LoadLe64(data + i * 16);
    uint64_t k2 = LoadLe64(data + i * 16 + 8);
    k1 *= c1;
    k1 = Rotl64(k1, 31);
    k1 *= c2;
    h1 ^= k1;
    h1 = Rotl64(h1, 27);
    h1 += h2;
    h1 = h1 * 5 + 0x52dce729;
    k2 *= c2;
    k2 = Rotl64(k2, 33);
    k2 *= c1;
    h2 ^= k2;
    h2 = Rotl64(h2, 31);
    h2 += h1;
    h2 = h2 * 5 + 0x38495ab5;
  }

  const unsigned char* tail = data + nblocks * 16;
  uint64_t k1 = 0;
  uint64_t k2 = 0;
  switch (len & 15) {
    case 15:
      k2 ^= uint64_t{tail[14]} << 48;
      [[fallthrough]];
    case 14:
      k2 ^= uint64_t{tail[13]} << 40;
      [[fallthrough]];
    case 13:
      k2 ^= uint64_t{tail[12]} << 32;
      [[fallthrough]];
    case 12:
      k2 ^= uint64_t{tail[11]} << 24;
      [[fallthrough]];
    case 11:
      k2 ^= uint64_t{tail[10]} << 16;
      [[fallthrough]];
    case 10:
      k2 ^= uint64_t{tail[9]} << 8;
      [[fallthrough]];
    case 9:
      k2 ^= uint64_t{tail[8]};
      k2 *= c2;
      k2 = Rotl64(k2, 33);
      k2 *= c1;
      h2 ^= k2;
      [[fallthrough]];
    case 8:
      k1 ^= uint64_t{tail[7]} << 56;
      [[fallthrough]];
    case 7:
      k1 ^= uint64_t{tail[6]} << 48;
      [[fallthrough]];
    case 6:
      k1 ^= uint64_t{tail[5]} << 40;
      [[fallthrough]];
    case 5:
      k1 ^= uint64_t{tail[4]} << 32;
      [[fallthrough]];
    case 4:
      k1 ^= uint64_t{tail[3]} << 24;
      [[fallthrough]];
    case 3:
      k1 ^= uint64_t{tail[2]} << 16;
      [[fallthrough]];
    case 2:
      k1 ^= uint64_t{tail[1]} << 8;
      [[fallthrough]];
    case 1:
      k1 ^= uint64_t{tail[0]};
      k1 *= c1;
      k1 = Rotl64(k1, 31);
      k1 *= c2;
      h1 ^= k1;
  }

  h1 ^= len;
  h2 ^= len;
  h1 += h2;
  h2 += h1;
  h1 = Fmix64(h1);
  h2 = Fmix64(h2);
  h1 += h2;
  h2 += h1;
  return {h1, h2};
}

}  // namespace neardup::internal

#endif  // NEARDUP_CORE_INTERNAL_INLINE_HASH_H_
