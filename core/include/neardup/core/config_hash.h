#ifndef NEARDUP_CORE_CONFIG_HASH_H_
#define NEARDUP_CORE_CONFIG_HASH_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "neardup/core/hash.h"

namespace neardup {

// Identifies everything that shaped a signature. Signatures with different
// config hashes must never be compared. txtfp-compatible:
//   XXH3_64bits("{canonicalizer}|{tokenizer}|{algo}|{family}|{seed:016x}")
uint64_t ConfigHash(std::string_view canonicalizer_config,
                    std::string_view tokenizer_name, std::string_view algorithm,
                    HashFamily family, uint64_t seed);

// 16 lowercase hex digits, zero-padded.
std::string FormatHex64(uint64_t value);
// Parses 1-16 hex digits, with an optional 0x prefix.
absl::StatusOr<uint64_t> ParseHex64(std::string_view text);

}  // namespace neardup

#endif  // NEARDUP_CORE_CONFIG_HASH_H_
