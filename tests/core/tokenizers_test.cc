// Grapheme, shingle and CJK tokenizers, and the by-name factory.

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/core/tokenizer.h"
#include "support/status_matchers.h"

namespace neardup {
namespace {

using Tokens = std::vector<std::string>;

Tokens TokensOf(const Tokenizer& t, std::string_view text) {
  Tokens out;
  t.ForEachToken(text, [&](std::string_view tok) { out.emplace_back(tok); });
  return out;
}

std::string Concat(const Tokens& tokens) {
  std::string s;
  for (const std::string& t : tokens) s += t;
  return s;
}

std::unique_ptr<Tokenizer> Named(std::string_view name) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> t = MakeTokenizer(name);
  EXPECT_OK(t);
  return t.ok() ? *std::move(t) : MakeWordTokenizer();
}

// --- grapheme-uax29 --------------------------------------------------------

Tokens Graphemes(std::string_view text) {
  return TokensOf(*MakeGraphemeTokenizer(), text);
}

TEST(GraphemeTokenizer, Name) {
  EXPECT_EQ(MakeGraphemeTokenizer()->Name(), "grapheme-uax29");
}

TEST(GraphemeTokenizer, EveryClusterIncludingWhitespace) {
  EXPECT_EQ(Graphemes("ab c"), (Tokens{"a", "b", " ", "c"}));
  EXPECT_EQ(Graphemes("  "), (Tokens{" ", " "}));
  EXPECT_EQ(Graphemes(""), Tokens{});
}

TEST(GraphemeTokenizer, CombiningMarkAndFlag) {
  EXPECT_EQ(Graphemes("a\u0301\U0001F1FA\U0001F1F8"),
            (Tokens{"a\u0301", "\U0001F1FA\U0001F1F8"}));
}

TEST(GraphemeTokenizer, RegionalIndicatorsPairUp) {
  const std::string us = "\U0001F1FA\U0001F1F8";
  const std::string fr = "\U0001F1EB\U0001F1F7";
  EXPECT_EQ(Graphemes(us + fr), (Tokens{us, fr}));
  EXPECT_EQ(Graphemes(us + "\U0001F1EB"), (Tokens{us, "\U0001F1EB"}));
  EXPECT_EQ(Graphemes("a" + us + "b"), (Tokens{"a", us, "b"}));
}

TEST(GraphemeTokenizer, EmojiSequences) {
  const std::string family =
      "\U0001F468\u200D\U0001F469\u200D\U0001F467\u200D\U0001F466";
  EXPECT_EQ(Graphemes(family), Tokens{family});
  EXPECT_EQ(Graphemes("x" + family + "y"), (Tokens{"x", family, "y"}));
  // Skin tone modifier and emoji presentation selector extend.
  EXPECT_EQ(Graphemes("\U0001F44D\U0001F3FD\u2764\uFE0F"),
            (Tokens{"\U0001F44D\U0001F3FD", "\u2764\uFE0F"}));
  // GB11 allows Extend between the pictograph and the ZWJ.
  EXPECT_EQ(Graphemes("\U0001F44D\U0001F3FD\u200D\U0001F525"),
            Tokens{"\U0001F44D\U0001F3FD\u200D\U0001F525"});
  // ...but a ZWJ after a letter does not join a following pictograph.
  EXPECT_EQ(Graphemes("a\u200D\U0001F44D"), (Tokens{"a\u200D", "\U0001F44D"}));
  // Nor does a second ZWJ.
  EXPECT_EQ(Graphemes("\U0001F44D\u200D\u200D\U0001F44D"),
            (Tokens{"\U0001F44D\u200D\u200D", "\U0001F44D"}));
}

TEST(GraphemeTokenizer, LineBreaksAndControls) {
  EXPECT_EQ(Graphemes("a\r\nb"), (Tokens{"a", "\r\n", "b"}));
  EXPECT_EQ(Graphemes("\n\r"), (Tokens{"\n", "\r"}));
  EXPECT_EQ(Graphemes("\r\n\u0301"), (Tokens{"\r\n", "\u0301"}));
  EXPECT_EQ(Graphemes("a\x01\u0301"), (Tokens{"a", "\x01", "\u0301"}));
}

TEST(GraphemeTokenizer, HangulSyllables) {
  // Conjoining jamo L V T form one syllable; L L V too.
  EXPECT_EQ(Graphemes("\u1100\u1161\u11A8"), Tokens{"\u1100\u1161\u11A8"});
  EXPECT_EQ(Graphemes("\u1100\u1100\u1161"), Tokens{"\u1100\u1100\u1161"});
  // Precomposed LV + T, LVT + T.
  EXPECT_EQ(Graphemes("\uAC00\u11A8"), Tokens{"\uAC00\u11A8"});
  EXPECT_EQ(Graphemes("\uAC01\u11A8"), Tokens{"\uAC01\u11A8"});
  // 한국어: three syllables.
  EXPECT_EQ(Graphemes("\uD55C\uAD6D\uC5B4"),
            (Tokens{"\uD55C", "\uAD6D", "\uC5B4"}));
  // T cannot start a syllable after a V-less L; LVT does not take a V.
  EXPECT_EQ(Graphemes("\u1100\u11A8"), (Tokens{"\u1100", "\u11A8"}));
  EXPECT_EQ(Graphemes("\uAC01\u1161"), (Tokens{"\uAC01", "\u1161"}));
}

TEST(GraphemeTokenizer, SpacingMarksAndPrepend) {
  // Devanagari कि: KA + vowel sign I (SpacingMark).
  EXPECT_EQ(Graphemes("\u0915\u093F"), Tokens{"\u0915\u093F"});
  // ARABIC NUMBER SIGN is Prepend.
  EXPECT_EQ(Graphemes("\u0600\u0661"), Tokens{"\u0600\u0661"});
}

TEST(GraphemeTokenizer, InvalidUtf8AndConcatenation) {
  EXPECT_EQ(Graphemes("\xFF\xFE"), (Tokens{"\xFF", "\xFE"}));
  EXPECT_EQ(Concat(Graphemes("a\xE2\x82")), "a\xE2\x82");
  std::mt19937 rng(4242);
  const std::vector<std::string> pieces = {
      "a",      " ",      "\r",         "\n",         "\u0301",  "\u200D",
      "\uFE0F", "\xFF",   "\U0001F44D", "\U0001F1FA", "\u1100",  "\u1161",
      "\u11A8", "\uAC00", "\u093F",     "\u0600",     "\xE2\x82"};
  for (int iter = 0; iter < 2000; ++iter) {
    std::string s;
    const int n = std::uniform_int_distribution<int>(0, 10)(rng);
    for (int i = 0; i < n; ++i) {
      s += pieces[std::uniform_int_distribution<size_t>(
          0, pieces.size() - 1)(rng)];
    }
    const Tokens g = Graphemes(s);
    ASSERT_EQ(Concat(g), s);
    for (const std::string& t : g) ASSERT_FALSE(t.empty());
  }
}

// --- shingle-k=K/<inner> ---------------------------------------------------

// Reference: collect the inner tokens, then join windows with one space.
Tokens ReferenceShingles(const Tokens& inner, size_t k) {
  Tokens out;
  if (k == 0 || inner.empty()) return out;
  const size_t windows = inner.size() >= k ? inner.size() - k + 1 : 1;
  const size_t width = std::min(k, inner.size());
  for (size_t w = 0; w < windows; ++w) {
    std::string s;
    for (size_t j = 0; j < width; ++j) {
      if (j > 0) s += ' ';
      s += inner[w + j];
    }
    out.push_back(s);
  }
  return out;
}

TEST(ShingleTokenizer, Name) {
  EXPECT_EQ(MakeShingleTokenizer(5, MakeWordTokenizer())->Name(),
            "shingle-k=5/word-uax29");
  EXPECT_EQ(
      MakeShingleTokenizer(2, MakeShingleTokenizer(3, MakeGraphemeTokenizer()))
          ->Name(),
      "shingle-k=2/shingle-k=3/grapheme-uax29");
}

TEST(ShingleTokenizer, FastPathSingleSpaces) {
  const auto s = MakeShingleTokenizer(3, MakeWordTokenizer());
  EXPECT_EQ(TokensOf(*s, "the quick brown fox"),
            (Tokens{"the quick brown", "quick brown fox"}));
}

TEST(ShingleTokenizer, CopyPathJoinsWithOneSpace) {
  const auto s = MakeShingleTokenizer(3, MakeWordTokenizer());
  const Tokens expected = {"the quick brown", "quick brown fox"};
  EXPECT_EQ(TokensOf(*s, "the  quick brown fox"), expected);
  EXPECT_EQ(TokensOf(*s, "the,quick\tbrown!!fox."), expected);
  EXPECT_EQ(TokensOf(*s, "  the quick\nbrown fox  "), expected);
  EXPECT_EQ(TokensOf(*s, "the quick-brown fox"), expected);
}

TEST(ShingleTokenizer, AdjacentTokensAreNotContiguous) {
  // Graphemes touch each other; a space between them is its own token.
  const auto s = MakeShingleTokenizer(2, MakeGraphemeTokenizer());
  EXPECT_EQ(TokensOf(*s, "abc"), (Tokens{"a b", "b c"}));
  EXPECT_EQ(TokensOf(*s, "a b"), (Tokens{"a  ", "  b"}));
}

TEST(ShingleTokenizer, FewerTokensThanK) {
  const auto s = MakeShingleTokenizer(5, MakeWordTokenizer());
  EXPECT_EQ(TokensOf(*s, "a b"), Tokens{"a b"});
  EXPECT_EQ(TokensOf(*s, "a,  b"), Tokens{"a b"});
  EXPECT_EQ(TokensOf(*s, "solo"), Tokens{"solo"});
  EXPECT_EQ(TokensOf(*s, "a b c d e"), Tokens{"a b c d e"});
  EXPECT_EQ(TokensOf(*s, ""), Tokens{});
  EXPECT_EQ(TokensOf(*s, " ,.; "), Tokens{});
}

TEST(ShingleTokenizer, KZeroAndKOne) {
  EXPECT_EQ(TokensOf(*MakeShingleTokenizer(0, MakeWordTokenizer()), "a b c"),
            Tokens{});
  EXPECT_EQ(TokensOf(*MakeShingleTokenizer(1, MakeWordTokenizer()), "a, b  c"),
            (Tokens{"a", "b", "c"}));
}

TEST(ShingleTokenizer, NestedShingles) {
  const auto s =
      MakeShingleTokenizer(2, MakeShingleTokenizer(2, MakeWordTokenizer()));
  const Tokens expected = {"a b b c", "b c c d"};
  EXPECT_EQ(TokensOf(*s, "a b c d"), expected);     // inner fast path
  EXPECT_EQ(TokensOf(*s, "a, b; c! d"), expected);  // inner copy path
  EXPECT_EQ(TokensOf(*s, "a b, c d"), expected);    // mixed
  EXPECT_EQ(TokensOf(*s, "a b"), Tokens{"a b"});
  EXPECT_EQ(TokensOf(*s, "a b c"), Tokens{"a b b c"});

  const auto deep = MakeShingleTokenizer(
      3, MakeShingleTokenizer(1, MakeShingleTokenizer(2, MakeWordTokenizer())));
  EXPECT_EQ(TokensOf(*deep, "w x  y z"), Tokens{"w x x y y z"});
}

TEST(ShingleTokenizer, MatchesReferenceOnRandomText) {
  std::mt19937 rng(31337);
  const std::vector<std::string> words = {
      "a", "bb", "ccc", "don't", "3.14", "x_y", "\u00E9t\u00E9", "\u4E2D"};
  const std::vector<std::string> seps = {" ",  " ", " ",  "  ", ", ",
                                         "\t", "-", "\n", "!"};
  for (int iter = 0; iter < 400; ++iter) {
    std::string text;
    const int n = std::uniform_int_distribution<int>(0, 14)(rng);
    for (int i = 0; i < n; ++i) {
      if (i > 0 || std::uniform_int_distribution<int>(0, 3)(rng) == 0) {
        text += seps[std::uniform_int_distribution<size_t>(
            0, seps.size() - 1)(rng)];
      }
      text += words[std::uniform_int_distribution<size_t>(
          0, words.size() - 1)(rng)];
    }
    const Tokens inner = TokensOf(*MakeWordTokenizer(), text);
    for (int k = 0; k <= 6; ++k) {
      const Tokens expected = ReferenceShingles(inner, k);
      ASSERT_EQ(TokensOf(*MakeShingleTokenizer(k, MakeWordTokenizer()), text),
                expected)
          << "k=" << k << " text=\"" << text << '"';
      // Nested: shingles of 2-shingles.
      ASSERT_EQ(TokensOf(*MakeShingleTokenizer(
                             k, MakeShingleTokenizer(2, MakeWordTokenizer())),
                         text),
                ReferenceShingles(ReferenceShingles(inner, 2), k))
          << "nested k=" << k << " text=\"" << text << '"';
    }
  }
}

TEST(ShingleTokenizer, LargeK) {
  std::string text;
  Tokens inner;
  for (int i = 0; i < 100; ++i) {
    inner.push_back("w" + std::to_string(i));
    text += inner.back() + (i % 7 == 0 ? ",  " : " ");
  }
  EXPECT_EQ(
      TokensOf(*MakeShingleTokenizer(kMaxShingleK, MakeWordTokenizer()), text),
      ReferenceShingles(inner, kMaxShingleK));
}

// --- cjk-icu ---------------------------------------------------------------

TEST(CjkTokenizer, SegmentsChineseIntoWords) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> t = MakeCjkTokenizer();
  ASSERT_OK(t);
  EXPECT_EQ((*t)->Name(), "cjk-icu");
  const std::string text = "\u6211\u7231\u5317\u4EAC\u5929\u5B89\u95E8";
  const Tokens tokens = TokensOf(**t, text);
  EXPECT_GT(tokens.size(), 1u);
  EXPECT_LT(tokens.size(), 7u);  // dictionary words, not one per character
  EXPECT_EQ(Concat(tokens), text);
}

