#ifndef NEARDUP_CORE_HASH_H_
#define NEARDUP_CORE_HASH_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"

namespace neardup {

// txtfp's default seed for MinHash and SimHash.
inline constexpr uint64_t kDefaultSeed = 0x00C0FFEE5EEDull;

enum class HashFamily {
  kXxh3,     // XXH3_128bits_withSeed; name "xxh3-64" (txtfp's)
  kMurmur3,  // MurmurHash3_x64_128, seed in both halves; "mmh3-x64-128"
};

struct Hash128 {
  uint64_t lo;
  uint64_t hi;
  bool operator==(const Hash128&) const = default;
};

// The 128-bit token hash every fingerprint is built from.
Hash128 HashToken(HashFamily family, std::string_view bytes, uint64_t seed);
Hash128 Xxh3Hash128(std::string_view bytes, uint64_t seed);
Hash128 Murmur3Hash128(std::string_view bytes, uint64_t seed);

// XXH3_64bits with seed 0 (band keys, config hashes).
uint64_t Xxh3Hash64(std::string_view bytes);

std::string_view HashFamilyName(HashFamily family);
absl::StatusOr<HashFamily> ParseHashFamily(std::string_view name);

}  // namespace neardup

#endif  // NEARDUP_CORE_HASH_H_
