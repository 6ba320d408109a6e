#include "neardup/core/hash.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/core/enum_tables.h"
#include "neardup/core/internal/inline_hash.h"

namespace neardup {

Hash128 Xxh3Hash128(std::string_view bytes, uint64_t seed) {
  return internal::InlineXxh3(bytes, seed);
}

Hash128 Murmur3Hash128(std::string_view bytes, uint64_t seed) {
  return internal::InlineMurmur3(bytes, seed);
}

Hash128 HashToken(HashFamily family, std::string_view bytes, uint64_t seed) {
  return family == HashFamily::kXxh3 ? internal::InlineXxh3(bytes, seed)
                                     : internal::InlineMurmur3(bytes, seed);
}

uint64_t Xxh3Hash64(std::string_view bytes) {
  return XXH3_64bits(bytes.data(), bytes.size());
}

std::string_view HashFamilyName(HashFamily family) {
  return kHashFamilies.Name(family);
}

absl::StatusOr<HashFamily> ParseHashFamily(std::string_view name) {
  return kHashFamilies.Parse(name);
}

}  // namespace neardup
