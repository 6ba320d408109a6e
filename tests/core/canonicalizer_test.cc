#include "neardup/core/canonicalizer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unicode/uchar.h>
#include <unicode/uspoof.h>

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "support/status_matchers.h"
#include "support/utf8_encode.h"

namespace neardup {
namespace {

using ::neardup::testing::Utf8;

std::string Canon(const Canonicalizer& c, std::string_view in) {
  absl::StatusOr<std::string> out = c.Canonicalize(in);
  EXPECT_OK(out);
  return out.ok() ? *out : "<error>";
}

Canonicalizer Make(const CanonicalizerOptions& o = {}) {
  absl::StatusOr<Canonicalizer> c = Canonicalizer::Create(o);
  EXPECT_OK(c);
  return *std::move(c);
}

// The drop lists as the spec states them, independent of the library's.
bool SpecBidi(char32_t c) {
  return (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) ||
         c == 0x200E || c == 0x200F;
}
bool SpecFormat(char32_t c) {
  return (c >= 0x200B && c <= 0x200F) || (c >= 0x2060 && c <= 0x2064) ||
         c == 0x061C || (c >= 0x180B && c <= 0x180F) || c == 0xFEFF ||
         (c >= 0xFE00 && c <= 0xFE0F) || (c >= 0xE0100 && c <= 0xE01EF) ||
         c == 0xE0001 || (c >= 0xE0020 && c <= 0xE007F) || SpecBidi(c);
}

// Every code point on either list.
std::vector<char32_t> AllDroppable() {
  std::vector<char32_t> v;
  for (char32_t c = 0; c <= 0xE01EF; ++c) {
    if (SpecFormat(c)) v.push_back(c);
  }
  return v;
}

// All 24 option combinations without the skeleton.
std::vector<CanonicalizerOptions> AllPlainOptions() {
  std::vector<CanonicalizerOptions> v;
  for (Normalization n :
       {Normalization::kNfkc, Normalization::kNfc, Normalization::kNone}) {
    for (CaseFold f : {CaseFold::kFull, CaseFold::kNone}) {
      for (bool bidi : {false, true}) {
        for (bool fmt : {false, true}) {
          CanonicalizerOptions o;
          o.normalization = n;
          o.case_fold = f;
          o.strip_bidi = bidi;
          o.strip_format = fmt;
          v.push_back(o);
        }
      }
    }
  }
  return v;
}

TEST(Canonicalizer, RequiredVectors) {
  const Canonicalizer c = Make();
  EXPECT_EQ(Canon(c, "Hello\u200BWorld"), "helloworld");
  EXPECT_EQ(Canon(c, "\uFF21\uFF22\uFF23"), "abc");  // ＡＢＣ
  EXPECT_EQ(Canon(c, "\uFB01le"), "file");           // ﬁle
  EXPECT_EQ(Canon(c, "a\uFE0F"), "a");
  EXPECT_EQ(Canon(c, "admin\u202Edrow"), "admindrow");
}

TEST(Canonicalizer, EmptyInput) {
  EXPECT_EQ(Canon(Make(), ""), "");
  EXPECT_EQ(Canon(Make(), "\u200B\u202E\uFEFF"), "");
}

TEST(Canonicalizer, SkeletonOfEmptyTextIsEmpty) {
  // An empty skeleton is a valid result, not an ICU failure: "" and text
  // made only of dropped code points must canonicalize to "".
  CanonicalizerOptions conf;
  conf.confusable_skeleton = true;
  const Canonicalizer c = Make(conf);
  EXPECT_EQ(Canon(c, ""), "");
  EXPECT_EQ(Canon(c, "\u200B\u202E\uFEFF"), "");
}

TEST(Canonicalizer, FullCaseFolding) {
  const Canonicalizer c = Make();
  EXPECT_EQ(Canon(c, "Stra\u00DFe"), "strasse");        // ß -> ss
  EXPECT_EQ(Canon(c, "\u1E9E"), "ss");                  // capital sharp s
  EXPECT_EQ(Canon(c, "\u0130"), "i\u0307");             // İ -> i + dot above
  EXPECT_EQ(Canon(c, "\u03A3\u03C2"), "\u03C3\u03C3");  // Σς -> σσ
  EXPECT_EQ(Canon(c, "\u212A"), "k");                   // KELVIN SIGN
  EXPECT_EQ(Canon(c, "\u00C9COLE"), "\u00E9cole");      // composed output
  EXPECT_EQ(Canon(c, "E\u0301COLE"), "\u00E9cole");
  EXPECT_EQ(Canon(c, "\u0410\u0411\u0412"), "\u0430\u0431\u0432");  // АБВ
}

TEST(Canonicalizer, NfkcCompatibilityMappings) {
  const Canonicalizer c = Make();
  EXPECT_EQ(Canon(c, "\uFB03"), "ffi");           // ﬃ
  EXPECT_EQ(Canon(c, "\u2460"), "1");             // ①
  EXPECT_EQ(Canon(c, "\u338F"), "kg");            // ㎏
  EXPECT_EQ(Canon(c, "x\u00B2"), "x2");           // superscript two
  EXPECT_EQ(Canon(c, "\uFF8A\uFF9F"), "\u30D1");  // halfwidth ﾊﾟ -> パ
  EXPECT_EQ(Canon(c, "a\u00A0b"), "a b");         // NBSP -> space
}

TEST(Canonicalizer, NoWhitespaceCollapsingOrTrimming) {
  const Canonicalizer c = Make();
  EXPECT_EQ(Canon(c, "  A \t\n B  "), "  a \t\n b  ");
  EXPECT_EQ(Canon(c, " \u00C9  "), " \u00E9  ");
}

TEST(Canonicalizer, SoftHyphenSurvives) {
  const Canonicalizer c = Make();
  EXPECT_EQ(Canon(c, "co\u00ADop"), "co\u00ADop");
  EXPECT_EQ(Canon(c, "CO\u00ADOP"), "co\u00ADop");
}

TEST(Canonicalizer, EveryListedCodePointIsDropped) {
  const Canonicalizer c = Make();
  for (char32_t cp : AllDroppable()) {
    EXPECT_EQ(Canon(c, "A" + Utf8(cp) + "b"), "ab")
        << std::hex << static_cast<uint32_t>(cp);
    // Also next to non-ASCII text, which takes the ICU path.
    EXPECT_EQ(Canon(c, "\u00C9" + Utf8(cp) + "b"), "\u00E9b")
        << std::hex << static_cast<uint32_t>(cp);
  }
}

TEST(Canonicalizer, NeighboursOfTheListsAreKept) {
  const Canonicalizer c = Make();
  // Each of these sits right next to a listed range but is not on a list;
  // it must leave a trace in the output (itself or its NFKC mapping).
  for (char32_t cp :
       {0x00ADu,  0x061Bu,  0x061Du,  0x180Au,  0x1810u,  0x200Au, 0x2010u,
        0x2029u,  0x2065u,  0x206Au,  0x2070u,  0x202Fu,  0xFE10u, 0xFEFCu,
        0xE0000u, 0xE0002u, 0xE001Fu, 0xE0080u, 0xE00FFu, 0xE01F0u}) {
    EXPECT_NE(Canon(c, "a" + Utf8(cp) + "b"), "ab")
        << std::hex << static_cast<uint32_t>(cp);
  }
}

TEST(Canonicalizer, StripFlagsSelectTheLists) {
  CanonicalizerOptions bidi_only;
  bidi_only.strip_format = false;
  const Canonicalizer b = Make(bidi_only);
  EXPECT_EQ(Canon(b, "a\u202Eb\u2066c\u200Fd"), "abcd");
  EXPECT_EQ(Canon(b, "a\u200Bb"), "a\u200Bb");
  EXPECT_EQ(Canon(b, "a\uFEFFb"), "a\uFEFFb");

  // The format list includes the bidi controls.
  CanonicalizerOptions fmt_only;
  fmt_only.strip_bidi = false;
  const Canonicalizer f = Make(fmt_only);
  EXPECT_EQ(Canon(f, "a\u202Eb\u200Bc\uFE0Fd"), "abcd");

  CanonicalizerOptions neither;
  neither.strip_bidi = neither.strip_format = false;
  const Canonicalizer n = Make(neither);
  EXPECT_EQ(Canon(n, "a\u202Eb"), "a\u202Eb");
  EXPECT_EQ(Canon(n, "a\u200Bb"), "a\u200Bb");
  EXPECT_EQ(Canon(n, "\u00C9\u200B"), "\u00E9\u200B");
}

TEST(Canonicalizer, DropHappensBeforeNormalization) {
  // With the RLO still present it would block canonical reordering of the
  // two marks; dropped first, they reorder (and compose) as if adjacent.
  const Canonicalizer c = Make();
  const std::string expected = Canon(c, "e\u0323\u0301");
  EXPECT_EQ(expected, "\u1EB9\u0301");  // ẹ + combining acute
  EXPECT_EQ(Canon(c, "e\u0301\u202E\u0323"), expected);
  EXPECT_EQ(Canon(c, "e\u200B\u0301"), "\u00E9");
}

TEST(Canonicalizer, NormalizationForms) {
  CanonicalizerOptions nfc;
  nfc.normalization = Normalization::kNfc;
  const Canonicalizer c = Make(nfc);
  EXPECT_EQ(Canon(c, "\uFF21\uFF22"), "\uFF41\uFF42");  // width kept, folded
  EXPECT_EQ(Canon(c, "E\u0301"), "\u00E9");             // composed
  EXPECT_EQ(Canon(c, "\uFB01"), "fi");                  // full fold of ﬁ

  CanonicalizerOptions none;
  none.normalization = Normalization::kNone;
  const Canonicalizer n = Make(none);
  EXPECT_EQ(Canon(n, "E\u0301"), "e\u0301");  // not composed
  EXPECT_EQ(Canon(n, "\u00DF"), "ss");
  EXPECT_EQ(Canon(n, "\u2460"), "\u2460");

  CanonicalizerOptions no_fold;
  no_fold.case_fold = CaseFold::kNone;
  const Canonicalizer f = Make(no_fold);
  EXPECT_EQ(Canon(f, "A\u0308B\uFF23"), "\u00C4BC");
  EXPECT_EQ(Canon(f, "Hello World"), "Hello World");
  EXPECT_EQ(Canon(f, "Hello\u200BWorld"), "HelloWorld");
}

TEST(Canonicalizer, ConfusableSkeleton) {
  CanonicalizerOptions o;
  o.confusable_skeleton = true;
  const Canonicalizer c = Make(o);
  // Cyrillic р а у а р а, Latin l.
  const std::string cyrillic = "\u0440\u0430\u0443\u0440\u0430l";
  EXPECT_EQ(Canon(c, cyrillic), Canon(c, "paypal"));
  EXPECT_EQ(Canon(c, "PAYPAL"), Canon(c, "paypal"));
  EXPECT_NE(Canon(c, "paypal"), Canon(c, "paybal"));
  // Off by default: the scripts stay apart.
  const Canonicalizer plain = Make();
  EXPECT_NE(Canon(plain, cyrillic), Canon(plain, "paypal"));
  EXPECT_EQ(Canon(plain, cyrillic), cyrillic);
}

// The robust profile: copies a reader cannot tell apart canonicalize alike.
TEST(Canonicalizer, RobustProfileUndoesDisguises) {
  const Canonicalizer robust = Make(*CanonicalizerProfile("robust"));
  const std::string plain = "the quick brown fox jumps over the lazy dog";
  const std::string expected = Canon(robust, plain);
  const std::vector<std::string> disguised = {
      "the qu\u00ADick brown fox jumps over the la\u00ADzy dog",  // soft hyphen
      "the qu\u200Bick br\u200Cown fox ju\u200Dmps over\u2060 the lazy dog",
      "\uFEFFthe quick brown fox jumps over the lazy dog",
      "th\u0435 quick br\u043Ewn f\u043Ex jumps \u043Ever the lazy dog",  // Cyrillic
      "the qu\u03B9ck brown fox jumps \u03BFver \u03C4he lazy dog",  // Greek
      "the quic\u043A brown fox jumps over \u0442he lazy dog",       // Cyrillic
      "the \uFF51\uFF55\uFF49\uFF43\uFF4B brown fox jumps over the lazy dog",
      "ThE QuIcK BROWN fox JUMPS over THE lazy DOG",
      "the quick brown fox jumps over the lazy dog\u034F",  // CGJ
      // Capital look-alikes in Latin words (Greek Β Μ, Cyrillic М Ь).
      "the quick \u0392rown fox JU\u039CPS over the lazy dog",
      "the quick \u042Crown fox jumps over the lazy dog",
      "THE QUICK BROWN FOX JU\u041CPS OVER THE LAZY DOG",
      // Capital I and Cyrillic/Greek I-like letters for l.
      "the quick brown fox jumps over the Iazy dog",
      "the quick brown fox jumps over the \u0406azy dog",
      "the quick brown fox jumps over the \u0399azy dog",
  };
  for (const std::string& text : disguised) {
    EXPECT_EQ(Canon(robust, text), expected) << text;
  }
  // The default (txtfp's) pipeline keeps soft hyphens and look-alikes.
  const Canonicalizer plain_pipeline = Make();
  EXPECT_NE(Canon(plain_pipeline, disguised[0]), Canon(plain_pipeline, plain));
  EXPECT_NE(Canon(plain_pipeline, disguised[3]), Canon(plain_pipeline, plain));
  // Its own config string, so its own config hash.
  EXPECT_EQ(robust.ConfigString(), "nfkc-cf-simple-bidi-fmt-ign-conf-sc-look");
  EXPECT_EQ(*ParseCanonicalizerConfig(robust.ConfigString()), robust.options());
  EXPECT_FALSE(CanonicalizerProfile("paranoid").ok());
}

// Unicode's confusables (ICU's copy of confusables.txt, through its
// skeleton) name, for a Latin letter, the Cyrillic and Greek letters that
// look like it. The robust profile must canonicalize a word holding any of
// them like the word with the Latin letter, in either case.
TEST(Canonicalizer, RobustProfileOnEveryCyrillicAndGreekLookAlike) {
  UErrorCode err = U_ZERO_ERROR;
  USpoofChecker* spoof = uspoof_open(&err);
  ASSERT_TRUE(U_SUCCESS(err)) << u_errorName(err);
  auto skeleton = [&](const std::string& text) {
    std::string out(64, '\0');
    UErrorCode status = U_ZERO_ERROR;
    const int32_t n = uspoof_getSkeletonUTF8(
        spoof, 0, text.data(), static_cast<int32_t>(text.size()), out.data(),
        static_cast<int32_t>(out.size()), &status);
    EXPECT_TRUE(U_SUCCESS(status)) << u_errorName(status);
    out.resize(n);
    return out;
  };
  // Latin letters by their skeleton ("rn" for m, "l" for I and l, ...).
  std::map<std::string, std::vector<char>> latin;
  for (char c = 'a'; c <= 'z'; ++c) {
    for (const char letter : {c, static_cast<char>(c - 'a' + 'A')}) {
      latin[skeleton(std::string(1, letter))].push_back(letter);
    }
  }
  const Canonicalizer robust = Make(*CanonicalizerProfile("robust"));
  const std::pair<char32_t, char32_t> blocks[] = {
      {0x0370, 0x03FF},    // Greek and Coptic
      {0x1F00, 0x1FFF},    // Greek Extended
      {0x0400, 0x04FF},    // Cyrillic
      {0x0500, 0x052F},    // Cyrillic Supplement
      {0x1C80, 0x1C8F},    // Cyrillic Extended-C
      {0xA640, 0xA69F},    // Cyrillic Extended-B
      {0x1D6A8, 0x1D7C9},  // Mathematical Greek (Common script)
  };
  int look_alikes = 0;
  std::vector<std::string> missed;
  for (const auto& [first, last] : blocks) {
    for (char32_t cp = first; cp <= last; ++cp) {
      if (!u_isalpha(cp)) continue;
      const auto it = latin.find(skeleton(Utf8(cp)));
      if (it == latin.end()) continue;
      for (const char letter : it->second) {
        ++look_alikes;
        // StrCat: GCC 12 warns (-Wrestrict) inside "w" + string + "rd".
        const std::string word = absl::StrCat("w", Utf8(cp), "rd");
        const std::string plain =
            absl::StrCat("w", std::string(1, letter), "rd");
        if (Canon(robust, word) != Canon(robust, plain)) {
          missed.push_back(absl::StrFormat("U+%04X as %c",
                                           static_cast<uint32_t>(cp), letter));
        }
      }
    }
  }
  uspoof_close(spoof);
  EXPECT_GE(look_alikes, 60);  // the tables are not empty
  EXPECT_THAT(missed, ::testing::IsEmpty());
}

// The robust profile of stores written before fold_look_alikes existed
// (its config string without "-look") keeps what it did: case folding
// before the skeleton hides capital look-alikes, and I is not l.
TEST(Canonicalizer, EarlierRobustConfigKeepsItsBehaviour) {
  absl::StatusOr<CanonicalizerOptions> earlier =
      ParseCanonicalizerConfig("nfkc-cf-simple-bidi-fmt-ign-conf-sc");
  ASSERT_OK(earlier);
  EXPECT_FALSE(earlier->fold_look_alikes);
  const Canonicalizer c = Make(*earlier);
  // Greek Β is folded to β, whose prototype is ß.
  EXPECT_EQ(Canon(c, "w\u0392rd"), "w\u00DFrd");
  EXPECT_EQ(Canon(c, "wIrd"), "wird");
  EXPECT_EQ(Canon(c, "w\u0430rd"), "ward");  // Cyrillic а: the skeleton
}

TEST(Canonicalizer, FoldLookAlikesGoldenVectors) {
  CanonicalizerOptions o;
  o.fold_look_alikes = true;
  const Canonicalizer look = Make(o);
  const Canonicalizer robust = Make(*CanonicalizerProfile("robust"));
  struct Case {
    std::string input, look, robust;
  };
  const Case cases[] = {
      // Mixed words: the look-alike becomes its Latin letter first.
      {"w\u0392rd", "wbrd", "wbrd"},
      {"\u041C\u0410RK", "mark", "rnark"},  // Cyrillic М, А next to Latin R K
      {"w\u037Ard", "wlrd", "wlrd"},        // Greek ypogegrammeni: i, then l
      {"\u03F2at", "cat", "cat"},           // lunate sigma, before NFKC
      // Words of one script keep their letters and their case folding.
      {"\u041C\u0410\u041C\u0410", "\u043C\u0430\u043C\u0430",
       "\u028Da\u028Da"},
      {"\u0392\u0397\u03A4\u0391", "\u03B2\u03B7\u03C4\u03B1",
       "\u00DFn\u0329ta"},
      // Only the mixed word changes (Λ looks like nothing Latin); marks stay
      // inside the word.
      {"\u039C\u0391\u039B\u0391 x\u0392e\u0301",
       "\u03BC\u03B1\u03BB\u03B1 xb\u00E9", "\u03BCa\u03BBa xbe\u0301"},
      // Words of look-alikes only, next to a Latin word.
      {"\u03A4\u0397\u0395 \u0399\u039D ok", "the ln ok", "the ln ok"},
      // i -> l everywhere, after folding and the skeleton.
      {"Illinois", "llllnols", "llllnols"},
      {"plain ascii", "plaln ascll", "plaln ascll"},
  };
  for (const Case& k : cases) {
    EXPECT_EQ(Canon(look, k.input), k.look) << k.input;
    EXPECT_EQ(Canon(robust, k.input), k.robust) << k.input;
  }
  // The robust profile agrees with the skeleton's view of the same text.
  EXPECT_EQ(Canon(robust, "w\u0392rd"), Canon(robust, "wBrd"));
  EXPECT_EQ(Canon(robust, "\u041C\u0410\u041C\u0410"),
            Canon(robust, "\u043C\u0430\u043C\u0430"));
  EXPECT_EQ(Canon(robust, "wIrd"), Canon(robust, "wlrd"));
  EXPECT_EQ(Canon(robust, "w1rd"), Canon(robust, "wlrd"));
}

TEST(Canonicalizer, InvalidUtf8NamesTheOffset) {
  const Canonicalizer c = Make();
  CanonicalizerOptions conf;
  conf.confusable_skeleton = true;
  const Canonicalizer skel = Make(conf);
  struct Case {
    std::string input;
    size_t offset;
  };
  const Case cases[] = {
      {"ab\xFF"
       "cd",
       2},
      {"\x80", 0},
      {"abc\xC3", 3},                      // truncated 2-byte sequence
      {"\xC3\xA9\xE2\x82", 2},             // truncated after valid é
      {"x\xC0\x80", 1},                    // overlong NUL
      {"xy\xE0\x80\x80", 2},               // overlong 3-byte
      {"\xED\xA0\x80", 0},                 // UTF-16 surrogate
      {"abcdefghij\xF4\x90\x80\x80", 10},  // above U+10FFFF
      {"\xF0\x9F\x98\x80 \xF8", 5},        // after an emoji
      {"Hello\u200B\xFE", 8},              // after a droppable
  };
  for (const Case& k : cases) {
    for (const Canonicalizer* canon : {&c, &skel}) {
      absl::StatusOr<std::string> out = canon->Canonicalize(k.input);
      ASSERT_FALSE(out.ok()) << k.input;
      EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_NE(out.status().message().find("byte " + std::to_string(k.offset)),
                std::string_view::npos)
          << out.status() << " for offset " << k.offset;
    }
  }
}

TEST(Canonicalizer, CanonicalizeIntoReusesAndClearsOutput) {
  const Canonicalizer c = Make();
  std::string out = "stale contents that must go";
  ASSERT_OK(c.CanonicalizeInto("ABC", &out));
  EXPECT_EQ(out, "abc");
  ASSERT_OK(c.CanonicalizeInto("\u00C9T\u00C9", &out));
  EXPECT_EQ(out, "\u00E9t\u00E9");
  ASSERT_OK(c.CanonicalizeInto("A\u200BB", &out));
  EXPECT_EQ(out, "ab");
  EXPECT_FALSE(c.CanonicalizeInto("bad\xFF", &out).ok());
}

TEST(Canonicalizer, ConfigStringRoundTrips) {
  EXPECT_EQ(Make().ConfigString(), "nfkc-cf-simple-bidi-fmt");
  for (CanonicalizerOptions o : AllPlainOptions()) {
    for (int flags = 0; flags < 16; ++flags) {
      o.strip_ignorable = flags & 1;
      o.confusable_skeleton = flags & 2;
      o.fold_small_capitals = flags & 4;
      o.fold_look_alikes = flags & 8;
      const std::string s = Make(o).ConfigString();
      absl::StatusOr<CanonicalizerOptions> parsed = ParseCanonicalizerConfig(s);
      ASSERT_OK(parsed);
      EXPECT_TRUE(*parsed == o) << s;
    }
  }
  absl::StatusOr<CanonicalizerOptions> p =
      ParseCanonicalizerConfig("none-cf-none-conf");
  ASSERT_OK(p);
  EXPECT_EQ(p->normalization, Normalization::kNone);
  EXPECT_EQ(p->case_fold, CaseFold::kNone);
  EXPECT_FALSE(p->strip_bidi);
  EXPECT_FALSE(p->strip_format);
  EXPECT_TRUE(p->confusable_skeleton);
}

TEST(Canonicalizer, ConfigStringRejectsMalformed) {
  for (std::string_view bad :
       {"", "nfkc", "nfkc-cf", "nfkc-simple", "nfd-cf-simple", "nfkc-cf-full",
        "nfkc-cf-simple-", "nfkc-cf-simple-fmt-bidi",
        "nfkc-cf-simple-bidi-bidi", "nfkc-cf-simple-conf-fmt",
        "nfkc-cf-simple-xyz", "NFKC-cf-simple", "nfkc-cf-simple-bidi-fmt ",
        "nfkc-cf-simple-look-sc", "nfkc-cf-simple-look-look"}) {
    absl::StatusOr<CanonicalizerOptions> p = ParseCanonicalizerConfig(bad);
    EXPECT_FALSE(p.ok()) << '"' << bad << '"';
    if (!p.ok()) {
      EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
    }
  }
}

// --- Fast paths vs. the ICU path -------------------------------------------

// Random text from ASCII, listed code points and a few non-listed
// neighbours (which force the ICU path on their own).
std::string RandomMostlyAscii(std::mt19937& rng, bool with_neighbours) {
  static const std::vector<char32_t> droppable = AllDroppable();
  static constexpr char32_t kNeighbours[] = {0x00AD, 0x200A, 0x2010, 0x202F,
                                             0x2065, 0xFE10, 0x00E9, 0x0301};
  std::string s;
  const int len = std::uniform_int_distribution<int>(0, 24)(rng);
  for (int i = 0; i < len; ++i) {
    const int kind = std::uniform_int_distribution<int>(0, 9)(rng);
    if (kind < 7) {
      s += static_cast<char>(std::uniform_int_distribution<int>(0, 127)(rng));
    } else if (kind < 9 || !with_neighbours) {
      s += Utf8(droppable[std::uniform_int_distribution<size_t>(
          0, droppable.size() - 1)(rng)]);
    } else {
      s += Utf8(kNeighbours[std::uniform_int_distribution<size_t>(
          0, std::size(kNeighbours) - 1)(rng)]);
    }
  }
  return s;
}

// Reference for text made only of ASCII and listed code points.
std::string Reference(std::string_view s, const CanonicalizerOptions& o) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const unsigned char b = s[i];
    char32_t cp = b;
    int n = 1;
    if (b >= 0xF0) {
      cp = b & 0x07, n = 4;
    } else if (b >= 0xE0) {
      cp = b & 0x0F, n = 3;
    } else if (b >= 0xC0) {
      cp = b & 0x1F, n = 2;
    }
    for (int j = 1; j < n; ++j) cp = (cp << 6) | (s[i + j] & 0x3F);
    i += n;
    const bool drop =
        (o.strip_format && SpecFormat(cp)) || (o.strip_bidi && SpecBidi(cp));
    if (drop) continue;
    if (cp < 0x80) {
      char ch = static_cast<char>(cp);
      if (o.case_fold == CaseFold::kFull && ch >= 'A' && ch <= 'Z') ch += 32;
      out += ch;
    } else {
      out += Utf8(cp);  // kept format characters have no NFKC/fold mapping
    }
  }
  return out;
}

