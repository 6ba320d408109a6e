#include "neardup/core/index/lsh_params.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "neardup/core/hash.h"
#include "support/status_matchers.h"

namespace neardup {
namespace {

using ::neardup::testing::StatusIs;
using ::testing::_;
using ::testing::HasSubstr;

TEST(LshParamsForThreshold, MatchesTxtfpChoicesForH128) {
  const std::pair<double, LshParams> expected[] = {
      {0.5, {32, 4}}, {0.7, {16, 8}}, {0.8, {8, 16}}, {0.9, {4, 32}}};
  for (const auto& [threshold, params] : expected) {
    auto got = LshParamsForThreshold(threshold, 128);
    ASSERT_OK(got);
    EXPECT_EQ(*got, params)
        << "t=" << threshold << " got " << got->bands << "x" << got->rows;
  }
}

TEST(LshParamsForThreshold, AlwaysDividesH) {
  for (int h : {64, 128, 256}) {
    for (double t = 0.05; t < 1.0; t += 0.05) {
      auto got = LshParamsForThreshold(t, h);
      ASSERT_OK(got);
      EXPECT_EQ(got->bands * got->rows, h);
      EXPECT_OK(ValidateLshParams(*got, h));
    }
  }
}

TEST(LshParamsForThreshold, HigherThresholdMeansFewerBands) {
  int previous_bands = 1 << 30;
  for (double t = 0.1; t < 0.96; t += 0.05) {
    auto got = LshParamsForThreshold(t, 128);
    ASSERT_OK(got);
    EXPECT_LE(got->bands, previous_bands) << "t=" << t;
    previous_bands = got->bands;
  }
}

// Pinned: a change here changes the banding of every new collection.
// datasketch's choice: any b x r that fits, weighted (the Python package's
// tests hold it to datasketch's own integration of the same choice).
TEST(LshParamsWeighted, ChoosesAmongEveryFittingBanding) {
  for (const double t : {0.5, 0.7, 0.9}) {
    ASSERT_OK_AND_ASSIGN(const LshParams weighted,
                         LshParamsWeighted(t, 128, 0.5, 0.5));
    EXPECT_LE(weighted.slots_used(), 128);
    // It chooses among more bandings than the divisors, so it is never
    // worse than their best (equal weights: the same error measure).
    ASSERT_OK_AND_ASSIGN(const LshParams divisor,
                         LshParamsForThreshold(t, 128));
    auto error = [&](const LshParams& p) {
      return CandidateAreaBelow(t, p) +
             ((1.0 - t) -
              (CandidateAreaBelow(1.0, p) - CandidateAreaBelow(t, p)));
    };
    EXPECT_LE(error(weighted), error(divisor) + 1e-4) << t;
  }
  // Weighing false negatives more buys more bands.
  ASSERT_OK_AND_ASSIGN(const LshParams even,
                       LshParamsWeighted(0.7, 128, 0.5, 0.5));
  ASSERT_OK_AND_ASSIGN(const LshParams recall,
                       LshParamsWeighted(0.7, 128, 0.1, 0.9));
  EXPECT_GT(LshCandidateProbability(0.7, recall),
            LshCandidateProbability(0.7, even));
  EXPECT_THAT(
      LshParamsWeighted(0.7, 128, -1, 1).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("weights")));
  EXPECT_THAT(LshParamsWeighted(0.7, 128, 0, 0).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, _));
  EXPECT_THAT(LshParamsWeighted(1.0, 128, 0.5, 0.5).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, _));
}

TEST(LshParamsRecallFirst, ChoicesForH128) {
  const std::pair<double, LshParams> expected[] = {
      {0.4, {31, 2}}, {0.5, {40, 3}}, {0.6, {22, 3}},
      {0.7, {20, 4}}, {0.8, {18, 6}}, {0.9, {11, 9}}};
  for (const auto& [floor, params] : expected) {
    ASSERT_OK_AND_ASSIGN(const LshParams got, LshParamsRecallFirst(floor, 128));
    EXPECT_EQ(got, params) << "floor " << floor << " got " << got.bands << "x"
                           << got.rows;
  }
}

// The definition, checked by brute force over every b x r <= H.
TEST(LshParamsRecallFirst, IsTheLeastAreaBandingThatReachesTheFloor) {
  for (int h : {64, 128, 256}) {
    for (double floor = 0.2; floor < 0.96; floor += 0.05) {
      ASSERT_OK_AND_ASSIGN(const LshParams got, LshParamsRecallFirst(floor, h));
      EXPECT_LE(got.slots_used(), h);
      EXPECT_GE(LshCandidateProbability(floor, got), kRecallFloorProbability);
      const double area = CandidateAreaBelow(floor, got);
      for (int rows = 1; rows <= h; ++rows) {
        for (int bands = 1; bands * rows <= h; ++bands) {
          const LshParams other{bands, rows};
          if (LshCandidateProbability(floor, other) < kRecallFloorProbability) {
            continue;
          }
          EXPECT_GE(CandidateAreaBelow(floor, other), area)
              << "H=" << h << " floor " << floor << ": " << bands << "x" << rows
              << " beats " << got.bands << "x" << got.rows;
        }
      }
    }
  }
}

TEST(LshParamsRecallFirst, RefusesAFloorNoBandingReaches) {
  // One band per slot: P(0.01) = 1 - 0.99^128 = 0.72 < 0.995.
  auto got = LshParamsRecallFirst(0.01, 128);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(got.status().message(), HasSubstr("lowest floor 128 slots"));
  EXPECT_FALSE(LshParamsRecallFirst(0, 128).ok());
  EXPECT_FALSE(LshParamsRecallFirst(1, 128).ok());
}

