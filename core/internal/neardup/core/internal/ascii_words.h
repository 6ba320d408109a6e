#ifndef NEARDUP_CORE_INTERNAL_ASCII_WORDS_H_
#define NEARDUP_CORE_INTERNAL_ASCII_WORDS_H_

// UAX #29 words of pure-ASCII text, found with bit masks over 64-byte chunks
// instead of a byte loop: a branch per chunk, not per word boundary. Gives
// exactly the tokens of the rule engine (ForEachWordGeneral) on ASCII input.

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"

namespace neardup::internal {

// Per-chunk class masks; bit i describes byte 64 * chunk + i.
struct AsciiClassMasks {
  uint64_t letter = 0;      // A-Z a-z
  uint64_t digit = 0;       // 0-9
  uint64_t underscore = 0;  // _ (ExtendNumLet)
  uint64_t mid_letter = 0;  // . ' :  (MidNumLet, Single_Quote, MidLetter)
  uint64_t mid_num = 0;     // . ' , ;  (MidNumLet, Single_Quote, MidNum)
};

// Classifies up to 64 bytes; bytes past `len` are "other". Two builds with
// identical results: portable and AVX2 (runtime dispatch).
AsciiClassMasks ClassifyAsciiChunkScalar(const char* p, size_t len);
AsciiClassMasks ClassifyAsciiChunk(const char* p, size_t len);

// Appends every word of `text` (which must be ASCII) to `*out` as views.
void AppendAsciiWords(std::string_view text,
                      std::vector<std::string_view>* out);
// Calls `sink` for every word of `text` (which must be ASCII).
void ForEachAsciiWord(std::string_view text,
                      absl::FunctionRef<void(std::string_view)> sink);

}  // namespace neardup::internal

#endif  // NEARDUP_CORE_INTERNAL_ASCII_WORDS_H_