TEST(CjkTokenizer, KeepsLatinWordsAndDropsPunctuation) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> t = MakeCjkTokenizer();
  ASSERT_OK(t);
  EXPECT_EQ(TokensOf(**t, "hello, world! don't"),
            (Tokens{"hello", "world", "don't"}));
  const std::string zh = "\u5317\u4EAC";
  const Tokens mixed = TokensOf(**t, "hello " + zh + "\u3002 world");
  EXPECT_EQ(mixed.front(), "hello");
  EXPECT_EQ(mixed.back(), "world");
  EXPECT_EQ(Concat(mixed), "hello" + zh + "world");
  EXPECT_EQ(TokensOf(**t, ""), Tokens{});
  EXPECT_EQ(TokensOf(**t, " \u3002, "), Tokens{});
}

TEST(CjkTokenizer, InvalidUtf8DoesNotCrash) {
  absl::StatusOr<std::unique_ptr<Tokenizer>> t = MakeCjkTokenizer();
  ASSERT_OK(t);
  const std::string text = "ab\xFF\u5317\u4EAC\xE2\x82";
  (*t)->ForEachToken(text, [&](std::string_view tok) {
    EXPECT_GE(tok.data(), text.data());
    EXPECT_LE(tok.data() + tok.size(), text.data() + text.size());
  });
}

