#include "neardup/core/stateless.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "neardup/core/collection_fingerprinter.h"
#include "neardup/core/shingle_set.h"
#include "support/status_matchers.h"

namespace neardup {
namespace {

using ::neardup::testing::StatusIs;
using ::testing::_;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

constexpr std::string_view kA =
    "The committee met on Tuesday to review the budget for the coming year "
    "and agreed to fund the new library wing before the winter session.";
constexpr std::string_view kB =
    "The committee met on Tuesday to review the budget for the coming year "
    "and agreed to fund the new museum wing before the spring session.";

StatelessOptions Of(FingerprintKind kind) {
  StatelessOptions options;
  options.kind = kind;
  return options;
}

// A collection's kind fingerprints exactly what the collection stores.
TEST(Stateless, CollectionKindIsWhatTheCollectionStores) {
  CollectionConfig config;
  config.simhash_enabled = true;
  config.kept_families = {"tlsh"};
  ASSERT_OK_AND_ASSIGN(config, NormalizeCollectionConfig(config));
  ASSERT_OK_AND_ASSIGN(const CollectionFingerprinter fingerprinter,
                       CollectionFingerprinter::Create(config));
  StatelessOptions options = Of(FingerprintKind::kCollection);
  options.collection = config;
  ASSERT_OK_AND_ASSIGN(const TextFingerprint fp,
                       FingerprintText(options, {"text", kA}));
  std::vector<uint64_t> evidence;
  ASSERT_OK_AND_ASSIGN(const MinHashSignature minhash,
                       fingerprinter.MinHash(kA, &evidence));
  ASSERT_TRUE(fp.minhash.has_value());
  EXPECT_EQ(fp.minhash->slots, minhash.slots);
  EXPECT_EQ(fp.minhash_config_hash, fingerprinter.minhash_config_hash());
  EXPECT_EQ(fp.shingle_count, evidence.size());
  ASSERT_OK_AND_ASSIGN(const uint64_t simhash, fingerprinter.SimHash(kA));
  EXPECT_EQ(fp.simhash, simhash);
  EXPECT_EQ(fp.simhash_config_hash, fingerprinter.simhash_config_hash());
  EXPECT_EQ(fp.kept, fingerprinter.Kept(kA));
  ASSERT_EQ(fp.kept.size(), 1u);
  ASSERT_TRUE(fp.tlsh.has_value());  // the deprecated fields agree
  EXPECT_EQ(FormatTlsh(*fp.tlsh), fp.kept[0].value);
  EXPECT_EQ(fp.tlsh_config_hash, fp.kept[0].config_hash);

  // Without a config, the settings' shingled collection: no SimHash, TLSH.
  ASSERT_OK_AND_ASSIGN(
      const TextFingerprint plain,
      FingerprintText(Of(FingerprintKind::kCollection), {"text", kA}));
  ASSERT_TRUE(plain.minhash.has_value());
  EXPECT_EQ(plain.minhash->slots, minhash.slots);
  EXPECT_FALSE(plain.simhash.has_value());
  EXPECT_FALSE(plain.tlsh.has_value());
  EXPECT_TRUE(plain.kept.empty());
  EXPECT_TRUE(plain.tlsh_unavailable.empty());
}

TEST(Stateless, CollectionComparisonTakesEveryMeasure) {
  ASSERT_OK_AND_ASSIGN(
      const TextComparison compared,
      CompareTexts(Of(FingerprintKind::kCollection), {"a", kA}, {"b", kB}));
  ASSERT_OK_AND_ASSIGN(const CollectionConfig config,
                       NormalizeCollectionConfig({}));
  ASSERT_OK_AND_ASSIGN(const CollectionFingerprinter fingerprinter,
                       CollectionFingerprinter::Create(config));
  std::vector<uint64_t> set_a, set_b;
  ASSERT_OK_AND_ASSIGN(const MinHashSignature sig_a,
                       fingerprinter.MinHash(kA, &set_a));
  ASSERT_OK_AND_ASSIGN(const MinHashSignature sig_b,
                       fingerprinter.MinHash(kB, &set_b));
  ASSERT_OK_AND_ASSIGN(const double estimated, EstimateJaccard(sig_a, sig_b));
  EXPECT_EQ(compared.estimated_jaccard, estimated);
  EXPECT_EQ(compared.exact_jaccard, ExactJaccard64(set_a, set_b));
  EXPECT_GT(*compared.exact_jaccard, 0.3);
  EXPECT_LT(*compared.exact_jaccard, 1.0);
  ASSERT_TRUE(compared.hamming_distance.has_value());
  EXPECT_EQ(*compared.cosine_estimate,
            std::cos(M_PI * *compared.hamming_distance / 64));
  ASSERT_TRUE(compared.tlsh_distance.has_value());
  EXPECT_GT(*compared.tlsh_distance, 0);
  EXPECT_TRUE(compared.tlsh_unavailable.empty());
  // Every kept family, whatever the config keeps.
  EXPECT_THAT(compared.kept_distances,
              ElementsAre(KeptDistance{"tlsh", *compared.tlsh_distance}));
  EXPECT_THAT(compared.kept_unavailable, IsEmpty());
}

// A text too short for TLSH is not an error of a collection comparison: the
// reason names the text.
TEST(Stateless, UnavailableTlshIsAReasonNamingTheText) {
  ASSERT_OK_AND_ASSIGN(const TextComparison compared,
                       CompareTexts(Of(FingerprintKind::kCollection), {"a", kA},
                                    {"b", "a short text here"}));
  EXPECT_FALSE(compared.tlsh_distance.has_value());
  EXPECT_THAT(compared.tlsh_unavailable, StartsWith("b: "));
  EXPECT_THAT(compared.kept_distances, IsEmpty());
  ASSERT_EQ(compared.kept_unavailable.size(), 1u);
  EXPECT_EQ(compared.kept_unavailable[0].reason, compared.tlsh_unavailable);
  // Neither has one: the first is named.
  ASSERT_OK_AND_ASSIGN(
      const TextComparison neither,
      CompareTexts(Of(FingerprintKind::kCollection), {"a", "short one"},
                   {"b", "a short text here"}));
  EXPECT_THAT(neither.tlsh_unavailable, StartsWith("a: "));
  // Asked for TLSH itself, it is an error naming the text.
  EXPECT_THAT(
      CompareTexts(Of(FingerprintKind::kTlsh), {"first", "a short text here"},
                   {"second", kA})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("first: ")));
}

TEST(Stateless, ErrorsNameTheText) {
  for (FingerprintKind kind :
       {FingerprintKind::kCollection, FingerprintKind::kMinHash,
        FingerprintKind::kSimHash, FingerprintKind::kPerceptual}) {
    EXPECT_THAT(
        CompareTexts(Of(kind), {"a", kA}, {"path/b.txt", ""}).status(),
        StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("path/b.txt: ")))
        << static_cast<int>(kind);
  }
}