TEST(CanonicalizerFastPath, AsciiAndDroppableMatchTheReference) {
  std::mt19937 rng(20240521);
  for (const CanonicalizerOptions& o : AllPlainOptions()) {
    const Canonicalizer c = Make(o);
    for (int iter = 0; iter < 300; ++iter) {
      const std::string s = RandomMostlyAscii(rng, /*with_neighbours=*/false);
      EXPECT_EQ(Canon(c, s), Reference(s, o)) << c.ConfigString();
    }
  }
}

// Wrapping the input in "é" sends it down the ICU path; since é neither
// composes with nor reorders against its neighbours, the wrapped result must
// be the fast-path result wrapped in the canonical é.
TEST(CanonicalizerFastPath, MatchesTheIcuPath) {
  std::mt19937 rng(7);
  for (const CanonicalizerOptions& o : AllPlainOptions()) {
    const Canonicalizer c = Make(o);
    const std::string e = Canon(c, "\u00E9");
    ASSERT_EQ(e, "\u00E9");
    for (int iter = 0; iter < 300; ++iter) {
      const std::string s = RandomMostlyAscii(rng, /*with_neighbours=*/true);
      EXPECT_EQ(e + Canon(c, s) + e, Canon(c, "\u00E9" + s + "\u00E9"))
          << c.ConfigString() << " input bytes " << s.size();
    }
  }
}

TEST(CanonicalizerFastPath, PureAsciiIsLowercasedOnly) {
  const Canonicalizer c = Make();
  std::string all;
  for (int b = 0; b < 128; ++b) all += static_cast<char>(b);
  std::string expected = all;
  for (char& ch : expected) {
    if (ch >= 'A' && ch <= 'Z') ch += 32;
  }
  EXPECT_EQ(Canon(c, all), expected);
  EXPECT_EQ(Canon(c, "\u00E9" + all), "\u00E9" + expected);
}

TEST(CanonicalizerFastPath, SkeletonIsAppliedToAsciiToo) {
  // The skeleton maps ASCII as well (e.g. "rn" and "m" are confusable), so
  // pure-ASCII input must not bypass it.
  CanonicalizerOptions o;
  o.confusable_skeleton = true;
  const Canonicalizer c = Make(o);
  EXPECT_EQ(Canon(c, "rn"), Canon(c, "m"));
  EXPECT_EQ(Canon(c, "1"), Canon(c, "l"));
  EXPECT_NE(Canon(c, "rn"), Canon(c, "rm"));
  EXPECT_EQ(Canon(c, "rn\u200B"), Canon(c, "m"));
}

}  // namespace
}  // namespace neardup
