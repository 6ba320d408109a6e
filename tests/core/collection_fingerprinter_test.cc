#include "neardup/core/collection_fingerprinter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "neardup/core/config_hash.h"
#include "neardup/core/newsbot_simhash.h"
#include "neardup/core/shingle_set.h"
#include "neardup/core/tlsh.h"
#include "support/status_matchers.h"

namespace neardup {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

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
  // 32-bit evidence by default: the top halves of the 64-bit hashes.
  ASSERT_EQ(config.evidence_bits, 32);
  std::vector<uint64_t> narrowed;
  for (const uint64_t hash : expected_evidence) narrowed.push_back(hash >> 32);
  EXPECT_EQ(evidence, narrowed);
  CollectionConfig wide = config;
  wide.evidence_bits = 64;
  ASSERT_OK(Make(wide).MinHash(kText, &evidence));
  EXPECT_EQ(evidence, expected_evidence);
  EXPECT_EQ(Make(wide).minhash_config_hash(), minhasher.config_hash());
  EXPECT_FALSE(fingerprinter.has_simhash());
  EXPECT_EQ(fingerprinter.simhash_config_hash(), 0u);
  EXPECT_THAT(fingerprinter.kept_config_hashes(), IsEmpty());
  EXPECT_EQ(fingerprinter.SimHash(kText).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(fingerprinter.Kept(kText), IsEmpty());
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
  std::vector<uint64_t> winnowed = WinnowedSet(expected);
  NarrowEvidence(32, &winnowed);
  EXPECT_EQ(evidence, winnowed);
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
  config.kept_families = {"tlsh"};
  const CollectionFingerprinter fingerprinter = Make(config);
  const TlshFingerprinter reference = *TlshFingerprinter::Create();
  EXPECT_THAT(fingerprinter.kept_config_hashes(),
              ElementsAre(KeptConfigHash{"tlsh", reference.config_hash()}));
  EXPECT_THAT(
      fingerprinter.Kept(kText),
      ElementsAre(KeptValue{"tlsh", FormatTlsh(*reference.Fingerprint(kText)),
                            reference.config_hash()}));
  // A text too short has none, and the reason says why.
  std::vector<KeptUnavailable> unavailable;
  EXPECT_THAT(fingerprinter.Kept("short", &unavailable), IsEmpty());
  ASSERT_EQ(unavailable.size(), 1u);
  EXPECT_EQ(unavailable[0].family, "tlsh");
  EXPECT_THAT(unavailable[0].reason, HasSubstr("at least 50 bytes"));
}

}  // namespace
}  // namespace neardup