TEST(CjkTokenizer, SinkMayTokenizeAgain) {
  // Using the tokenizer from inside its own sink must not end or derail the
  // outer pass.
  absl::StatusOr<std::unique_ptr<Tokenizer>> t = MakeCjkTokenizer();
  ASSERT_OK(t);
  Tokens outer;
  (*t)->ForEachToken("alpha beta gamma", [&](std::string_view tok) {
    outer.emplace_back(tok);
    EXPECT_EQ(TokensOf(**t, "x y"), (Tokens{"x", "y"}));
  });
  EXPECT_EQ(outer, (Tokens{"alpha", "beta", "gamma"}));
}

// --- MakeTokenizer ----------------------------------------------------------

TEST(MakeTokenizer, RoundTripsNames) {
  for (std::string_view name :
       {"word-uax29", "grapheme-uax29", "cjk-icu", "shingle-k=5/word-uax29",
        "shingle-k=0/word-uax29", "shingle-k=1/grapheme-uax29",
        "shingle-k=64/word-uax29", "shingle-k=3/cjk-icu",
        "shingle-k=2/shingle-k=3/word-uax29"}) {
    EXPECT_EQ(Named(name)->Name(), name);
  }
}

TEST(MakeTokenizer, BuildsWorkingTokenizers) {
  EXPECT_EQ(TokensOf(*Named("shingle-k=2/word-uax29"), "a b c"),
            (Tokens{"a b", "b c"}));
  EXPECT_EQ(TokensOf(*Named("grapheme-uax29"), "ab"), (Tokens{"a", "b"}));
  EXPECT_EQ(TokensOf(*Named("word-uax29"), "a, b"), (Tokens{"a", "b"}));
}

