// "word-uax29": UAX #29 word segments that contain a letter or digit.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/core/internal/word_segmenter.h"
#include "neardup/core/tokenizer.h"

namespace neardup {
namespace {

using Tokens = std::vector<std::string>;

Tokens Words(std::string_view text) {
  Tokens out;
  MakeWordTokenizer()->ForEachToken(
      text, [&](std::string_view t) { out.emplace_back(t); });
  return out;
}

Tokens General(std::string_view text) {
  Tokens out;
  internal::ForEachWordGeneral(
      text, [&](std::string_view t) { out.emplace_back(t); });
  return out;
}

Tokens Ascii(std::string_view text) {
  Tokens out;
  internal::ForEachWordAscii(text,
                             [&](std::string_view t) { out.emplace_back(t); });
  return out;
}

TEST(WordTokenizer, Name) {
  EXPECT_EQ(MakeWordTokenizer()->Name(), "word-uax29");
}

TEST(WordTokenizer, DropsWhitespaceAndPunctuation) {
  EXPECT_EQ(Words("the quick, brown fox!"),
            (Tokens{"the", "quick", "brown", "fox"}));
  EXPECT_EQ(Words("  \t\r\n...?!  "), Tokens{});
  EXPECT_EQ(Words(""), Tokens{});
  EXPECT_EQ(Words("a"), Tokens{"a"});
}

TEST(WordTokenizer, MidLetterAndMidNumRules) {
  EXPECT_EQ(Words("don't go!"), (Tokens{"don't", "go"}));
  EXPECT_EQ(Words("pi is 3.14"), (Tokens{"pi", "is", "3.14"}));
  EXPECT_EQ(Words("1,000 people"), (Tokens{"1,000", "people"}));
  EXPECT_EQ(Words("see example.com."), (Tokens{"see", "example.com"}));
  EXPECT_EQ(Words("64-bit"), (Tokens{"64", "bit"}));
  EXPECT_EQ(Words("U.S.A."), Tokens{"U.S.A"});
  EXPECT_EQ(Words("a:b"), Tokens{"a:b"});       // colon is MidLetter
  EXPECT_EQ(Words("1:2"), (Tokens{"1", "2"}));  // ...but not MidNum
  EXPECT_EQ(Words("1;2"), Tokens{"1;2"});       // semicolon is MidNum
  EXPECT_EQ(Words("a;b"), (Tokens{"a", "b"}));
  EXPECT_EQ(Words("a.1"), (Tokens{"a", "1"}));  // no letter/digit mixing
  EXPECT_EQ(Words("a1.2"), Tokens{"a1.2"});
  EXPECT_EQ(Words("a..b"), (Tokens{"a", "b"}));
  EXPECT_EQ(Words("'tis ok'"), (Tokens{"tis", "ok"}));
}

TEST(WordTokenizer, ExtendNumLetJoins) {
  EXPECT_EQ(Words("snake_case_name"), Tokens{"snake_case_name"});
  EXPECT_EQ(Words("_x_ __ 1_a"), (Tokens{"_x_", "1_a"}));
  EXPECT_EQ(Words("___"), Tokens{});  // no letter or digit
}

TEST(WordTokenizer, LatinWithDiacritics) {
  EXPECT_EQ(Words("na\u00EFve caf\u00E9"), (Tokens{"na\u00EFve", "caf\u00E9"}));
  // Combining marks stay with their base (WB4).
  EXPECT_EQ(Words("e\u0301te d\u00E9j\u00E0"),
            (Tokens{"e\u0301te", "d\u00E9j\u00E0"}));
  // A soft hyphen (Format) does not split a word.
  EXPECT_EQ(Words("co\u00ADop"), Tokens{"co\u00ADop"});
  // Typographic apostrophe (U+2019, MidNumLet).
  EXPECT_EQ(Words("don\u2019t"), Tokens{"don\u2019t"});
  EXPECT_EQ(Words("\u0411\u043E\u0440\u0438\u0441 \u0438"),
            (Tokens{"\u0411\u043E\u0440\u0438\u0441", "\u0438"}));
}

TEST(WordTokenizer, MarksAfterMidLetterAreIgnored) {
  // WB4 makes "a.<mark>b" behave like "a.b".
  EXPECT_EQ(Words("a.\u0301b"), Tokens{"a.\u0301b"});
  EXPECT_EQ(Words("a\u0301.b"), Tokens{"a\u0301.b"});
  EXPECT_EQ(Words("1\u0301,2"), Tokens{"1\u0301,2"});
}

TEST(WordTokenizer, HanIdeographsAreSingleTokens) {
  EXPECT_EQ(Words("\u4E2D\u6587\u5B57"),
            (Tokens{"\u4E2D", "\u6587", "\u5B57"}));
  EXPECT_EQ(Words("\u4E2D\u6587abc"), (Tokens{"\u4E2D", "\u6587", "abc"}));
  // Hiragana is not ALetter either: one token per character.
  EXPECT_EQ(Words("\u3072\u3089"), (Tokens{"\u3072", "\u3089"}));
}

TEST(WordTokenizer, KatakanaRunIsOneToken) {
  // コーヒー (the long-vowel mark is Katakana too).
  EXPECT_EQ(Words("\u30B3\u30FC\u30D2\u30FC"),
            Tokens{"\u30B3\u30FC\u30D2\u30FC"});
  // Halfwidth ｶﾀｶﾅ.
  EXPECT_EQ(Words("\uFF76\uFF80\uFF76\uFF85 x"),
            (Tokens{"\uFF76\uFF80\uFF76\uFF85", "x"}));
  // Katakana and Han split.
  EXPECT_EQ(Words("\u30C6\u30B9\u30C8\u4E2D"),
            (Tokens{"\u30C6\u30B9\u30C8", "\u4E2D"}));
}

TEST(WordTokenizer, HebrewQuotes) {
  // Gershayim (U+05F4, MidLetter) inside an acronym: צה״ל.
  EXPECT_EQ(Words("\u05E6\u05D4\u05F4\u05DC"),
            Tokens{"\u05E6\u05D4\u05F4\u05DC"});
  // ASCII double quote between Hebrew letters (WB7b/7c): צה"ל.
  EXPECT_EQ(Words("\u05E6\u05D4\"\u05DC"), Tokens{"\u05E6\u05D4\"\u05DC"});
  // ...but not between Latin letters.
  EXPECT_EQ(Words("ab\"c"), (Tokens{"ab", "c"}));
  // Geresh-like apostrophe after a Hebrew letter stays attached (WB7a).
  EXPECT_EQ(Words("\u05D2' x"), (Tokens{"\u05D2'", "x"}));
  EXPECT_EQ(Words("g' x"), (Tokens{"g", "x"}));
}

TEST(WordTokenizer, EmojiAreNotWords) {
  const std::string family = "\U0001F468\u200D\U0001F469\u200D\U0001F467";
  EXPECT_EQ(Words("hi " + family + " there"), (Tokens{"hi", "there"}));
  EXPECT_EQ(Words("hi\U0001F44Dthere"), (Tokens{"hi", "there"}));
  EXPECT_EQ(Words("\U0001F1FA\U0001F1F8 flag"), Tokens{"flag"});
  // WB4 then WB3c: a ZWJ glued to a letter carries a following pictograph.
  EXPECT_EQ(Words("a\u200D\U0001F44D b"), (Tokens{"a\u200D\U0001F44D", "b"}));
}

TEST(WordTokenizer, NumbersInOtherScripts) {
  EXPECT_EQ(Words("\uFF11\uFF12\uFF13"),
            Tokens{"\uFF11\uFF12\uFF13"});  // １２３
  EXPECT_EQ(Words("\u0661\u0662 \u0663"),
            (Tokens{"\u0661\u0662", "\u0663"}));  // Arabic-Indic digits
  EXPECT_EQ(Words("\u2460 \u00BD"), (Tokens{"\u2460", "\u00BD"}));  // No
}

TEST(WordTokenizer, LineBreaksAlwaysSplit) {
  EXPECT_EQ(Words("a\r\nb\nc\rd\u2028e\u0085f"),
            (Tokens{"a", "b", "c", "d", "e", "f"}));
  // A mark after a newline does not attach backwards across it.
  EXPECT_EQ(Words("a\n\u0301b"), (Tokens{"a", "b"}));
}

TEST(WordTokenizer, InvalidUtf8DoesNotCrash) {
  EXPECT_EQ(Words("ab\xFF"
                  "cd"),
            (Tokens{"ab", "cd"}));
  EXPECT_EQ(Words("ab\xE2\x82"), Tokens{"ab"});
  EXPECT_EQ(Words("\xC3"), Tokens{});
  EXPECT_EQ(Words("\xED\xA0\x80x"), Tokens{"x"});
  EXPECT_EQ(Words("\xF0\x9F\x98"), Tokens{});
  // Every token is a view into the input, whatever the bytes.
  std::mt19937 rng(99);
  for (int iter = 0; iter < 2000; ++iter) {
    std::string s(std::uniform_int_distribution<int>(0, 16)(rng), '\0');
    for (char& c : s) {
      c = static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng));
    }
    size_t last_end = 0;
    MakeWordTokenizer()->ForEachToken(s, [&](std::string_view t) {
      ASSERT_FALSE(t.empty());
      ASSERT_GE(t.data(), s.data() + last_end);
      ASSERT_LE(t.data() + t.size(), s.data() + s.size());
      last_end = t.data() + t.size() - s.data();
    });
  }
}

