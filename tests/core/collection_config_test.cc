#include "neardup/core/collection_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/status_matchers.h"

namespace neardup {
namespace {

using ::testing::HasSubstr;

absl::Status ErrorOf(CollectionConfig config) {
  return NormalizeCollectionConfig(std::move(config)).status();
}

TEST(CollectionConfig, DefaultsAreRecallFirstWithAFloorBelowTheThreshold) {
  auto config = NormalizeCollectionConfig({});
  ASSERT_OK(config);
  EXPECT_DOUBLE_EQ(config->min_threshold, 0.7);  // t = 0.8
  EXPECT_EQ(config->lsh, (LshParams{20, 4}));    // recall-first at 0.7
  EXPECT_EQ(config->verification, Verification::kExact);
  CollectionConfig loose;
  loose.threshold = 0.5;
  ASSERT_OK_AND_ASSIGN(const CollectionConfig normalized,
                       NormalizeCollectionConfig(loose));
  EXPECT_DOUBLE_EQ(normalized.min_threshold, 0.4);
  EXPECT_EQ(normalized.lsh, (LshParams{31, 2}));
  // Low thresholds keep the floor at half the threshold.
  CollectionConfig low;
  low.threshold = 0.15;
  EXPECT_DOUBLE_EQ(NormalizeCollectionConfig(low)->min_threshold, 0.075);
  // Normalizing is idempotent (stored records are checked that way).
  EXPECT_EQ(*NormalizeCollectionConfig(*config), *config);
}

TEST(CollectionConfig, TxtfpBandingAndExplicitBandsKeepTheThresholdAsFloor) {
  CollectionConfig txtfp;
  txtfp.banding = BandingRule::kTxtfp;
  ASSERT_OK_AND_ASSIGN(const CollectionConfig a,
                       NormalizeCollectionConfig(txtfp));
  EXPECT_EQ(a.lsh, (LshParams{8, 16}));
  EXPECT_DOUBLE_EQ(a.min_threshold, 0.8);
  CollectionConfig given;
  given.lsh = {16, 8};
  ASSERT_OK_AND_ASSIGN(const CollectionConfig b,
                       NormalizeCollectionConfig(given));
  EXPECT_DOUBLE_EQ(b.min_threshold, 0.8);
}

TEST(CollectionConfig, ExplicitFloorPicksTheBanding) {
  CollectionConfig config;
  config.min_threshold = 0.5;
  ASSERT_OK_AND_ASSIGN(const CollectionConfig normalized,
                       NormalizeCollectionConfig(config));
  EXPECT_EQ(normalized.lsh, (LshParams{40, 3}));
  config.min_threshold = 0.9;  // above the threshold
  EXPECT_THAT(ErrorOf(config).message(), HasSubstr("min_threshold"));
  config.min_threshold = 0.01;  // no banding of 128 slots reaches it
  EXPECT_THAT(ErrorOf(config).message(), HasSubstr("lowest floor"));
}

TEST(CollectionConfig, ExplicitBandsAreKept) {
  CollectionConfig config;
  config.lsh = {16, 8};
  EXPECT_EQ(NormalizeCollectionConfig(config)->lsh, (LshParams{16, 8}));
  config.lsh = {20, 4};  // fewer slots than H is fine
  EXPECT_EQ(NormalizeCollectionConfig(config)->lsh, (LshParams{20, 4}));
  config.lsh = {16, 16};
  EXPECT_THAT(ErrorOf(config).message(), HasSubstr("16 x 16"));
}

// Exact verification only filters by the index's score, so it keeps 8 bits
// a slot; estimate collections are decided by it and keep 16. Explicit
// widths stay.
TEST(CollectionConfig, SlotBitsDefaultByVerification) {
  CollectionConfig config;
  EXPECT_EQ(NormalizeCollectionConfig(config)->slot_bits, 8);
  config.verification = Verification::kEstimate;
  EXPECT_EQ(NormalizeCollectionConfig(config)->slot_bits, 16);
  for (const int bits : {8, 16, 32, 64}) {
    for (const Verification v :
         {Verification::kExact, Verification::kEstimate}) {
      config.verification = v;
      config.slot_bits = bits;
      EXPECT_EQ(NormalizeCollectionConfig(config)->slot_bits, bits);
    }
  }
}

// 32-bit evidence unless asked for 64; nothing else.
TEST(CollectionConfig, EvidenceBitsDefaultTo32AndAre32Or64) {
  CollectionConfig config;
  EXPECT_EQ(NormalizeCollectionConfig(config)->evidence_bits, 32);
  config.evidence_bits = 64;
  EXPECT_EQ(NormalizeCollectionConfig(config)->evidence_bits, 64);
  for (const int bits : {-1, 16, 48, 128}) {
    config.evidence_bits = bits;
    EXPECT_THAT(ErrorOf(config).message(), HasSubstr("evidence_bits")) << bits;
  }
}

TEST(CollectionConfig, RejectsBadFields) {
  CollectionConfig config;
  config.num_perm = 100;
  EXPECT_THAT(ErrorOf(config).message(), HasSubstr("num_perm"));
  config = {};
  config.threshold = 1.0;
  EXPECT_THAT(ErrorOf(config).message(), HasSubstr("threshold"));
  config = {};
  config.slot_bits = 12;
  EXPECT_THAT(ErrorOf(config).message(), HasSubstr("slot_bits"));
  config = {};
  config.minhash_tokenizer = "nope";
  EXPECT_THAT(ErrorOf(config).message(), HasSubstr("minhash tokenizer"));
  config = {};
  config.simhash_enabled = true;
  config.simhash_weighting = SimHashWeighting::kIdf;
  EXPECT_THAT(ErrorOf(config).message(), HasSubstr("idf"));
  config.simhash_weighting = SimHashWeighting::kTf;
  config.simhash_max_distance = 40;
  EXPECT_THAT(ErrorOf(config).message(), HasSubstr("simhash_max_distance"));
}

// Once accepted (128 x 33554433 wraps to 128 in 32-bit arithmetic), then
// crashed the server at the first query and at every start after it.
TEST(CollectionConfig, RejectsBandingWhoseProductWraps) {
  CollectionConfig config;
  config.lsh = {128, 33554433};
  EXPECT_EQ(ErrorOf(config).code(), absl::StatusCode::kInvalidArgument);
  config.lsh = {33554433, 128};
  EXPECT_EQ(ErrorOf(config).code(), absl::StatusCode::kInvalidArgument);
  config.lsh = {0, 128};
  EXPECT_EQ(ErrorOf(config).code(), absl::StatusCode::kInvalidArgument);
}

TEST(CollectionConfig, FingerprinterConfigsCarryTheFields) {
  CollectionConfig config;
  config.seed = 42;
  config.family = HashFamily::kMurmur3;
  config.num_perm = 64;
  const MinHashConfig minhash = MinHashConfigOf(config);
  EXPECT_EQ(minhash.seed, 42u);
  EXPECT_EQ(minhash.family, HashFamily::kMurmur3);
  EXPECT_EQ(minhash.num_perm, 64);
  EXPECT_EQ(minhash.tokenizer, config.minhash_tokenizer);
  const SimHashConfig simhash = SimHashConfigOf(config);
  EXPECT_EQ(simhash.tokenizer, "word-uax29");
  EXPECT_EQ(simhash.seed, 42u);
}

TEST(CollectionConfig, PerceptualTakesKFromTheTokenizerAndDefaultsTheWindow) {
  CollectionConfig config;
  config.minhash_algorithm = MinHashAlgorithm::kPerceptual;
  config.minhash_tokenizer = "shingle-k=9/word-uax29";
  ASSERT_OK_AND_ASSIGN(const CollectionConfig normalized,
                       NormalizeCollectionConfig(config));
  EXPECT_EQ(normalized.winnow_window, 4);
  const PerceptualConfig perceptual = PerceptualConfigOf(normalized);
  EXPECT_EQ(perceptual.k, 9);
  EXPECT_EQ(perceptual.w, 4);
  EXPECT_EQ(perceptual.minhash_len(), 128);
  EXPECT_EQ(perceptual.seed, config.seed);
  EXPECT_EQ(NormalizeCollectionConfig(normalized)->winnow_window, 4);
}

TEST(CollectionConfig, PerceptualRefusesWhatItCannotHonour) {
  CollectionConfig config;
  config.minhash_algorithm = MinHashAlgorithm::kPerceptual;
  config.family = HashFamily::kMurmur3;
  EXPECT_THAT(ErrorOf(config).message(), HasSubstr("XXH3"));
  config.family = HashFamily::kXxh3;
  config.minhash_tokenizer = "shingle-k=3/grapheme-uax29";
  EXPECT_THAT(ErrorOf(config).message(), HasSubstr("tokenizer must be word"));
  config.minhash_tokenizer = "shingle-k=3/word-uax29";
  config.winnow_window = 1025;
  EXPECT_THAT(ErrorOf(config).message(), HasSubstr("perceptual"));
  CollectionConfig shingled;
  shingled.winnow_window = 4;
  EXPECT_THAT(ErrorOf(shingled).message(), HasSubstr("winnow_window"));
}

TEST(CollectionConfig, NewsbotSimHashNeedsSimHashAndFixesItsFields) {
  CollectionConfig config;
  config.simhash_variant = SimHashVariant::kNewsbot;
  EXPECT_THAT(ErrorOf(config).message(), HasSubstr("needs SimHash on"));
  config.simhash_enabled = true;
  config.simhash_tokenizer = "grapheme-uax29";
  config.simhash_weighting = SimHashWeighting::kUniform;
  ASSERT_OK_AND_ASSIGN(const CollectionConfig normalized,
                       NormalizeCollectionConfig(config));
  EXPECT_EQ(normalized.simhash_tokenizer, CollectionConfig{}.simhash_tokenizer);
  EXPECT_EQ(normalized.simhash_weighting, SimHashWeighting::kTf);
}

TEST(CollectionConfig, FamilyNamesRoundTrip) {
  for (auto a : {MinHashAlgorithm::kShingled, MinHashAlgorithm::kPerceptual}) {
    EXPECT_EQ(*ParseMinHashAlgorithm(MinHashAlgorithmName(a)), a);
  }
  for (auto v : {SimHashVariant::kTxtfp, SimHashVariant::kNewsbot}) {
    EXPECT_EQ(*ParseSimHashVariant(SimHashVariantName(v)), v);
  }
  EXPECT_FALSE(ParseMinHashAlgorithm("tlsh").ok());
  EXPECT_FALSE(ParseSimHashVariant("md5").ok());
}

}  // namespace
}  // namespace neardup
