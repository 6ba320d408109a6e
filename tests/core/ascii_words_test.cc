// The bit-mask ASCII word scanner: its AVX2 and portable classifiers agree,
// and its words equal the UAX #29 rule engine's, across 64-byte chunk edges.

#include "neardup/core/internal/ascii_words.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/core/internal/minhash_kernel.h"  // CpuHasAvx2
#include "neardup/core/internal/word_segmenter.h"

namespace neardup::internal {
namespace {

using Tokens = std::vector<std::string>;

Tokens General(std::string_view text) {
  Tokens out;
  ForEachWordGeneral(text, [&](std::string_view t) { out.emplace_back(t); });
  return out;
}

Tokens Appended(std::string_view text) {
  std::vector<std::string_view> views;
  AppendAsciiWords(text, &views);
  Tokens out(views.begin(), views.end());
  // The callback form yields the same words.
  Tokens via_sink;
  ForEachAsciiWord(text, [&](std::string_view t) { via_sink.emplace_back(t); });
  EXPECT_EQ(out, via_sink);
  return out;
}

bool SameMasks(const AsciiClassMasks& a, const AsciiClassMasks& b) {
  return a.letter == b.letter && a.digit == b.digit &&
         a.underscore == b.underscore && a.mid_letter == b.mid_letter &&
         a.mid_num == b.mid_num;
}

TEST(AsciiWords, DispatchedClassifierMatchesPortable) {
  if (!CpuHasAvx2()) GTEST_SKIP() << "no AVX2: both take the portable path";
  std::mt19937 rng(5);
  for (int iter = 0; iter < 5000; ++iter) {
    const size_t len = std::uniform_int_distribution<size_t>(0, 64)(rng);
    std::string s(64, '\0');
    for (char& c : s) {
      c = static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng));
    }
    ASSERT_TRUE(SameMasks(ClassifyAsciiChunk(s.data(), len),
                          ClassifyAsciiChunkScalar(s.data(), len)))
        << "iteration " << iter;
  }
}

TEST(AsciiWords, PortableClassifierBits) {
  const std::string s = "aZ9_.':,;- \x80";
  const AsciiClassMasks m = ClassifyAsciiChunkScalar(s.data(), s.size());
  EXPECT_EQ(m.letter, 0b11u);
  EXPECT_EQ(m.digit, 0b100u);
  EXPECT_EQ(m.underscore, 0b1000u);
  EXPECT_EQ(m.mid_letter, 0b1110000u);  // . ' :
  EXPECT_EQ(m.mid_num, 0b110110000u);   // . ' , ;
}

TEST(AsciiWords, EmptyAndSeparatorsOnly) {
  EXPECT_EQ(Appended(""), Tokens{});
  EXPECT_EQ(Appended(std::string(200, ' ')), Tokens{});
  EXPECT_EQ(Appended(std::string(130, '_')), Tokens{});
}

TEST(AsciiWords, JoinsAndRunsAcrossChunkEdges) {
  // Every pattern placed so that it straddles the 64- and 128-byte edges.
  const std::string_view patterns[] = {
      "a.b", "1,2", "a'b",   "1;2",      "a:b",  "1:2",   "a;b",  "abc",
      "_a_", "__",  "x.y.z", "12.34.56", "a_.b", "don't", "a..b", "a b"};
  for (std::string_view pattern : patterns) {
    for (size_t lead = 50; lead <= 130; ++lead) {
      const std::string s = std::string(lead, ' ') + std::string(pattern);
      ASSERT_EQ(Appended(s), General(s)) << "lead " << lead << " " << pattern;
      const std::string t = s + " tail";
      ASSERT_EQ(Appended(t), General(t)) << "lead " << lead << " " << pattern;
    }
  }
  // A word that fills a whole chunk, and one that ends exactly at the end.
  const std::string full(64, 'w');
  EXPECT_EQ(Appended(full), Tokens{full});
  EXPECT_EQ(Appended(full + full), Tokens{full + full});
  EXPECT_EQ(Appended(" " + full + full), Tokens{full + full});
}

TEST(AsciiWords, EqualsGeneralOnLongRandomTexts) {
  std::mt19937 rng(2026);
  constexpr std::string_view kAlphabet = "ab1_.',:; \n\r\t-\"aab";
  for (int iter = 0; iter < 3000; ++iter) {
    std::string s(std::uniform_int_distribution<int>(0, 300)(rng), ' ');
    for (char& c : s) {
      c = kAlphabet[std::uniform_int_distribution<size_t>(
          0, kAlphabet.size() - 1)(rng)];
    }
    ASSERT_EQ(Appended(s), General(s)) << '"' << s << '"';
  }
}

TEST(AsciiWords, AppendsAfterExistingViews) {
  std::vector<std::string_view> views = {"kept"};
  AppendAsciiWords("one two", &views);
  EXPECT_EQ(views, (std::vector<std::string_view>{"kept", "one", "two"}));
}

}  // namespace
}  // namespace neardup::internal