TEST(WordTokenizer, SinkMayTokenizeAgain) {
  // Nothing forbids using a tokenizer from inside its own sink (say, to
  // fingerprint each word); the outer pass must not be disturbed. The inner
  // text is longer than the outer one and non-ASCII, so both take the
  // general path.
  const auto words = MakeWordTokenizer();
  const std::string outer = "caf\u00E9 na\u00EFve \u00FCber";
  const std::string inner =
      "\u03B1 \u03B2\u03B3 \u03B4\u03B5\u03B6 \u03B7\u03B8 "
      "\u03B9\u03BA\u03BB\u03BC \u03BD \u03BE\u03BF\u03C0\u03C1 "
      "\u03C3\u03C4\u03C5 \u03C6\u03C7\u03C8\u03C9";
  Tokens got;
  words->ForEachToken(outer, [&](std::string_view t) {
    got.emplace_back(t);
    EXPECT_EQ(Words(inner).size(), 9u);
  });
  EXPECT_EQ(got, (Tokens{"caf\u00E9", "na\u00EFve", "\u00FCber"}));
}

// --- ASCII fast path vs. the general rule engine ---------------------------

TEST(WordSegmenter, DispatchMatchesGeneral) {
  for (std::string_view s :
       {"don't stop", "a.b.c 1,2,3", "caf\u00E9 au lait", "x\u200By", ""}) {
    Tokens dispatched;
    internal::ForEachWord(
        s, [&](std::string_view t) { dispatched.emplace_back(t); });
    EXPECT_EQ(dispatched, General(s)) << s;
  }
}

