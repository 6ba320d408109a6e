#include "neardup/core/collection_fingerprinter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "neardup/core/config_hash.h"
#include "neardup/core/newsbot_simhash.h"
#include "support/status_matchers.h"

namespace neardup {
namespace {

constexpr std::string_view kText =
    "The committee met on Tuesday to review the budget for the coming year "
    "and agreed to fund the new library wing before the winter session.";

CollectionFingerprinter Make(CollectionConfig config) {
  absl::StatusOr<CollectionConfig> normalized =
      NormalizeCollectionConfig(std::move(config));
  EXPECT_TRUE(normalized.ok()) << normalized.status();
  absl::StatusOr<CollectionFingerprinter> made =
      CollectionFingerprinter::Create(*normalized);
  EXPECT_TRUE(made.ok()) << made.status();
  return *std::move(made);
}

TEST(CollectionFingerprinter, ShingledIsTheCollectionsMinHasher) {
  const CollectionConfig config = *NormalizeCollectionConfig({});
  const CollectionFingerprinter fingerprinter = Make(config);
  const MinHasher minhasher = *MinHasher::Create(MinHashConfigOf(config));
  EXPECT_EQ(fingerprinter.minhash_config_hash(), minhasher.config_hash());
  std::vector<uint64_t> evidence, expected_evidence;
  ASSERT_OK_AND_ASSIGN(const MinHashSignature sig,
                       fingerprinter.MinHash(kText, &evidence));
  EXPECT_EQ(sig, *minhasher.Fingerprint(kText, &expected_evidence));
  EXPECT_EQ(evidence, expected_evidence);
  EXPECT_FALSE(fingerprinter.has_simhash());
  EXPECT_FALSE(fingerprinter.has_tlsh());
  EXPECT_EQ(fingerprinter.simhash_config_hash(), 0u);
  EXPECT_EQ(fingerprinter.tlsh_config_hash(), 0u);
  EXPECT_EQ(fingerprinter.SimHash(kText).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(fingerprinter.Tlsh(kText).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(CollectionFingerprinter, PerceptualSignsWithItsOwnHashAndWinnowedSet) {
  CollectionConfig config;
  config.minhash_algorithm = MinHashAlgorithm::kPerceptual;
  config.minhash_tokenizer = "shingle-k=9/word-uax29";
  const CollectionFingerprinter fingerprinter = Make(config);
  // The default perceptual config (k 9, w 4, 16 x 8, txtfp's seed).
  const PerceptualHasher reference = *PerceptualHasher::Create();
  EXPECT_EQ(FormatHex64(fingerprinter.minhash_config_hash()),
            "ff89768ae430ea5b");
  ASSERT_OK_AND_ASSIGN(const PerceptualFingerprint expected,
                       reference.Fingerprint(kText, true));
  std::vector<uint64_t> evidence;
  ASSERT_OK_AND_ASSIGN(const MinHashSignature sig,
                       fingerprinter.MinHash(kText, &evidence));
  EXPECT_EQ(sig, expected.minhash);
  EXPECT_EQ(evidence, WinnowedSet(expected));
  EXPECT_EQ(*fingerprinter.MinHash(kText), expected.minhash);
  EXPECT_NE(fingerprinter.minhash_config_hash(),
            Make({}).minhash_config_hash());
  // Fewer words than k: refused, not fingerprinted as something else.
  EXPECT_EQ(fingerprinter.MinHash("too few words here").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(CollectionFingerprinter, NewsbotSimHashIsNewsbotsSixtyFourBits) {
  CollectionConfig config;
  config.simhash_enabled = true;
  config.simhash_variant = SimHashVariant::kNewsbot;
  const CollectionFingerprinter fingerprinter = Make(config);
  EXPECT_TRUE(fingerprinter.has_simhash());
  EXPECT_EQ(fingerprinter.simhash_config_hash(), NewsbotConfigHash(64));
  ASSERT_OK_AND_ASSIGN(const uint64_t simhash,
                       fingerprinter.SimHash("The quick brown fox"));
  EXPECT_EQ(FormatHex64(simhash), "2c02008001828212");  // newsbot golden
  config.simhash_variant = SimHashVariant::kTxtfp;
  EXPECT_NE(Make(config).simhash_config_hash(), NewsbotConfigHash(64));
  EXPECT_NE(*Make(config).SimHash("The quick brown fox"), simhash);
}

TEST(CollectionFingerprinter, TlshOverTheCollectionsCanonicalText) {
  CollectionConfig config;
  config.keep_tlsh = true;
  const CollectionFingerprinter fingerprinter = Make(config);
  const TlshFingerprinter reference = *TlshFingerprinter::Create();
  EXPECT_TRUE(fingerprinter.has_tlsh());
  EXPECT_EQ(fingerprinter.tlsh_config_hash(), reference.config_hash());
  EXPECT_EQ(*fingerprinter.Tlsh(kText), *reference.Fingerprint(kText));
  EXPECT_EQ(fingerprinter.Tlsh("short").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace neardup
