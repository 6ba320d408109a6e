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

TEST(CollectionConfig, DefaultsDeriveBandsFromThreshold) {
  auto config = NormalizeCollectionConfig({});
  ASSERT_OK(config);
  EXPECT_EQ(config->lsh, (LshParams{8, 16}));  // t = 0.8, H = 128
  CollectionConfig loose;
  loose.threshold = 0.5;
  EXPECT_EQ(NormalizeCollectionConfig(loose)->lsh, (LshParams{32, 4}));
}

TEST(CollectionConfig, ExplicitBandsAreKept) {
  CollectionConfig config;
  config.lsh = {16, 8};
  EXPECT_EQ(NormalizeCollectionConfig(config)->lsh, (LshParams{16, 8}));
  config.lsh = {16, 16};
  EXPECT_THAT(ErrorOf(config).message(), HasSubstr("16 x 16"));
}

TEST(CollectionConfig, RejectsBadFields) {
  CollectionConfig config;
  config.num_perm = 100;
  EXPECT_THAT(ErrorOf(config).message(), HasSubstr("num_perm"));
  config = {};
  config.threshold = 1.0;
  EXPECT_THAT(ErrorOf(config).message(), HasSubstr("threshold"));
  config = {};
  config.verify_bits = 8;
  EXPECT_THAT(ErrorOf(config).message(), HasSubstr("verify_bits"));
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

}  // namespace
}  // namespace neardup
