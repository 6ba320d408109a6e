#include "neardup/core/explain.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "support/status_matchers.h"

namespace neardup {
namespace {

using ::testing::HasSubstr;

const Canonicalizer& Default() {
  static const Canonicalizer* canonicalizer =
      new Canonicalizer(Canonicalizer::Create().value());
  return *canonicalizer;
}

TEST(Explain, FindsTheSharedPassageInBothTexts) {
  const std::string a =
      "Minutes: the quick brown fox jumps over the lazy dog. End.";
  const std::string b =
      "Yesterday THE QUICK BROWN FOX jumps over the lazy cat, they said.";
  ExplainOptions options;
  options.k = 3;
  options.w = 1;
  ASSERT_OK_AND_ASSIGN(const Explanation explained,
                       ExplainSharedPassages(a, b, Default(), options));
  ASSERT_EQ(explained.passages.size(), 1u);
  const SharedPassage& p = explained.passages[0];
  EXPECT_EQ(a.substr(p.a_begin, p.a_end - p.a_begin),
            "the quick brown fox jumps over the lazy");
  EXPECT_EQ(b.substr(p.b_begin, p.b_end - p.b_begin),
            "THE QUICK BROWN FOX jumps over the lazy");
  EXPECT_EQ(p.words, 8u);
  EXPECT_FALSE(explained.truncated);
}

// The robust profile reads a word of Greek capitals next to Latin words as
// Latin (fold_look_alikes); explain, which canonicalizes word by word, must
// read it the same way.
TEST(Explain, LookAlikeWordsNextToLatinWordsAreSharedToo) {
  const Canonicalizer robust =
      Canonicalizer::Create(*CanonicalizerProfile("robust")).value();
  const std::string a = "so the quick brown fox jumps over the lazy dog";
  // ΤΗΕ (Greek) for THE, and Cyrillic О in BRОWN.
  const std::string b =
      "\u03A4\u0397\u0395 quick BR\u041EWN fox jumps over the lazy dog";
  ExplainOptions options;
  options.k = 3;
  options.w = 1;
  ASSERT_OK_AND_ASSIGN(const Explanation explained,
                       ExplainSharedPassages(a, b, robust, options));
  ASSERT_EQ(explained.passages.size(), 1u);
  const SharedPassage& p = explained.passages[0];
  EXPECT_EQ(a.substr(p.a_begin, p.a_end - p.a_begin),
            "the quick brown fox jumps over the lazy dog");
  EXPECT_EQ(b.substr(p.b_begin, p.b_end - p.b_begin), b);
  EXPECT_EQ(p.words, 9u);
}

TEST(Explain, NothingSharedNothingShort) {
  ASSERT_OK_AND_ASSIGN(
      const Explanation none,
      ExplainSharedPassages("one two three four five six",
                            "seven eight nine ten eleven twelve", Default()));
  EXPECT_TRUE(none.passages.empty());
  ASSERT_OK_AND_ASSIGN(const Explanation short_text,
                       ExplainSharedPassages("one two", "one two", Default()));
  EXPECT_TRUE(short_text.passages.empty());  // fewer than k words
  ExplainOptions bad;
  bad.k = 0;
  EXPECT_THAT(
      ExplainSharedPassages("a", "b", Default(), bad).status().message(),
      HasSubstr("k must be"));
  bad = {};
  bad.max_passages = 0;
  EXPECT_FALSE(ExplainSharedPassages("a", "b", Default(), bad).ok());
}

// Lowercase words joined by single spaces, with each word's byte range.
struct Text {
  std::vector<std::string> words;
  std::string bytes;
  std::vector<size_t> begin;

