#ifndef NEARDUP_CORE_INTERNAL_UNICODE_PROPS_H_
#define NEARDUP_CORE_INTERNAL_UNICODE_PROPS_H_

// Character properties the segmenters need, read from ICU once and packed in
// a byte per code point (a table for the BMP, ICU calls above it).

#include <cstdint>

namespace neardup::internal {

// UAX #29 Word_Break values (our own compact numbering).
enum WordBreak : uint8_t {
  kWbOther,
  kWbCR,
  kWbLF,
  kWbNewline,
  kWbExtend,
  kWbZwj,
  kWbRegionalIndicator,
  kWbFormat,
  kWbKatakana,
  kWbHebrewLetter,
  kWbALetter,
  kWbSingleQuote,
  kWbDoubleQuote,
  kWbMidNumLet,
  kWbMidLetter,
  kWbMidNum,
  kWbNumeric,
  kWbExtendNumLet,
  kWbWSegSpace,
};

// UAX #29 Grapheme_Cluster_Break values.
enum GraphemeBreak : uint8_t {
  kGbOther,
  kGbCR,
  kGbLF,
  kGbControl,
  kGbExtend,
  kGbZwj,
  kGbRegionalIndicator,
  kGbPrepend,
  kGbSpacingMark,
  kGbL,
  kGbV,
  kGbT,
  kGbLV,
  kGbLVT,
};

// Packed word properties: low 5 bits WordBreak, then flags.
inline constexpr uint8_t kWordBreakMask = 0x1F;
inline constexpr uint8_t kAlnumBit = 0x20;    // Alphabetic or Nd/Nl/No
inline constexpr uint8_t kExtPictBit = 0x40;  // Extended_Pictographic

uint8_t WordProps(char32_t cp);
// Packed grapheme properties: low 5 bits GraphemeBreak, kExtPictBit.
uint8_t GraphemeProps(char32_t cp);

}  // namespace neardup::internal

#endif  // NEARDUP_CORE_INTERNAL_UNICODE_PROPS_H_