// A query may leave out bands while the rest still reach the probability:
// the default banding (20 x 4, built for the floor 0.7) keeps every band at
// 0.7 and may drop 9 at the default threshold 0.8.
TEST(SkippableBands, KeepsEnoughBandsForTheProbability) {
  const LshParams lsh = {20, 4};
  EXPECT_EQ(SkippableBands(lsh, 0.7, kRecallFloorProbability), 0);
  EXPECT_EQ(SkippableBands(lsh, 0.8, kRecallFloorProbability), 9);
  EXPECT_EQ(SkippableBands(lsh, 0.75, kRecallFloorProbability), 6);
  EXPECT_EQ(SkippableBands(lsh, 1.0, kRecallFloorProbability), 19);
  for (const double s : {0.7, 0.75, 0.8, 0.9}) {
    const int k = SkippableBands(lsh, s, kRecallFloorProbability);
    EXPECT_GE(LshCandidateProbability(s, {lsh.bands - k, lsh.rows}),
              kRecallFloorProbability)
        << s;
    if (k < lsh.bands - 1) {
      EXPECT_LT(LshCandidateProbability(s, {lsh.bands - k - 1, lsh.rows}),
                kRecallFloorProbability)
          << s;
    }
  }
  // Never below what the whole banding reaches, nor for nothing.
  EXPECT_EQ(SkippableBands(lsh, 0.5, kRecallFloorProbability), 0);
  EXPECT_EQ(SkippableBands(lsh, 0.0, kRecallFloorProbability), 0);
  EXPECT_EQ(SkippableBands(lsh, -1.0, kRecallFloorProbability), 0);
}

TEST(BandingRule, NamesRoundTrip) {
  for (BandingRule rule : {BandingRule::kRecallFirst, BandingRule::kTxtfp}) {
    EXPECT_EQ(*ParseBandingRule(BandingRuleName(rule)), rule);
  }
  EXPECT_FALSE(ParseBandingRule("fastest").ok());
}

TEST(LshParamsForThreshold, RejectsOutOfRange) {
  for (double t : {0.0, 1.0, -0.5, 1.5, std::nan("")}) {
    auto got = LshParamsForThreshold(t, 128);
    ASSERT_FALSE(got.ok()) << t;
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(got.status().message(), HasSubstr("threshold"));
  }
  EXPECT_FALSE(LshParamsForThreshold(0.5, 0).ok());
}

TEST(ValidateLshParams, BandsCoverAtMostH) {
  EXPECT_OK(ValidateLshParams({16, 8}, 128));
  EXPECT_OK(ValidateLshParams({20, 4}, 128));  // 80 of 128 slots
  EXPECT_FALSE(ValidateLshParams({16, 16}, 128).ok());
  EXPECT_FALSE(ValidateLshParams({129, 1}, 128).ok());
  EXPECT_FALSE(ValidateLshParams({0, 128}, 128).ok());
  EXPECT_THAT(ValidateLshParams({13, 11}, 128).message(), HasSubstr("13 x 11"));
}

TEST(ValidateLshParams, ProductIsComputedWithoutOverflow) {
  // Each of these multiplies to 128 (or to a multiple of 2^32 plus 128) in
  // 32-bit arithmetic.
  EXPECT_FALSE(ValidateLshParams({128, 33554433}, 128).ok());
  EXPECT_FALSE(ValidateLshParams({33554433, 128}, 128).ok());
  EXPECT_FALSE(ValidateLshParams({-128, -1}, 128).ok());
  EXPECT_FALSE(ValidateLshParams({2147483647, 2147483647}, 128).ok());
}

TEST(ValidateLshParams, NumPermHasARange) {
  EXPECT_OK(ValidateLshParams({1, kMaxNumPerm}, kMaxNumPerm));
  EXPECT_FALSE(ValidateLshParams({1, 0}, 0).ok());
  EXPECT_THAT(ValidateLshParams({2, kMaxNumPerm}, 2 * kMaxNumPerm).message(),
              HasSubstr("num_perm must be in [1, 1024]"));
}

TEST(LshCandidateProbability, SCurveEnds) {
  const LshParams p{16, 8};
  EXPECT_DOUBLE_EQ(LshCandidateProbability(0.0, p), 0.0);
  EXPECT_DOUBLE_EQ(LshCandidateProbability(1.0, p), 1.0);
  // 1 - (1 - 0.5^8)^16
  EXPECT_NEAR(LshCandidateProbability(0.5, p), 0.0607, 1e-4);
}

TEST(BandKey, IsXxh3OfLittleEndianSlotBytes) {
  const uint64_t slots[4] = {0x0102030405060708ULL, 0, ~0ULL,
                             0x00C0FFEE5EEDULL};
  std::string bytes;
  for (uint64_t slot : slots) {
    for (int i = 0; i < 8; ++i) bytes.push_back(char((slot >> (8 * i)) & 0xFF));
  }
  EXPECT_EQ(BandKey(slots, 4), Xxh3Hash64(bytes));
  EXPECT_EQ(BandKey(slots, 1), Xxh3Hash64(bytes.substr(0, 8)));
  // XXH3_64bits of the empty input, seed 0: a published constant.
  EXPECT_EQ(BandKey(slots, 0), 0x2D06800538D394C2ULL);
}

}  // namespace
}  // namespace neardup
