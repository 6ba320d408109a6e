// The table-driven skeleton against ICU's own uspoof_getSkeleton, and the
// Default_Ignorable list against ICU's property.

#include "neardup/core/internal/confusables.h"

#include <gtest/gtest.h>
#include <unicode/uchar.h>
#include <unicode/uspoof.h>

#include <random>
#include <string>
#include <vector>

#include "neardup/core/internal/drop_list.h"
#include "support/status_matchers.h"
#include "support/utf8_encode.h"

namespace neardup::internal {
namespace {

std::string IcuSkeleton(const std::string& text) {
  UErrorCode err = U_ZERO_ERROR;
  USpoofChecker* spoof = uspoof_open(&err);
  std::string out(text.size() * 8 + 64, '\0');
  const int32_t n = uspoof_getSkeletonUTF8(
      spoof, 0, text.data(), static_cast<int32_t>(text.size()), out.data(),
      static_cast<int32_t>(out.size()), &err);
  uspoof_close(spoof);
  EXPECT_TRUE(U_SUCCESS(err) || err == U_STRING_NOT_TERMINATED_WARNING)
      << u_errorName(err);
  out.resize(n);
  return out;
}

std::string Ours(const std::string& text) {
  std::string out;
  EXPECT_OK(ConfusableSkeleton::Get().Append(text, &out));
  return out;
}

bool Assigned(char32_t cp) {
  const int8_t type = u_charType(cp);
  return type != U_UNASSIGNED && type != U_SURROGATE &&
         type != U_PRIVATE_USE_CHAR;
}

TEST(ConfusableSkeleton, EqualsIcuOnEveryAssignedCodePoint) {
  // Each code point in a little context, so NFD and reordering take part.
  for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp == 0 || !Assigned(cp)) continue;
    const std::string text = "a" + testing::Utf8(cp) + "b";
    ASSERT_EQ(Ours(text), IcuSkeleton(text))
        << std::hex << "U+" << static_cast<uint32_t>(cp);
  }
}

TEST(ConfusableSkeleton, EqualsIcuOnRandomMixedStrings) {
  // A pool rich in confusables, combining marks and precomposed letters.
  std::vector<char32_t> pool;
  for (char32_t cp = 0x20; cp < 0x7F; ++cp) pool.push_back(cp);
  for (char32_t cp = 0xC0; cp < 0x250; ++cp) pool.push_back(cp);
  for (char32_t cp = 0x300; cp < 0x370; ++cp) pool.push_back(cp);  // marks
  for (char32_t cp = 0x370; cp < 0x530; ++cp) pool.push_back(cp);
  for (char32_t cp = 0xFF01; cp < 0xFF5F; ++cp) pool.push_back(cp);
  for (char32_t cp : {0x1D400, 0x1D41A, 0x1F600, 0x4E00, 0xAC00, 0x0915, 0x093F,
                      0x0E01, 0x0E48}) {
    pool.push_back(cp);
  }
  std::mt19937 rng(5);
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    const int length = 1 + rng() % 12;
    for (int k = 0; k < length; ++k) {
      const char32_t cp = pool[rng() % pool.size()];
      if (Assigned(cp)) text += testing::Utf8(cp);
    }
    ASSERT_EQ(Ours(text), IcuSkeleton(text)) << text;
  }
}

TEST(ConfusableSkeleton, KnownPrototypes) {
  EXPECT_EQ(Ours("paypal"), Ours("\u0440\u0430\u0443\u0440\u0430l"));
  EXPECT_EQ(ConfusableSkeleton::Get().PrototypeOf('m'), "rn");
  EXPECT_EQ(ConfusableSkeleton::Get().PrototypeOf('a'), "");
  EXPECT_EQ(ConfusableSkeleton::Get().PrototypeOf(0x0430), "a");  // Cyrillic
}

TEST(ConfusableSkeleton, LatinLetterOfIsTheOneLetterPrototypeOfOtherScripts) {
  const ConfusableSkeleton& s = ConfusableSkeleton::Get();
  EXPECT_EQ(s.LatinLetterOf(0x0392), 'B');  // Greek capital beta
  EXPECT_EQ(s.LatinLetterOf(0x041C), 'M');  // Cyrillic capital em
  EXPECT_EQ(s.LatinLetterOf(0x0430), 'a');  // Cyrillic small a
  EXPECT_EQ(s.LatinLetterOf(0x04C0), 'l');  // Cyrillic palochka
  EXPECT_EQ(s.LatinLetterOf('a'), 0);
  EXPECT_EQ(s.LatinLetterOf(0x0131), 0);  // Latin dotless i: Latin script
  EXPECT_EQ(s.LatinLetterOf(0x042B), 0);  // Cyrillic yeru: two letters
  EXPECT_EQ(s.LatinLetterOf(0x0660), 0);  // Arabic-Indic zero: not a letter
  // Every entry agrees with the skeleton and is a letter of another script.
  int entries = 0;
  for (char32_t cp = 0x80; cp <= 0x10FFFF; ++cp) {
    const char letter = s.LatinLetterOf(cp);
    if (letter == 0) continue;
    ++entries;
    ASSERT_EQ(s.PrototypeOf(cp), std::string(1, letter))
        << std::hex << static_cast<uint32_t>(cp);
    ASSERT_TRUE(u_isalpha(cp)) << std::hex << static_cast<uint32_t>(cp);
  }
  EXPECT_GT(entries, 100);
}

TEST(DropList, DefaultIgnorableMatchesIcu) {
  for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    ASSERT_EQ(IsDefaultIgnorable(cp),
              u_hasBinaryProperty(cp, UCHAR_DEFAULT_IGNORABLE_CODE_POINT) != 0)
        << std::hex << "U+" << static_cast<uint32_t>(cp);
  }
}

}  // namespace
}  // namespace neardup::internal
