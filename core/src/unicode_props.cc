#include "neardup/core/internal/unicode_props.h"

#include <unicode/uchar.h>

#include <array>
#include <memory>

namespace neardup::internal {
namespace {

bool IsAlnum(UChar32 c) {
  if (u_hasBinaryProperty(c, UCHAR_ALPHABETIC)) return true;
  const int8_t t = u_charType(c);
  return t == U_DECIMAL_DIGIT_NUMBER || t == U_LETTER_NUMBER ||
         t == U_OTHER_NUMBER;
}

uint8_t ComputeWordProps(UChar32 c) {
  uint8_t wb = kWbOther;
  switch (u_getIntPropertyValue(c, UCHAR_WORD_BREAK)) {
    case U_WB_CR:
      wb = kWbCR;
      break;
    case U_WB_LF:
      wb = kWbLF;
      break;
    case U_WB_NEWLINE:
      wb = kWbNewline;
      break;
    case U_WB_EXTEND:
      wb = kWbExtend;
      break;
    case U_WB_ZWJ:
      wb = kWbZwj;
      break;
    case U_WB_REGIONAL_INDICATOR:
      wb = kWbRegionalIndicator;
      break;
    case U_WB_FORMAT:
      wb = kWbFormat;
      break;
    case U_WB_KATAKANA:
      wb = kWbKatakana;
      break;
    case U_WB_HEBREW_LETTER:
      wb = kWbHebrewLetter;
      break;
    case U_WB_ALETTER:
      wb = kWbALetter;
      break;
    case U_WB_SINGLE_QUOTE:
      wb = kWbSingleQuote;
      break;
    case U_WB_DOUBLE_QUOTE:
      wb = kWbDoubleQuote;
      break;
    case U_WB_MIDNUMLET:
      wb = kWbMidNumLet;
      break;
    case U_WB_MIDLETTER:
      wb = kWbMidLetter;
      break;
    case U_WB_MIDNUM:
      wb = kWbMidNum;
      break;
    case U_WB_NUMERIC:
      wb = kWbNumeric;
      break;
    case U_WB_EXTENDNUMLET:
      wb = kWbExtendNumLet;
      break;
    case U_WB_WSEGSPACE:
      wb = kWbWSegSpace;
      break;
    default:
      break;
  }
  uint8_t props = wb;
  if (IsAlnum(c)) props |= kAlnumBit;
  if (u_hasBinaryProperty(c, UCHAR_EXTENDED_PICTOGRAPHIC)) props |= kExtPictBit;
  return props;
}

uint8_t ComputeGraphemeProps(UChar32 c) {
  uint8_t gb = kGbOther;
  switch (u_getIntPropertyValue(c, UCHAR_GRAPHEME_CLUSTER_BREAK)) {
    case U_GCB_CR:
      gb = kGbCR;
      break;
    case U_GCB_LF:
      gb = kGbLF;
      break;
    case U_GCB_CONTROL:
      gb = kGbControl;
      break;
    case U_GCB_EXTEND:
      gb = kGbExtend;
      break;
    case U_GCB_ZWJ:
      gb = kGbZwj;
      break;
    case U_GCB_REGIONAL_INDICATOR:
      gb = kGbRegionalIndicator;
      break;
    case U_GCB_PREPEND:
      gb = kGbPrepend;
      break;
    case U_GCB_SPACING_MARK:
      gb = kGbSpacingMark;
      break;
    case U_GCB_L:
      gb = kGbL;
      break;
    case U_GCB_V:
      gb = kGbV;
      break;
    case U_GCB_T:
      gb = kGbT;
      break;
    case U_GCB_LV:
      gb = kGbLV;
      break;
    case U_GCB_LVT:
      gb = kGbLVT;
      break;
    default:
      break;
  }
  uint8_t props = gb;
  if (u_hasBinaryProperty(c, UCHAR_EXTENDED_PICTOGRAPHIC)) props |= kExtPictBit;
  return props;
}

using BmpTable = std::array<uint8_t, 0x10000>;

// Built once on first use (thread-safe static init), ~3 ms.
const BmpTable& Table(bool word) {
  static const auto* word_table = [] {
    auto* t = new BmpTable;
    for (UChar32 c = 0; c < 0x10000; ++c) (*t)[c] = ComputeWordProps(c);
    return t;
  }();
  static const auto* grapheme_table = [] {
    auto* t = new BmpTable;
    for (UChar32 c = 0; c < 0x10000; ++c) (*t)[c] = ComputeGraphemeProps(c);
    return t;
  }();
  return word ? *word_table : *grapheme_table;
}

}  // namespace

uint8_t WordProps(char32_t cp) {
  if (cp < 0x10000) return Table(true)[cp];
  return ComputeWordProps(static_cast<UChar32>(cp));
}

uint8_t GraphemeProps(char32_t cp) {
  if (cp < 0x10000) return Table(false)[cp];
  return ComputeGraphemeProps(static_cast<UChar32>(cp));
}

}  // namespace neardup::internal