  explicit Text(std::vector<std::string> w) : words(std::move(w)) {
    for (const std::string& word : words) {
      if (!bytes.empty()) bytes.push_back(' ');
      begin.push_back(bytes.size());
      bytes += word;
    }
  }
  size_t End(size_t word) const { return begin[word] + words[word].size(); }
};

// Random edits of random texts: every passage is a maximal run of equal
// words, and every shared run of at least w + k - 1 words (found by a
// naive scan of all diagonals) lies inside one.
TEST(Explain, AgreesWithANaiveScanOnRandomEdits) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 60; ++trial) {
    std::vector<std::string> base;
    const int n = 40 + static_cast<int>(rng() % 200);
    for (int i = 0; i < n; ++i) base.push_back(absl::StrCat("w", rng() % 300));
    std::vector<std::string> edited;
    for (const std::string& word : base) {
      const int r = static_cast<int>(rng() % 100);
      if (r < 4) continue;  // delete
      if (r < 8)
        edited.push_back(absl::StrCat("x", rng()));  // replace
      else
        edited.push_back(word);
      if (r >= 96) edited.push_back(absl::StrCat("y", rng()));  // insert
    }
    if (trial % 3 == 0 && edited.size() > 30) {  // move a block
      std::rotate(edited.begin(), edited.begin() + edited.size() / 3,
                  edited.end());
    }
    const Text a(base), b(edited);
    ExplainOptions options;
    options.k = 2 + static_cast<int>(rng() % 4);
    options.w = 1 + static_cast<int>(rng() % 5);
    ASSERT_OK_AND_ASSIGN(
        const Explanation explained,
        ExplainSharedPassages(a.bytes, b.bytes, Default(), options));
    SCOPED_TRACE(::testing::Message() << "trial " << trial << " k=" << options.k
                                      << " w=" << options.w);
    // Word index of a byte offset.
    auto word_at = [](const Text& t, size_t byte) {
      return static_cast<size_t>(
          std::find(t.begin.begin(), t.begin.end(), byte) - t.begin.begin());
    };
    struct Span {
      size_t i, j, length;
    };
    std::vector<Span> found;
    for (const SharedPassage& p : explained.passages) {
      const size_t i = word_at(a, p.a_begin), j = word_at(b, p.b_begin);
      ASSERT_LT(i, a.words.size());
      ASSERT_LT(j, b.words.size());
      ASSERT_EQ(a.End(i + p.words - 1), p.a_end);
      ASSERT_EQ(b.End(j + p.words - 1), p.b_end);
      for (size_t t = 0; t < p.words; ++t) {
        ASSERT_EQ(a.words[i + t], b.words[j + t]);
      }
      const bool left_stops =
          i == 0 || j == 0 || a.words[i - 1] != b.words[j - 1];
      const size_t e = i + p.words, f = j + p.words;
      const bool right_stops = e == a.words.size() || f == b.words.size() ||
                               a.words[e] != b.words[f];
      ASSERT_TRUE(left_stops && right_stops) << "not maximal at word " << i;
      found.push_back({i, j, p.words});
    }
    const size_t guarantee = static_cast<size_t>(options.w + options.k - 1);
    for (size_t i = 0; i < a.words.size(); ++i) {
      for (size_t j = 0; j < b.words.size(); ++j) {
        if (i > 0 && j > 0 && a.words[i - 1] == b.words[j - 1]) continue;
        size_t length = 0;
        while (i + length < a.words.size() && j + length < b.words.size() &&
               a.words[i + length] == b.words[j + length]) {
          ++length;
        }
        if (length < guarantee) continue;
        const bool covered =
            std::any_of(found.begin(), found.end(), [&](const Span& s) {
              return s.i == i && s.j == j && s.length == length;
            });
        ASSERT_TRUE(covered) << "missed a run of " << length << " words at a["
                             << i << "], b[" << j << "]";
      }
    }
  }
}

TEST(Explain, BoundsAreReported) {
  // Ten separate shared passages; ask for three.
  std::string a, b;
  for (int i = 0; i < 10; ++i) {
    const std::string shared =
        "alpha" + std::to_string(i) + " beta gamma delta epsilon zeta eta" +
        std::string(i, '!') + " theta" + std::to_string(i);
    a += shared + " unique" + std::to_string(i) + "a ";
    b += "other" + std::to_string(i) + "b " + shared + " ";
  }
  ExplainOptions options;
  options.max_passages = 3;
  ASSERT_OK_AND_ASSIGN(const Explanation capped,
                       ExplainSharedPassages(a, b, Default(), options));
  EXPECT_EQ(capped.passages.size(), 3u);
  EXPECT_TRUE(capped.truncated);
  options = {};
  options.max_text_bytes = 40;
  ASSERT_OK_AND_ASSIGN(const Explanation cut,
                       ExplainSharedPassages(a, b, Default(), options));
  EXPECT_TRUE(cut.truncated);
  for (const SharedPassage& p : cut.passages) EXPECT_LE(p.a_end, 40u);
}

}  // namespace
}  // namespace neardup
