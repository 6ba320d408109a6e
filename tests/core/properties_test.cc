// Randomized properties of the pipeline (fixed seeds, deterministic).

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/core/canonicalizer.h"
#include "neardup/core/minhash.h"
#include "support/status_matchers.h"
#include "support/utf8_encode.h"

namespace neardup {
namespace {

using ::neardup::testing::Utf8;

struct Range {
  char32_t lo, hi;
};

// Code point pools the random strings draw from.
const Range kPools[] = {
    {0x20, 0x7E},        // ASCII printable
    {0x41, 0x5A},        // ASCII capitals (more case folding)
    {0x09, 0x0D},        // whitespace controls
    {0xA0, 0xFF},        // Latin-1
    {0x100, 0x17F},      // Latin Extended-A (İ, ı, ſ, ...)
    {0x1E00, 0x1EFF},    // Latin Extended Additional (ẞ, ẛ, ...)
    {0x370, 0x3FF},      // Greek
    {0x1F00, 0x1FFF},    // Greek Extended (iota subscripts)
    {0x400, 0x4FF},      // Cyrillic
    {0x4E00, 0x4FFF},    // CJK ideographs
    {0x3040, 0x30FF},    // kana
    {0xFF00, 0xFFEF},    // fullwidth / halfwidth forms
    {0x0300, 0x036F},    // combining marks
    {0x0345, 0x0345},    // ypogegrammeni (folds to a base letter)
    {0xFB00, 0xFB06},    // Latin ligatures
    {0x2460, 0x24FF},    // enclosed alphanumerics
    {0x3380, 0x33FF},    // CJK squared units
    {0x200B, 0x200F},    // zero-width / bidi marks
    {0x202A, 0x202E},    // bidi embeddings/overrides
    {0x2060, 0x2069},    // word joiner, isolates
    {0xFE00, 0xFE0F},    // variation selectors
    {0xFEFF, 0xFEFF},    // BOM
    {0xE0020, 0xE007F},  // tags
    {0xE0100, 0xE01EF},  // variation selectors supplement
    {0x00AD, 0x00AD},    // soft hyphen (kept)
    {0x1100, 0x11FF},    // Hangul jamo
    {0x1F300, 0x1F64F},  // emoji
};

std::string RandomText(std::mt19937& rng, int max_len) {
  std::string s;
  const int len = std::uniform_int_distribution<int>(0, max_len)(rng);
  for (int i = 0; i < len; ++i) {
    const Range& r = kPools[std::uniform_int_distribution<size_t>(
        0, std::size(kPools) - 1)(rng)];
    s += Utf8(std::uniform_int_distribution<uint32_t>(r.lo, r.hi)(rng));
  }
  return s;
}

TEST(Properties, CanonicalizeIsIdempotent) {
  std::mt19937 rng(1);
  CanonicalizerOptions nfc;
  nfc.normalization = Normalization::kNfc;
  for (const CanonicalizerOptions& o : {CanonicalizerOptions{}, nfc}) {
    absl::StatusOr<Canonicalizer> c = Canonicalizer::Create(o);
    ASSERT_OK(c);
    for (int iter = 0; iter < 2500; ++iter) {
      const std::string s = RandomText(rng, 12);
      absl::StatusOr<std::string> once = c->Canonicalize(s);
      ASSERT_OK(once);
      absl::StatusOr<std::string> twice = c->Canonicalize(*once);
      ASSERT_OK(twice);
      ASSERT_EQ(*twice, *once) << c->ConfigString() << " iteration " << iter;
    }
  }
}

TEST(Properties, CanonicalizeIsIdempotentOnEveryCodePoint) {
  absl::StatusOr<Canonicalizer> c = Canonicalizer::Create();
  ASSERT_OK(c);
  int failures = 0;
  // Everything assigned below plane 14 (planes 4-13 are unassigned), and
  // the tags and variation selectors of plane 14.
  for (char32_t cp = 0; cp <= 0xE01EF && failures < 10; ++cp) {
    if (cp == 0xD800) cp = 0xE000;    // surrogates are not scalar values
    if (cp == 0x32400) cp = 0xE0000;  // end of CJK Extension H
    const std::string s = Utf8(cp);
    const std::string once = *c->Canonicalize(s);
    const std::string twice = *c->Canonicalize(once);
    if (twice != once) {
      ++failures;
      ADD_FAILURE() << "U+" << std::hex << static_cast<uint32_t>(cp);
    }
  }
}

// --- MinHash ----------------------------------------------------------------

MinHasher WordMinHasher() {
  MinHashConfig config;
  config.tokenizer = "word-uax29";
  config.num_perm = 128;
  absl::StatusOr<MinHasher> h = MinHasher::Create(config);
  EXPECT_OK(h);
  return *std::move(h);
}

// Distinct words that the word tokenizer keeps whole.
std::string Word(int i) { return "w" + std::to_string(i) + "x"; }

std::string Join(const std::vector<std::string>& words, std::mt19937& rng) {
  static const char* kSeps[] = {" ", "  ", ", ", "\n", " - ", "; ", "!\t"};
  std::string s;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > 0) {
      s += kSeps[std::uniform_int_distribution<size_t>(
          0, std::size(kSeps) - 1)(rng)];
    }
    s += words[i];
  }
  return s;
}

