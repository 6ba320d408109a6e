#ifndef NEARDUP_CORE_NEWSBOT_SIMHASH_H_
#define NEARDUP_CORE_NEWSBOT_SIMHASH_H_

// newsbot's minimal SimHash (seeds/newsbot-simhash.md): lowercase ASCII
// alphanumeric tokens, MD5 per token occurrence, 16/32/64/128-bit
// fingerprints as zero-padded lowercase hex, all zeros for a text without
// tokens.
//
// Bit order (the seed's example value could not be reproduced by any
// standard order, so we fix the common one): read a token's MD5 digest as a
// 128-bit big-endian integer; fingerprint bit i (i = 0 the least
// significant) is the majority vote, over token occurrences, of that
// integer's bit i; a tie gives 0. Frozen by golden vectors.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace neardup {

// newsbot's width unless one is asked for.
inline constexpr int kDefaultNewsbotBits = 64;
// The widths newsbot's SimHash comes in.
inline constexpr std::array<int, 4> kNewsbotBitWidths = {16, 32, 64, 128};

// INVALID_ARGUMENT "newsbot SimHash bits must be 16, 32, 64 or 128, got N"
// unless `bits` is one of kNewsbotBitWidths.
absl::Status CheckNewsbotBits(int bits);

struct NewsbotFingerprint {
  int bits = kDefaultNewsbotBits;  // 16, 32, 64 or 128
  uint64_t high = 0;               // bits 64..127 (128-bit fingerprints only)
  uint64_t low = 0;                // bits 0..63

  bool operator==(const NewsbotFingerprint&) const = default;
};

// newsbot's tokenize: re.findall("[a-z0-9]+", text.lower()).
std::vector<std::string> NewsbotTokenize(std::string_view text);

// INVALID_ARGUMENT unless bits is 16, 32, 64 or 128.
absl::StatusOr<NewsbotFingerprint> NewsbotSimHash(
    std::string_view text, int bits = kDefaultNewsbotBits);

// bits / 4 lowercase hex digits, zero-padded.
std::string FormatNewsbot(const NewsbotFingerprint& fingerprint);
// 4, 8, 16 or 32 hex digits (any case) give a 16/32/64/128-bit
// fingerprint; anything else is INVALID_ARGUMENT (newsbot returns infinity).
absl::StatusOr<NewsbotFingerprint> ParseNewsbot(std::string_view hex);

// Differing bits. INVALID_ARGUMENT for fingerprints of different widths.
absl::StatusOr<int> NewsbotHamming(const NewsbotFingerprint& a,
                                   const NewsbotFingerprint& b);
// newsbot's hamming_distance: each string (1 to 32 hex digits, any case)
// read as an integer, so "f" and "e" differ in 1 bit. INVALID_ARGUMENT for
// anything else (newsbot returns infinity).
absl::StatusOr<int> NewsbotHamming(std::string_view hex_a,
                                   std::string_view hex_b);

// "simhash-newsbot-b64" and its config hash, XXH3 of
// "newsbot-ascii-lower|newsbot-alnum|simhash-newsbot-b64|md5|0000000000000000"
// (no canonicalizer: newsbot's tokenizer lowercases ASCII and drops the rest).
std::string NewsbotAlgorithm(int bits);
uint64_t NewsbotConfigHash(int bits);

}  // namespace neardup

#endif  // NEARDUP_CORE_NEWSBOT_SIMHASH_H_
