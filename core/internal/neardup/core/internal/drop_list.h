#ifndef NEARDUP_CORE_INTERNAL_DROP_LIST_H_
#define NEARDUP_CORE_INTERNAL_DROP_LIST_H_

// The code points the canonicalizer deletes before normalizing. The lists are
// txtfp's, exactly; they are deliberately not "all of category Cf" (U+00AD
// SOFT HYPHEN survives).

namespace neardup::internal {

constexpr bool IsBidiControl(char32_t c) {
  return (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) ||
         c == 0x200E || c == 0x200F;
}

constexpr bool IsDroppableFormat(char32_t c) {
  return (c >= 0x200B && c <= 0x200F) || (c >= 0x2060 && c <= 0x2064) ||
         c == 0x061C || (c >= 0x180B && c <= 0x180F) || c == 0xFEFF ||
         (c >= 0xFE00 && c <= 0xFE0F) || (c >= 0xE0100 && c <= 0xE01EF) ||
         c == 0xE0001 || (c >= 0xE0020 && c <= 0xE007F) || IsBidiControl(c);
}

// Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt, stable
// since Unicode 5.2; tests compare it with ICU's): invisible in rendering,
// so text that differs only by them reads the same. Includes U+00AD SOFT
// HYPHEN, which txtfp's format list keeps.
constexpr bool IsDefaultIgnorable(char32_t c) {
  return c == 0x00AD || c == 0x034F || c == 0x061C ||
         (c >= 0x115F && c <= 0x1160) || (c >= 0x17B4 && c <= 0x17B5) ||
         (c >= 0x180B && c <= 0x180F) || (c >= 0x200B && c <= 0x200F) ||
         (c >= 0x202A && c <= 0x202E) || (c >= 0x2060 && c <= 0x206F) ||
         c == 0x3164 || (c >= 0xFE00 && c <= 0xFE0F) || c == 0xFEFF ||
         c == 0xFFA0 || (c >= 0xFFF0 && c <= 0xFFF8) ||
         (c >= 0x1BCA0 && c <= 0x1BCA3) || (c >= 0x1D173 && c <= 0x1D17A) ||
         (c >= 0xE0000 && c <= 0xE0FFF);
}

constexpr bool IsDropped(char32_t c, bool strip_bidi, bool strip_format,
                         bool strip_ignorable = false) {
  if (c < 0xAD) return false;  // fast exit for ASCII and Latin-1 letters
  if (strip_ignorable && IsDefaultIgnorable(c)) return true;
  if (c < 0x61C) return false;
  return (strip_format && IsDroppableFormat(c)) ||
         (strip_bidi && IsBidiControl(c));
}

}  // namespace neardup::internal

#endif  // NEARDUP_CORE_INTERNAL_DROP_LIST_H_