TEST(MakeTokenizer, RejectsBadNames) {
  for (std::string_view bad :
       {"", "word", "WORD-UAX29", "word-uax29 ", "cjk-jieba", "shingle",
        "shingle-k=", "shingle-k=5", "shingle-k=5/", "shingle-k=/word-uax29",
        "shingle-k=x/word-uax29", "shingle-k=-1/word-uax29",
        "shingle-k=65/word-uax29", "shingle-k=99999999999/word-uax29",
        "shingle-k=5/bogus", "shingle-k=5/word-uax29/",
        "shingle-k=2/shingle-k=65/word-uax29", "shingle-k=5word-uax29"}) {
    absl::StatusOr<std::unique_ptr<Tokenizer>> t = MakeTokenizer(bad);
    EXPECT_FALSE(t.ok()) << '"' << bad << '"';
    if (!t.ok()) {
      EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    }
  }
}

// --- CollectTokenViews -----------------------------------------------------

TEST(CollectTokenViews, WordTokenizerAsciiAndUnicodeMatchForEachToken) {
  const auto words = MakeWordTokenizer();
  for (std::string_view text : {"plain ascii, words: a.b 1,000",
                                "caf\u00E9 na\u00EFve \u00FCber", ""}) {
    std::vector<std::string_view> views = {"before"};
    ASSERT_TRUE(words->CollectTokenViews(text, &views)) << text;
    Tokens expected = {"before"};
    for (const std::string& t : TokensOf(*words, text)) expected.push_back(t);
    EXPECT_EQ(Tokens(views.begin(), views.end()), expected) << text;
  }
}

TEST(CollectTokenViews, ShingleTokensAreNotViews) {
  // A shingle whose tokens are not separated by exactly one space (here
  // "one, two") is joined in a buffer, so it is not a view: the call
  // refuses and leaves the vector as it was.
  const auto shingles = MakeShingleTokenizer(2, MakeWordTokenizer());
  std::vector<std::string_view> views = {"kept"};
  EXPECT_FALSE(shingles->CollectTokenViews("one, two three", &views));
  EXPECT_EQ(views, std::vector<std::string_view>{"kept"});
}

}  // namespace
}  // namespace neardup