TEST(WordSegmenter, AsciiEqualsGeneralOnHandPickedInputs) {
  for (std::string_view s : {"a",
                             "_",
                             "a_",
                             "_a",
                             "a.b",
                             "a.",
                             ".a",
                             "a..b",
                             "1.2",
                             "1.a",
                             "a.1",
                             "a'b'c",
                             "1'2",
                             "1:2",
                             "a:b",
                             "1;2",
                             "a;b",
                             "1,2",
                             "a,b",
                             "a_.b",
                             "a._b",
                             "1_.2",
                             "ab1.2cd:ef",
                             "\"a\"",
                             "a-b",
                             "\ta\nb\rc\r\nd",
                             "\va\fb",
                             "x.y.z.",
                             "it's 3.14, ok: a_b"}) {
    EXPECT_EQ(Ascii(s), General(s)) << '"' << s << '"';
  }
}

TEST(WordSegmenter, AsciiEqualsGeneralRandomized) {
  std::mt19937 rng(12345);
  constexpr std::string_view kAlphabet = "ab1_.',:; \n\r\t-\"";
  for (int iter = 0; iter < 50000; ++iter) {
    std::string s(std::uniform_int_distribution<int>(0, 12)(rng), ' ');
    for (char& c : s) {
      c = kAlphabet[std::uniform_int_distribution<size_t>(
          0, kAlphabet.size() - 1)(rng)];
    }
    const Tokens general = General(s);
    ASSERT_EQ(Ascii(s), general) << '"' << s << '"';
  }
}

