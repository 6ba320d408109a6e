// The two steps of CanonicalizerOptions::fold_look_alikes on their own.

#include "neardup/core/internal/look_alikes.h"

#include <gtest/gtest.h>

#include <string>

namespace neardup::internal {
namespace {

// What AppendLatinizedMixedWords makes of `text`, checking that it appends
// to what the buffer held and appends nothing when it returns false.
std::string Latinized(const std::string& text, bool* changed = nullptr) {
  std::string out = "prefix:";
  const bool did = AppendLatinizedMixedWords(text, &out);
  if (changed != nullptr) *changed = did;
  EXPECT_EQ(out.substr(0, 7), "prefix:");
  if (!did) {
    EXPECT_EQ(out, "prefix:") << text;
    return text;
  }
  return out.substr(7);
}

TEST(LatinizedMixedWords, TextWithoutLatinKeepsItsLetters) {
  // Greek and Cyrillic words, look-alike capitals among them, and digits.
  for (const char* text :
       {"\u0392\u0397\u03A4\u0391 \u03BB\u03CC\u03B3\u03BF\u03C2 "
        "\u041C\u0410\u041C\u0410 42 \u043C\u0438\u0440",
        "\u0392\u0397\u03A4\u0391", "\u0430\u0435\u043E"}) {
    bool changed = true;
    EXPECT_EQ(Latinized(text, &changed), text);
    EXPECT_FALSE(changed) << text;
  }
}

TEST(LatinizedMixedWords, LookAlikesInsideLatinWordsChange) {
  bool changed = false;
  EXPECT_EQ(Latinized("\u03BB\u03CC\u03B3\u03BF\u03C2 w\u0392\u0399d "
                      "\u043C\u0438\u0440",
                      &changed),
            "\u03BB\u03CC\u03B3\u03BF\u03C2 wBld \u043C\u0438\u0440");
  EXPECT_TRUE(changed);
  // Letters without a Latin prototype (Greek λ, Cyrillic ж) stay.
  EXPECT_EQ(Latinized("w\u03BB\u0436\u0392"), "w\u03BB\u0436B");
}

TEST(LatinizedMixedWords, LookAlikeWordsNextToLatinWordsChange) {
  // ΤΗΕ ΙΝ (Greek), ОϜ (Cyrillic О, Greek Ϝ): a run on either side.
  EXPECT_EQ(Latinized("\u03A4\u0397\u0395 \u0399\u039D, ok"), "THE lN, ok");
  EXPECT_EQ(Latinized("ok \u041E\u03DC"), "ok OF");
  // A Latin word of non-ASCII letters only (ø), or of supplementary ones.
  EXPECT_EQ(Latinized("\u00F8 \u03A4\u0397\u0395"), "\u00F8 THE");
  EXPECT_EQ(Latinized("\U0001DF00 \u03A4\u0397\u0395"), "\U0001DF00 THE");
  // A run whose neighbours are not Latin stays, whatever lies beyond them.
  const std::string far =
      "ok \u043C\u0438\u0440 \u0399\u039D \u043C\u0438\u0440 ok";
  bool changed = true;
  EXPECT_EQ(Latinized(far, &changed), far);
  EXPECT_FALSE(changed);
}

TEST(LatinizedMixedWords, WordsEndAtNonLetters) {
  // Β's word has no Latin letter and no Latin neighbour: after λ (no Latin
  // prototype) in its own word, or in one word with λ.
  for (const char* text :
       {"\u03BB-\u0392", "\u03BB1\u0392", "\u03BB \u0392", "\u03BB\u0392"}) {
    bool changed = true;
    EXPECT_EQ(Latinized(text, &changed), text);
    EXPECT_FALSE(changed) << text;
  }
  EXPECT_EQ(Latinized("w-\u0392"), "w-B");
  // Combining marks and non-ASCII Latin letters are part of the word.
  EXPECT_EQ(Latinized("e\u0301\u0392"), "e\u0301B");
  EXPECT_EQ(Latinized("\u00E9\u0392"), "\u00E9B");
  EXPECT_EQ(Latinized("\u0392\u0301x"), "B\u0301x");
}

// The price of reading look-alike words next to Latin ones as Latin: there a
// Greek word's capitals read by their shapes (Ν as N), its small letters by
// theirs (ν as v), so the two cases part; alone they stay one word.
TEST(LatinizedMixedWords, NextToLatinCapitalsAndSmallLettersPart) {
  EXPECT_EQ(Latinized("\u039D\u0391\u0399 ok"), "NAl ok");
  EXPECT_EQ(Latinized("\u03BD\u03B1\u03B9 ok"), "vai ok");
  bool changed = true;
  EXPECT_EQ(Latinized("\u039D\u0391\u0399", &changed), "\u039D\u0391\u0399");
  EXPECT_FALSE(changed);
}

TEST(LatinizedMixedWords, MathematicalGreekCapitalsToo) {
  // 𝚩 (U+1D6A9, Common script): NFKC would make it Greek Β first.
  EXPECT_EQ(Latinized("w\U0001D6A9rd"), "wBrd");
}

TEST(ForEachLatinizedWord, WordsInOrderAndLongRunsInConstantSpace) {
  // A run of 100,000 look-alike words decided by the Latin word after it.
  std::string text;
  for (int i = 0; i < 100000; ++i) text += "\u0392\u0395 ";
  text += "ok";
  size_t words = 0, last_end = 0;
  bool ordered = true;
  ForEachLatinizedWord(text, [&](size_t begin, size_t end) {
    ordered = ordered && begin >= last_end && end > begin;
    last_end = end;
    ++words;
  });
  EXPECT_TRUE(ordered);
  EXPECT_EQ(words, 100000u);
}

TEST(FoldIToL, ReplacesEveryI) {
  std::string text = "Illinois in italics \u0131";
  FoldIToL(&text);
  EXPECT_EQ(text, "Illlnols ln ltallcs \u0131");
}

}  // namespace
}  // namespace neardup::internal
