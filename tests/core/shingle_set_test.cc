#include "neardup/core/shingle_set.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "absl/strings/escaping.h"
#include "neardup/core/minhash.h"
#include "support/status_matchers.h"

namespace neardup {
namespace {

using ::testing::HasSubstr;

std::vector<uint64_t> RandomSet(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> set(n);
  for (uint64_t& v : set) v = rng();
  SortUniqueHashes(&set);
  return set;
}

TEST(ShingleSet, RoundTripsEverySize) {
  for (size_t n : {0, 1, 2, 3, 7, 64, 65, 500, 4096, 100000}) {
    const std::vector<uint64_t> set = RandomSet(n, n);
    std::vector<uint64_t> decoded = {42};
    ASSERT_TRUE(DecodeShingleSet(EncodeShingleSet(set), &decoded).ok()) << n;
    EXPECT_EQ(decoded, set) << n;
  }
}

// Every count up to 300 moves the word boundaries the encoder and decoder
// work in (low parts of 55-63 bits, high parts read 56 bits at a time);
// clustered values give long runs of ones and of zeros in the high parts.
TEST(ShingleSet, RoundTripsEverySmallCountAndClusters) {
  std::mt19937_64 rng(5);
  for (size_t n = 1; n <= 300; ++n) {
    for (int shape = 0; shape < 2; ++shape) {
      std::vector<uint64_t> set(n);
      for (uint64_t& v : set) {
        v = rng();
        // Half the values at the bottom, half at the top: a gap of ~2^63.
        if (shape == 1) v = (v & 1) ? ~(v >> 48) : v >> 48;
      }
      SortUniqueHashes(&set);
      std::vector<uint64_t> decoded;
      ASSERT_OK(DecodeShingleSet(EncodeShingleSet(set), &decoded));
      ASSERT_EQ(decoded, set) << n << " shape " << shape;
    }
  }
}

TEST(ShingleSet, RoundTripsExtremeAndDenseValues) {
  const std::vector<std::vector<uint64_t>> sets = {
      {0},
      {~0ull},
      {0, ~0ull},
      {0, 1, 2, 3, 4, 5, 6, 7, 8, 9},
      {1ull << 63, (1ull << 63) + 1, ~0ull - 1, ~0ull},
  };
  for (const auto& set : sets) {
    std::vector<uint64_t> decoded;
    ASSERT_OK(DecodeShingleSet(EncodeShingleSet(set), &decoded));
    EXPECT_EQ(decoded, set);
  }
}

// Frozen: stored evidence must decode the same forever.
TEST(ShingleSet, GoldenEncoding) {
  const std::vector<uint64_t> set = {1, 0x8000000000000000ull,
                                     0xFFFFFFFFFFFFFFFFull};
  // n = 3, L = 62: lows 1, 0, 2^62 - 1 in bits 0..185; highs 0, 2, 3 set
  // bits 186, 189, 191 (checked with an independent Python encoder).
  const std::string bytes = EncodeShingleSet(set);
  EXPECT_EQ(absl::BytesToHexString(bytes),
            "03010000000000000000000000000000f0ffffffffffffffa7");
}

// Frozen too: 32-bit evidence (checked with the same Python encoder).
TEST(ShingleSet, GoldenEncodingOf32BitHashes) {
  // n = 3, L = 30.
  EXPECT_EQ(absl::BytesToHexString(
                EncodeShingleSet({{1, 0x80000000ull, 0xFFFFFFFFull}}, 32)),
            "0301000000000000f0ffffffa7");
  // n = 5, L = 29.
  EXPECT_EQ(absl::BytesToHexString(
                EncodeShingleSet({{5, 6, 7, 1000, 0x12345678}}, 32)),
            "05050000c00000001c000000f40100806745233f");
}

TEST(ShingleSet, RoundTripsInEveryUniverse) {
  std::mt19937_64 rng(11);
  for (int universe : {1, 2, 16, 31, 32, 33, 63, 64}) {
    for (size_t n : {0u, 1u, 2u, 3u, 100u, 1000u}) {
      std::vector<uint64_t> set;
      const uint64_t mask =
          universe == 64 ? ~0ull : (uint64_t{1} << universe) - 1;
      for (size_t i = 0; i < n; ++i) set.push_back(rng() & mask);
      if (universe < 64) set.push_back(mask);  // the largest value
      SortUniqueHashes(&set);
      std::vector<uint64_t> decoded;
      const absl::Status status =
          DecodeShingleSet(EncodeShingleSet(set, universe), &decoded, universe);
      ASSERT_TRUE(status.ok()) << universe << " bits, " << n << ": " << status;
      EXPECT_EQ(decoded, set) << universe << " bits, " << n;
    }
  }
}

TEST(ShingleSet, ThirtyTwoBitHashesTakeAboutTwentySixBitsEach) {
  std::vector<uint64_t> set = RandomSet(250, 9);
  NarrowEvidence(32, &set);
  const size_t bytes = EncodeShingleSet(set, 32).size();
  // L = 32 - bit_width(249) = 24 low bits, ~2 high: ~3.25 bytes each.
  EXPECT_LT(bytes, 250 * 3.4);
  EXPECT_GT(bytes, 250 * 3.0);
}

TEST(ShingleSet, AValueAboveTheUniverseOrABadUniverseIsRefused) {
  std::vector<uint64_t> out;
  // Encoded for 64 bits, read as 32: 2^40 does not fit.
  const std::string wide = EncodeShingleSet({{1, 1ull << 40}}, 64);
  EXPECT_FALSE(DecodeShingleSet(wide, &out, 32).ok());
  // A 32-bit encoding whose one value's high part runs past 2^32: n = 1,
  // L = 31 zero bits, then the unary high part 2 (bit 33).
  const std::string too_high =
      std::string("\x01", 1) + std::string(4, '\0') + std::string("\x02", 1);
  EXPECT_THAT(DecodeShingleSet(too_high, &out, 32).message(),
              HasSubstr("out of range"));
  EXPECT_THAT(DecodeShingleSet("\x00", &out, 0).message(),
              HasSubstr("not 1..64"));
  EXPECT_THAT(DecodeShingleSet("\x00", &out, 65).message(),
              HasSubstr("not 1..64"));
}

TEST(ShingleSet, NarrowEvidenceKeepsTheTopBitsSortedAndDistinct) {
  std::vector<uint64_t> set = {0x0000000100000000ull, 0x00000001FFFFFFFFull,
                               0x0000000200000000ull, 0xFFFFFFFF00000001ull};
  NarrowEvidence(32, &set);
  EXPECT_EQ(set, (std::vector<uint64_t>{1, 2, 0xFFFFFFFFull}));
  std::vector<uint64_t> wide = {3, 4};
  NarrowEvidence(64, &wide);
  EXPECT_EQ(wide, (std::vector<uint64_t>{3, 4}));
  EXPECT_TRUE(ValidEvidenceBits(32));
  EXPECT_TRUE(ValidEvidenceBits(64));
  EXPECT_FALSE(ValidEvidenceBits(16));
  EXPECT_FALSE(ValidEvidenceBits(0));
}

// A dense set of narrow hashes takes a few bits a value (2^26 32-bit ones
// fit in 64 MiB), so the count a caller allows is checked before the
// values are allocated.
TEST(ShingleSet, ACountOverTheLimitIsRefusedBeforeDecoding) {
  std::vector<uint64_t> dense(5000);
  for (uint64_t i = 0; i < dense.size(); ++i) dense[i] = i * 3;
  const std::string bytes = EncodeShingleSet(dense, 32);
  std::vector<uint64_t> out;
  EXPECT_OK(DecodeShingleSet(bytes, &out, 32, 5000));
  EXPECT_EQ(out, dense);
  const absl::Status refused = DecodeShingleSet(bytes, &out, 32, 4999);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr("over the limit of 4999"));
}

// Frozen: stamped on stored evidence.
TEST(ShingleSet, EvidenceConfigHashIsTheMinHashOneAt64Bits) {
  EXPECT_EQ(EvidenceConfigHash(0x0123456789abcdefull, 64),
            0x0123456789abcdefull);
  EXPECT_EQ(EvidenceConfigHash(0x0123456789abcdefull, 32),
            0xb154ba18c7355b6dull);
}

TEST(ShingleSet, SpendsAboutLowBitsPlusTwoPerHash) {
  const std::vector<uint64_t> set = RandomSet(512, 7);
  const size_t bytes = EncodeShingleSet(set).size();
  // L = 64 - bit_width(511) = 55 bits low, ~2 bits high: ~7.2 bytes each.
  EXPECT_LT(bytes, 512 * 7.4);
  EXPECT_GT(bytes, 512 * 7.0);
}

TEST(ShingleSet, CorruptEncodingsAreErrorsNotCrashes) {
  const std::string good = EncodeShingleSet(RandomSet(300, 3));
  std::vector<uint64_t> out;
  // Every truncation fails cleanly.
  for (size_t len = 0; len < good.size(); ++len) {
    EXPECT_FALSE(DecodeShingleSet(good.substr(0, len), &out).ok()) << len;
  }
  EXPECT_THAT(DecodeShingleSet(good + "x", &out).message(),
              HasSubstr("trailing"));
  // A count far beyond the bytes is refused before allocating.
  EXPECT_THAT(DecodeShingleSet("\xff\xff\xff\xff\x0f", &out).message(),
              HasSubstr("count"));
  // Values out of order: the encoder does not check, so feed it {7, 5}
  // (both high parts 0, low parts 7 then 5).
  const std::vector<uint64_t> unsorted = {7, 5};
  EXPECT_THAT(DecodeShingleSet(EncodeShingleSet(unsorted), &out).message(),
              HasSubstr("out of order"));
  // One value (63 low bits) whose unary high part is 2: past 2^64.
  const std::string too_high =
      std::string("\x01", 1) + std::string(8, '\0') + std::string("\x02", 1);
  EXPECT_THAT(DecodeShingleSet(too_high, &out).message(),
              HasSubstr("out of range"));
  // Random bytes never crash (and mostly fail).
  std::mt19937 rng(1);
  for (int i = 0; i < 2000; ++i) {
    std::string bytes(rng() % 64, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    (void)DecodeShingleSet(bytes, &out);
  }
}

// The bucketed sort against std::sort, on random values, values crowded
// into one bucket (crafted hashes) and duplicates.
TEST(ShingleSet, SortUniqueHashesMatchesStdSort) {
  std::mt19937_64 rng(9);
  for (size_t n : {0, 1, 63, 64, 65, 300, 5000, 70000}) {
    for (int shape = 0; shape < 3; ++shape) {
      std::vector<uint64_t> values(n);
      for (uint64_t& v : values) {
        v = rng();
        if (shape == 1) v >>= 40;        // all in the lowest bucket
        if (shape == 2) v = rng() % 50;  // many duplicates
      }
      std::vector<uint64_t> expected = values;
      std::sort(expected.begin(), expected.end());
      expected.erase(std::unique(expected.begin(), expected.end()),
                     expected.end());
      std::vector<uint64_t> in_place = values;
      SortUniqueHashes(&values);
      EXPECT_EQ(values, expected) << n << " shape " << shape;
      // The span form leaves the set at the front of memory it cannot resize.
      const size_t distinct = SortUniqueHashes(std::span<uint64_t>(in_place));
      in_place.resize(distinct);
      EXPECT_EQ(in_place, expected) << n << " shape " << shape;
    }
  }
}

TEST(ShingleSet, ExactJaccard64) {
  const std::vector<uint64_t> a = {1, 2, 3, 4};
  const std::vector<uint64_t> b = {3, 4, 5, 6, 7};
  EXPECT_DOUBLE_EQ(ExactJaccard64(a, b), 2.0 / 7.0);
  EXPECT_DOUBLE_EQ(ExactJaccard64(a, a), 1.0);
  EXPECT_DOUBLE_EQ(ExactJaccard64({}, a), 0.0);
  EXPECT_DOUBLE_EQ(ExactJaccard64({}, {}), 1.0);
}

// The evidence comes from the hashes the signature is made of: the same set
// a second tokenization (TokenSet) gives, and the same signature.
TEST(ShingleSet, FingerprintEvidenceMatchesTheTokenSet) {
  ASSERT_OK_AND_ASSIGN(const MinHasher hasher, MinHasher::Create());
  const std::string text =
      "The quick brown fox jumps over the lazy dog; the quick brown fox "
      "jumps over the lazy dog again, and once more the quick brown fox.";
  std::vector<uint64_t> shingles;
  ASSERT_OK_AND_ASSIGN(const MinHashSignature with,
                       hasher.Fingerprint(text, &shingles));
  ASSERT_OK_AND_ASSIGN(const MinHashSignature without,
                       hasher.Fingerprint(text));
  EXPECT_EQ(with, without);
  ASSERT_OK_AND_ASSIGN(const std::vector<Hash128> set, hasher.TokenSet(text));
  std::vector<uint64_t> lows;
  for (const Hash128& h : set) lows.push_back(h.lo);
  SortUniqueHashes(&lows);
  EXPECT_EQ(shingles, lows);
  EXPECT_TRUE(std::is_sorted(shingles.begin(), shingles.end()));
}

// The loose estimate filter of exact verification: a pair at exactly the
// threshold falls below it with probability <= 1e-6.
TEST(EstimateFloorForExact, BinomialLowerTail) {
  for (int h : {64, 128, 256}) {
    double previous = 0;
    for (double t = 0.3; t < 0.96; t += 0.05) {
      const double floor = EstimateFloorForExact(t, h);
      EXPECT_LT(floor, t) << h << " " << t;
      EXPECT_GE(floor, previous);
      previous = floor;
      // Independent check of the tail at the chosen count c = floor * h.
      const int c = static_cast<int>(std::lround(floor * h));
      double below = 0;
      for (int k = 0; k < c; ++k) {
        below += std::exp(std::lgamma(h + 1.0) - std::lgamma(k + 1.0) -
                          std::lgamma(h - k + 1.0) + k * std::log(t) +
                          (h - k) * std::log(1 - t));
      }
      EXPECT_LE(below, 1e-6) << h << " " << t;
    }
  }
  // 0.8 over 128 slots: 102 equal slots expected, 81 still let through.
  EXPECT_NEAR(EstimateFloorForExact(0.8, 128), 81.0 / 128, 2.0 / 128);
}

}  // namespace
}  // namespace neardup