TEST(WordSegmenter, AsciiEqualsGeneralOnAllAsciiBytes) {
  std::mt19937 rng(777);
  for (int iter = 0; iter < 20000; ++iter) {
    std::string s(std::uniform_int_distribution<int>(0, 10)(rng), ' ');
    for (char& c : s) {
      c = static_cast<char>(std::uniform_int_distribution<int>(0, 127)(rng));
    }
    ASSERT_EQ(Ascii(s), General(s)) << '"' << s << '"';
  }
}

// Mixed text: the rule engine only around non-ASCII code points, cut at
// "space, then ASCII". Random strings of ASCII (spaces weighted up, so cuts
// are common) and code points that take part in the rules next to a cut:
// Extend, Format, ZWJ, letters, Hebrew, Katakana, regional indicators,
// emoji, other spaces, digits of other scripts, and invalid bytes.
TEST(WordSegmenter, MixedEqualsGeneralRandomized) {
  const std::vector<std::string> pieces = {
      "a",
      "b",
      "1",
      "_",
      ".",
      "'",
      ",",
      ":",
      ";",
      "\"",
      "-",
      "\n",
      "\r",
      "\t",
      " ",
      " ",
      " ",
      " ",
      "\u00E9",        // e acute (ALetter)
      "\u0301",        // combining acute (Extend)
      "\u00AD",        // soft hyphen (Format)
      "\u200D",        // ZWJ
      "\u200B",        // zero-width space
      "\u05D0",        // Hebrew alef
      "\u30A2",        // Katakana a
      "\U0001F1E6",    // regional indicator A
      "\U0001F600",    // emoji
      "\u00A0",        // no-break space
      "\u3000",        // ideographic space
      "\u0663",        // Arabic-Indic three
      "\u4E2D",        // Han
      "\u00BA\u2080",  // what the skeleton makes of '%'
      "\xFF",          // invalid
      "\xE2\x82",      // truncated
      "\x80",          // lone continuation byte
      "\xF0\x9F",      // truncated 4-byte lead
      "\xED\xA0\x80",  // surrogate
      "\v",
      "\f",      // ASCII newlines
      "\u0085",  // next line
      "\u2028",  // line separator
      "\u2019",  // right single quotation mark (MidNumLet)
      "\u00B7",  // middle dot (MidLetter)
      "abcdefghijklmnopqrstuvwxyz0123456789 abcdefghijklmnopqrstuvwxyz",
  };
  std::mt19937 rng(2026);
  for (int iter = 0; iter < 50000; ++iter) {
    std::string s;
    const int n = std::uniform_int_distribution<int>(0, 16)(rng);
    for (int i = 0; i < n; ++i) {
      s += pieces[std::uniform_int_distribution<size_t>(
          0, pieces.size() - 1)(rng)];
    }
    Tokens mixed;
    internal::ForEachWordMixed(
        s, [&](std::string_view t) { mixed.emplace_back(t); });
    ASSERT_EQ(mixed, General(s)) << '"' << s << '"';
  }
}

TEST(WordSegmenter, MixedCutsMostlyAsciiText) {
  const std::string text =
      "Shares rose 5\u00BA/\u2080 on Tuesday, caf\u00E9 owners said; "
      "na\u00EFve \u00FCber-analysts' 3.14 forecasts didn't hold.";
  Tokens mixed;
  internal::ForEachWordMixed(
      text, [&](std::string_view t) { mixed.emplace_back(t); });
  EXPECT_EQ(mixed, General(text));
  EXPECT_EQ(mixed,
            (Tokens{"Shares", "rose", "5\u00BA", "\u2080", "on", "Tuesday",
                    "caf\u00E9", "owners", "said", "na\u00EFve", "\u00FCber",
                    "analysts", "3.14", "forecasts", "didn't", "hold"}));
}

}  // namespace
}  // namespace neardup
