#include "neardup/core/perceptual.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "neardup/core/config_hash.h"
#include "support/status_matchers.h"

namespace neardup {
namespace {

using ::testing::HasSubstr;

std::vector<std::string_view> Split(std::string_view text) {
  std::vector<std::string_view> words;
  while (!text.empty()) {
    const size_t space = text.find(' ');
    if (space != 0) words.push_back(text.substr(0, space));
    if (space == std::string_view::npos) break;
    text.remove_prefix(space + 1);
  }
  return words;
}

std::string Words(int seed, int count, int vocabulary = 400) {
  std::mt19937 rng(seed);
  std::string out;
  for (int i = 0; i < count; ++i) {
    absl::StrAppend(&out, i ? " " : "", "w", rng() % vocabulary);
  }
  return out;
}

TEST(Perceptual, ValidatesTheConfig) {
  auto invalid = [](auto edit) {
    PerceptualConfig config;
    edit(config);
    return std::string(ValidatePerceptualConfig(config).message());
  };
  EXPECT_OK(ValidatePerceptualConfig({}));
  EXPECT_THAT(invalid([](auto& c) { c.version = 0; }), HasSubstr("version 0"));
  EXPECT_THAT(invalid([](auto& c) { c.version = 2; }), HasSubstr("version 2"));
  EXPECT_THAT(invalid([](auto& c) { c.k = 0; }), HasSubstr("k must be"));
  EXPECT_THAT(invalid([](auto& c) { c.k = 65; }), HasSubstr("k must be"));
  EXPECT_THAT(invalid([](auto& c) { c.w = 0; }), HasSubstr("w must be"));
  EXPECT_THAT(invalid([](auto& c) { c.bands = 0; }), HasSubstr("bands"));
  EXPECT_THAT(invalid([](auto& c) { c.bands = c.rows = 1 << 20; }),
              HasSubstr("bands * rows <= 1024"));
  const std::string few = "one two three";
  EXPECT_THAT(PerceptualizeTokens(Split(few), {}).status().message(),
              HasSubstr("not enough tokens for a perceptual fingerprint: 3 < "
                        "k = 9"));
}

// The rolling hash equals the polynomial computed window by window.
TEST(Perceptual, RollingShinglesMatchTheDirectPolynomial) {
  constexpr uint64_t p = (uint64_t{1} << 61) - 1;
  const std::string text = Words(1, 60);
  const std::vector<std::string_view> tokens = Split(text);
  for (const int k : {1, 3, 9}) {
    for (const uint64_t seed : {uint64_t{0}, kDefaultSeed}) {
      const std::vector<uint64_t> rolled = RollingShingles(tokens, k, seed);
      ASSERT_EQ(rolled.size(), tokens.size() - k + 1);
      // The base: splitmix64(seed) mod p, raised to at least 2^32.
      uint64_t z = seed + 0x9e3779b97f4a7c15ull;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      z ^= z >> 31;
      uint64_t base = static_cast<uint64_t>(z % p);
      if (base < (uint64_t{1} << 32)) base += uint64_t{1} << 32;
      for (size_t i = 0; i < rolled.size(); ++i) {
        unsigned __int128 h = 0;
        for (int j = 0; j < k; ++j) {
          const uint64_t value =
              XXH3_64bits_withSeed(tokens[i + j].data(), tokens[i + j].size(),
                                   seed) %
              p;
          h = (h * base + value) % p;
        }
        uint64_t x = static_cast<uint64_t>(h);  // then murmur3's fmix64
        x ^= x >> 33;
        x *= 0xff51afd7ed558ccdull;
        x ^= x >> 33;
        x *= 0xc4ceb9fe1a85ec53ull;
        x ^= x >> 33;
        ASSERT_EQ(rolled[i], x) << "k=" << k << " window " << i;
      }
    }
  }
  EXPECT_TRUE(RollingShingles(tokens, 61, 0).empty());
}

// The deque's answer equals a scan of every window for its rightmost
// minimum, with many ties.
TEST(Perceptual, WinnowingMatchesANaiveScan) {
  std::mt19937_64 rng(2);
  for (int trial = 0; trial < 300; ++trial) {
    const size_t n = 1 + rng() % 40;
    std::vector<uint64_t> hashes(n);
    for (uint64_t& h : hashes) h = rng() % 6;  // ties everywhere
    const int w = 1 + static_cast<int>(rng() % 10);
    std::vector<WinnowedShingle> expected;
    const size_t window = std::min<size_t>(w, n);
    for (size_t start = 0; start + window <= n; ++start) {
      size_t best = start;
      for (size_t i = start; i < start + window; ++i) {
        if (hashes[i] <= hashes[best]) best = i;  // rightmost minimum
      }
      if (expected.empty() || expected.back().start != best) {
        expected.push_back({hashes[best], best});
      }
    }
    ASSERT_EQ(WinnowMinQ(hashes, w), expected)
        << "trial " << trial << " n=" << n << " w=" << w;
  }
  // w larger than the shingle count: one window, one fingerprint.
  const std::vector<uint64_t> three = {5, 2, 2};
  EXPECT_EQ(WinnowMinQ(three, 10), (std::vector<WinnowedShingle>{{2, 2}}));
  EXPECT_TRUE(WinnowMinQ({}, 4).empty());
  // w = 1 keeps every shingle.
  EXPECT_EQ(WinnowMinQ(three, 1).size(), 3u);
}

TEST(Perceptual, MinHashIgnoresOrderAndDuplicates) {
  const std::vector<uint64_t> a = {10, 20, 30, 40};
  const std::vector<uint64_t> b = {40, 30, 30, 20, 10, 10};
  EXPECT_EQ(PerceptualMinHash(a, 128, 7), PerceptualMinHash(b, 128, 7));
  EXPECT_NE(PerceptualMinHash(a, 128, 7), PerceptualMinHash(a, 128, 8));
  EXPECT_EQ(PerceptualMinHash(a, 64, 7).size(), 64u);
}

TEST(Perceptual, FingerprintMetaAndIntermediates) {
  const std::string text = Words(3, 200);
  ASSERT_OK_AND_ASSIGN(const PerceptualFingerprint lean,
                       PerceptualizeTokens(Split(text), {}));
  ASSERT_OK_AND_ASSIGN(const PerceptualFingerprint full,
                       PerceptualizeTokens(Split(text), {}, true));
  EXPECT_EQ(lean.minhash, full.minhash);
  EXPECT_TRUE(lean.shingles.empty());
  EXPECT_TRUE(lean.winnowed.empty());
  EXPECT_EQ(full.shingles.size(), 192u);
  EXPECT_EQ(full.winnowed.size(), full.meta.winnowed);
  EXPECT_EQ(lean.meta.algorithm, "rolling+minq+minhash_v1");
  EXPECT_EQ(lean.meta.perceptual_version, 1u);
  EXPECT_EQ(lean.meta.minhash_len, 128);
  EXPECT_EQ(lean.minhash.num_perm(), 128);
  EXPECT_EQ(lean.meta.tokens, 200u);
  // Winnowing keeps about 2 / (w + 1) of the shingles.
  EXPECT_GT(lean.meta.winnowed, 192u * 2 / 5 / 2);
  EXPECT_LT(lean.meta.winnowed, 192u * 2 / 5 * 2);
}

TEST(Perceptual, NearTextsEstimateHighUnrelatedLow) {
  ASSERT_OK_AND_ASSIGN(const PerceptualHasher hasher,
                       PerceptualHasher::Create());
  const std::string base = Words(4, 600);
  const std::vector<std::string_view> views = Split(base);
  std::vector<std::string> words(views.begin(), views.end());
  words[300] = "changed";
  const std::string near = absl::StrJoin(words, " ");
  const MinHashSignature a = hasher.Fingerprint(base)->minhash;
  const MinHashSignature b = hasher.Fingerprint(near)->minhash;
  const MinHashSignature c = hasher.Fingerprint(Words(5, 600))->minhash;
  EXPECT_GT(*EstimateJaccard(a, b), 0.85);
  EXPECT_LT(*EstimateJaccard(a, c), 0.1);
  // Canonicalized first: case does not matter.
  std::string upper = base;
  for (char& ch : upper) ch = static_cast<char>(std::toupper(ch));
  EXPECT_EQ(hasher.Fingerprint(upper)->minhash, a);
}

// Frozen: a change here changes every stored perceptual signature.
TEST(Perceptual, GoldenVectors) {
  ASSERT_OK_AND_ASSIGN(const PerceptualHasher hasher,
                       PerceptualHasher::Create());
  EXPECT_EQ(hasher.algorithm(), "rolling+minq+minhash_v1-k9-w4-h128");
  EXPECT_EQ(FormatHex64(hasher.config_hash()), "ff89768ae430ea5b");
  ASSERT_OK_AND_ASSIGN(
      const PerceptualFingerprint fp,
      hasher.Fingerprint("The quick brown fox jumps over the lazy dog while "
                         "the cat watches from the warm windowsill, "
                         "unimpressed by the whole affair."));
  EXPECT_EQ(FormatHex64(fp.minhash.slots[0]), "6799ce4d8e73c8d9");
  EXPECT_EQ(FormatHex64(fp.minhash.slots[1]), "1c0ae1dfb99e92c1");
  EXPECT_EQ(FormatHex64(fp.minhash.slots[127]), "14e0e582a0cef9db");
  EXPECT_EQ(fp.meta.shingles, 14u);
  EXPECT_EQ(fp.meta.winnowed, 5u);
}

}  // namespace
}  // namespace neardup