TEST(Stateless, RawTlshHashesTheBytesAsTheyAre) {
  const std::string upper = absl::AsciiStrToUpper(std::string(kA));
  ASSERT_OK_AND_ASSIGN(
      const TextComparison canonical,
      CompareTexts(Of(FingerprintKind::kTlsh), {"a", kA}, {"b", upper}));
  ASSERT_OK_AND_ASSIGN(
      const TextComparison raw,
      CompareTexts(Of(FingerprintKind::kTlshRaw), {"a", kA}, {"b", upper}));
  EXPECT_EQ(canonical.tlsh_distance, 0);  // case folded away
  EXPECT_GT(*raw.tlsh_distance, 0);
  EXPECT_EQ(raw.a.tlsh_config_hash, TlshFingerprinter::RawConfigHash());
  EXPECT_EQ(raw.a.canonicalizer, "raw");
  EXPECT_NE(canonical.a.tlsh_config_hash, raw.a.tlsh_config_hash);
}

TEST(Stateless, NewsbotBitsAreChecked) {
  StatelessOptions options = Of(FingerprintKind::kNewsbot);
  options.newsbot_bits = 128;
  ASSERT_OK_AND_ASSIGN(const TextComparison same,
                       CompareTexts(options, {"a", kA}, {"b", kA}));
  EXPECT_EQ(same.hamming_distance, 0);
  EXPECT_EQ(same.cosine_estimate, 1.0);
  EXPECT_EQ(same.a.newsbot->bits, 128);
  EXPECT_EQ(same.a.newsbot_config_hash, NewsbotConfigHash(128));
  options.newsbot_bits = 20;
  EXPECT_THAT(FingerprintText(options, {"a", kA}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, _));
}

TEST(Stateless, PerceptualComparesTheWinnowedSets) {
  StatelessOptions options = Of(FingerprintKind::kPerceptual);
  ASSERT_OK_AND_ASSIGN(const TextComparison compared,
                       CompareTexts(options, {"a", kA}, {"b", kB}));
  ASSERT_OK_AND_ASSIGN(
      const PerceptualHasher hasher,
      PerceptualHasher::Create(PerceptualConfigOf(options.settings, 4),
                               options.settings.canonicalizer));
  ASSERT_OK_AND_ASSIGN(const PerceptualFingerprint a,
                       hasher.Fingerprint(kA, true));
  ASSERT_OK_AND_ASSIGN(const PerceptualFingerprint b,
                       hasher.Fingerprint(kB, true));
  EXPECT_EQ(compared.exact_jaccard,
            ExactJaccard64(WinnowedSet(a), WinnowedSet(b)));
  EXPECT_EQ(compared.a.minhash->slots, a.minhash.slots);
  EXPECT_EQ(compared.a.perceptual->winnowed, a.meta.winnowed);
  EXPECT_EQ(compared.a.minhash_config_hash, hasher.config_hash());
  for (int window : {0, 1025}) {
    options.winnow_window = window;
    EXPECT_THAT(FingerprintText(options, {"a", kA}).status(),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("winnow_window")));
  }
}

// The SimHash kind follows the settings' shingles; a collection's SimHash
// is always over plain tokens.
TEST(Stateless, SimHashKindFollowsTheShingles) {
  StatelessOptions shingled = Of(FingerprintKind::kSimHash);
  shingled.settings.shingle_k = 3;
  ASSERT_OK_AND_ASSIGN(const TextFingerprint three,
                       FingerprintText(shingled, {"a", kA}));
  ASSERT_OK_AND_ASSIGN(
      const TextFingerprint plain,
      FingerprintText(Of(FingerprintKind::kSimHash), {"a", kA}));
  EXPECT_NE(three.simhash, plain.simhash);
  EXPECT_NE(three.simhash_tokenizer, plain.simhash_tokenizer);
  StatelessOptions collection = Of(FingerprintKind::kCollection);
  collection.settings.shingle_k = 3;
  ASSERT_OK_AND_ASSIGN(const TextComparison compared,
                       CompareTexts(collection, {"a", kA}, {"b", kA}));
  EXPECT_EQ(compared.a.simhash, plain.simhash);
}

}  // namespace
}  // namespace neardup