TEST(Properties, MinHashIgnoresOrderAndRepeats) {
  const MinHasher h = WordMinHasher();
  std::mt19937 rng(2);
  for (int iter = 0; iter < 60; ++iter) {
    std::vector<std::string> words;
    const int n = std::uniform_int_distribution<int>(1, 40)(rng);
    for (int i = 0; i < n; ++i) {
      words.push_back(Word(std::uniform_int_distribution<int>(0, 500)(rng)));
    }
    const absl::StatusOr<MinHashSignature> base =
        h.Fingerprint(Join(words, rng));
    ASSERT_OK(base);

    std::vector<std::string> shuffled = words;
    const int dups = std::uniform_int_distribution<int>(0, n)(rng);
    for (int d = 0; d < dups; ++d) {
      shuffled.push_back(words[std::uniform_int_distribution<size_t>(
          0, words.size() - 1)(rng)]);
    }
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    const absl::StatusOr<MinHashSignature> other =
        h.Fingerprint(Join(shuffled, rng));
    ASSERT_OK(other);
    EXPECT_TRUE(*other == *base) << "iteration " << iter;

    // Case and width differences vanish too (canonicalization).
    std::string upper = Join(shuffled, rng);
    for (char& c : upper) c = static_cast<char>(std::toupper(c));
    EXPECT_TRUE(*h.Fingerprint(upper) == *base) << "iteration " << iter;

    // A new word does change the signature's token set.
    shuffled.push_back("brandnew");
    EXPECT_NE(*h.TokenSet(Join(shuffled, rng)), *h.TokenSet(Join(words, rng)));
  }
}

TEST(Properties, MinHashEstimateIsWithinFourSigma) {
  const MinHasher h = WordMinHasher();
  constexpr int kH = 128;
  std::mt19937 rng(3);
  int next_word = 0;
  double total_abs_error = 0;
  constexpr int kTrials = 80;
  for (int trial = 0; trial < kTrials; ++trial) {
    // |A| = shared + only_a, |B| = shared + only_b, all words distinct.
    const int shared = std::uniform_int_distribution<int>(0, 150)(rng);
    const int only_a = std::uniform_int_distribution<int>(0, 150)(rng);
    const int only_b = std::uniform_int_distribution<int>(0, 150)(rng);
    std::vector<std::string> a, b;
    for (int i = 0; i < shared; ++i) {
      a.push_back(Word(next_word));
      b.push_back(Word(next_word++));
    }
    for (int i = 0; i < only_a; ++i) a.push_back(Word(next_word++));
    for (int i = 0; i < only_b; ++i) b.push_back(Word(next_word++));
    if (a.empty()) a.push_back(Word(next_word++));
    if (b.empty()) b.push_back(Word(next_word++));
    std::shuffle(a.begin(), a.end(), rng);
    std::shuffle(b.begin(), b.end(), rng);
    const std::string ta = Join(a, rng), tb = Join(b, rng);

    const absl::StatusOr<std::vector<Hash128>> sa = h.TokenSet(ta);
    const absl::StatusOr<std::vector<Hash128>> sb = h.TokenSet(tb);
    ASSERT_OK(sa);
    ASSERT_OK(sb);
    ASSERT_EQ(sa->size(), a.size());
    ASSERT_EQ(sb->size(), b.size());
    const double exact = ExactJaccard(*sa, *sb);
    const int union_size = static_cast<int>(a.size() + b.size()) - shared;
    EXPECT_DOUBLE_EQ(exact, static_cast<double>(shared) / union_size);

    const absl::StatusOr<MinHashSignature> ma = h.Fingerprint(ta);
    const absl::StatusOr<MinHashSignature> mb = h.Fingerprint(tb);
    ASSERT_OK(ma);
    ASSERT_OK(mb);
    ASSERT_EQ(ma->num_perm(), kH);
    const absl::StatusOr<double> est = EstimateJaccard(*ma, *mb);
    ASSERT_OK(est);
    const double sigma =
        std::max(std::sqrt(exact * (1 - exact) / kH), 1.0 / kH);
    EXPECT_LE(std::abs(*est - exact), 4 * sigma)
        << "trial " << trial << ": exact " << exact << " estimate " << *est
        << " (|A|=" << a.size() << " |B|=" << b.size() << ")";
    total_abs_error += std::abs(*est - exact);
  }
  // On average the estimate is much tighter than the 4-sigma bound.
  EXPECT_LT(total_abs_error / kTrials, 0.05);
}

}  // namespace
}  // namespace neardup
