#include "neardup/server/internal/proto_convert.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "neardup/core/minhash.h"
#include "neardup/core/simhash.h"
#include "neardup/proto/kept_proto.h"
#include "support/status_matchers.h"

// The deprecated verify_bits is set on purpose (its old name must work).
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace neardup::server {
namespace {

using ::testing::HasSubstr;

// txtfp's fingerprints, neardup's banding and verification.
TEST(ConfigFromProto, EmptyMeansTxtfpFingerprintsWithRecallFirstBanding) {
  auto config = ConfigFromProto({});
  ASSERT_OK(config);
  EXPECT_EQ(config->minhash_tokenizer, "shingle-k=5/word-uax29");
  EXPECT_EQ(config->num_perm, 128);
  EXPECT_EQ(config->threshold, 0.8);
  EXPECT_DOUBLE_EQ(config->min_threshold, 0.7);
  EXPECT_EQ(config->banding, BandingRule::kRecallFirst);
  EXPECT_EQ(config->lsh, (LshParams{20, 4}));
  EXPECT_EQ(config->verification, Verification::kExact);
  auto hasher = MinHasher::Create(MinHashConfigOf(*config));
  ASSERT_OK(hasher);
  // txtfp's default MinHash config hash.
  EXPECT_EQ(hasher->config_hash(), 0x1ffc8214c1e9e9dbULL);
  auto simhasher = SimHasher::Create(SimHashConfigOf(*config));
  EXPECT_EQ(simhasher->config_hash(), 0xcd2b56b620c8dd97ULL);
}

TEST(ConfigFromProto, MapsEveryField) {
  v1::FingerprintConfig proto;
  proto.mutable_canonicalizer()->set_normalization(
      v1::CanonicalizerOptions::NORMALIZATION_NFC);
  proto.mutable_canonicalizer()->set_keep_bidi_controls(true);
  proto.mutable_canonicalizer()->set_confusable_skeleton(true);
  proto.set_tokenizer("grapheme");
  proto.set_shingle_k(3);
  proto.set_num_perm(64);
  proto.set_seed(7);
  proto.set_hash_family(v1::HASH_FAMILY_MURMUR3);
  proto.set_threshold(0.7);
  proto.set_min_threshold(0.6);
  proto.set_banding(v1::BANDING_TXTFP);
  proto.set_verification(v1::VERIFICATION_ESTIMATE);
  proto.set_bands(16);
  proto.set_rows(4);
  proto.set_slot_bits(64);
  proto.set_evidence_bits(64);
  proto.set_simhash(true);
  proto.set_simhash_weighting(v1::SIMHASH_WEIGHTING_UNIFORM);
  proto.set_simhash_max_distance(5);
  proto.set_store_text(true);
  auto config = ConfigFromProto(proto);
  ASSERT_OK(config);
  EXPECT_EQ(config->canonicalizer.normalization, Normalization::kNfc);
  EXPECT_FALSE(config->canonicalizer.strip_bidi);
  EXPECT_TRUE(config->canonicalizer.strip_format);
  EXPECT_TRUE(config->canonicalizer.confusable_skeleton);
  EXPECT_EQ(config->minhash_tokenizer, "shingle-k=3/grapheme-uax29");
  EXPECT_EQ(config->simhash_tokenizer, "grapheme-uax29");
  EXPECT_EQ(config->seed, 7u);
  EXPECT_EQ(config->family, HashFamily::kMurmur3);
  EXPECT_EQ(config->lsh, (LshParams{16, 4}));
  EXPECT_DOUBLE_EQ(config->min_threshold, 0.6);
  EXPECT_EQ(config->banding, BandingRule::kTxtfp);
  EXPECT_EQ(config->verification, Verification::kEstimate);
  EXPECT_EQ(config->slot_bits, 64);
  EXPECT_EQ(config->evidence_bits, 64);
  EXPECT_EQ(config->simhash_weighting, SimHashWeighting::kUniform);
  EXPECT_EQ(config->simhash_max_distance, 5);
  EXPECT_TRUE(config->store_text);
  // And back: the filled-in proto converts to the same config.
  auto again = ConfigFromProto(ConfigToProto(*config));
  ASSERT_OK(again);
  EXPECT_EQ(*again, *config);
}

TEST(ConfigFromProto, RobustProfileSetsItsSwitchesAndRoundTrips) {
  v1::FingerprintConfig proto;
  proto.mutable_canonicalizer()->set_profile(
      v1::CanonicalizerOptions::PROFILE_ROBUST);
  ASSERT_OK_AND_ASSIGN(const CollectionConfig config, ConfigFromProto(proto));
  EXPECT_EQ(config.canonicalizer, *CanonicalizerProfile("robust"));
  ASSERT_OK_AND_ASSIGN(const CollectionConfig again,
                       ConfigFromProto(ConfigToProto(config)));
  EXPECT_EQ(again, config);
  // Not txtfp's config hash.
  EXPECT_NE(MinHasher::Create(MinHashConfigOf(config))->config_hash(),
            0x1ffc8214c1e9e9dbULL);
  proto.mutable_canonicalizer()->set_profile(
      static_cast<v1::CanonicalizerOptions::Profile>(7));
  EXPECT_EQ(ConfigFromProto(proto).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// case_fold, and its deprecated old form disable_case_fold (one release).
TEST(ConfigFromProto, CaseFoldAndItsDeprecatedBool) {
  v1::FingerprintConfig proto;
  auto* canon = proto.mutable_canonicalizer();
  ASSERT_OK_AND_ASSIGN(CollectionConfig config, ConfigFromProto(proto));
  EXPECT_EQ(config.canonicalizer.case_fold, CaseFold::kFull);
  canon->set_case_fold(v1::CanonicalizerOptions::CASE_FOLD_NONE);
  ASSERT_OK_AND_ASSIGN(config, ConfigFromProto(proto));
  EXPECT_EQ(config.canonicalizer.case_fold, CaseFold::kNone);
  // Answers carry both names.
  const v1::FingerprintConfig back = ConfigToProto(config);
  EXPECT_EQ(back.canonicalizer().case_fold(),
            v1::CanonicalizerOptions::CASE_FOLD_NONE);
  EXPECT_TRUE(back.canonicalizer().disable_case_fold());
  canon->clear_case_fold();
  canon->set_disable_case_fold(true);
  ASSERT_OK_AND_ASSIGN(config, ConfigFromProto(proto));
  EXPECT_EQ(config.canonicalizer.case_fold, CaseFold::kNone);
  canon->set_case_fold(v1::CanonicalizerOptions::CASE_FOLD_FULL);
  EXPECT_THAT(ConfigFromProto(proto).status().message(),
              ::testing::HasSubstr("contradict"));
  canon->set_disable_case_fold(false);
  canon->set_case_fold(static_cast<v1::CanonicalizerOptions::CaseFold>(9));
  EXPECT_EQ(ConfigFromProto(proto).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ConfigFromProto, FamiliesMapAndRoundTrip) {
  v1::FingerprintConfig proto;
  proto.set_minhash_algorithm(v1::MINHASH_ALGORITHM_PERCEPTUAL);
  proto.set_simhash(true);
  proto.set_simhash_variant(v1::SIMHASH_VARIANT_NEWSBOT);
  proto.set_tlsh(true);
  ASSERT_OK_AND_ASSIGN(const CollectionConfig config, ConfigFromProto(proto));
  EXPECT_EQ(config.minhash_algorithm, MinHashAlgorithm::kPerceptual);
  EXPECT_EQ(config.minhash_tokenizer, "shingle-k=9/word-uax29");  // UCFP's k
  EXPECT_EQ(config.winnow_window, 4);
  EXPECT_EQ(config.simhash_variant, SimHashVariant::kNewsbot);
  EXPECT_THAT(config.kept_families, ::testing::ElementsAre("tlsh"));
  const v1::FingerprintConfig back = ConfigToProto(config);
  EXPECT_EQ(back.minhash_algorithm(), v1::MINHASH_ALGORITHM_PERCEPTUAL);
  EXPECT_EQ(back.shingle_k(), 9u);
  EXPECT_EQ(back.winnow_window(), 4u);
  EXPECT_EQ(back.simhash_variant(), v1::SIMHASH_VARIANT_NEWSBOT);
  EXPECT_TRUE(back.tlsh());  // the deprecated spelling, still set
  EXPECT_THAT(back.kept_families(), ::testing::ElementsAre("tlsh"));
  ASSERT_OK_AND_ASSIGN(const CollectionConfig again, ConfigFromProto(back));
  EXPECT_EQ(again, config);
  // An explicit k is kept.
  proto.set_shingle_k(4);
  EXPECT_EQ(ConfigFromProto(proto)->minhash_tokenizer,
            "shingle-k=4/word-uax29");
}

TEST(ConfigFromProto, FamilyFieldsOutsideTheirRangeAreRefused) {
  auto refused = [](const v1::FingerprintConfig& proto,
                    std::string_view field) {
    const absl::Status status = ConfigFromProto(proto).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << field;
    EXPECT_THAT(status.message(), HasSubstr(field));
  };
  v1::FingerprintConfig proto;
  proto.set_minhash_algorithm(static_cast<v1::MinHashAlgorithm>(9));
  refused(proto, "minhash_algorithm");
  proto = {};
  proto.set_simhash_variant(static_cast<v1::SimHashVariant>(9));
  refused(proto, "simhash_variant");
  proto = {};
  proto.set_minhash_algorithm(v1::MINHASH_ALGORITHM_PERCEPTUAL);
  proto.set_winnow_window(1025);
  refused(proto, "winnow_window");
  proto.set_minhash_algorithm(v1::MINHASH_ALGORITHM_SHINGLED);
  proto.set_winnow_window(3);
  refused(proto, "winnow_window applies to perceptual");
  proto = {};
  proto.set_simhash_variant(v1::SIMHASH_VARIANT_NEWSBOT);
  refused(proto, "needs SimHash on");
}

TEST(ConfigFromProto, ShingleOneMeansPlainTokens) {
  v1::FingerprintConfig proto;
  proto.set_shingle_k(1);
  proto.set_tokenizer("cjk");
  auto config = ConfigFromProto(proto);
  ASSERT_OK(config);
  EXPECT_EQ(config->minhash_tokenizer, "cjk-icu");
  EXPECT_EQ(ConfigToProto(*config).shingle_k(), 1u);
}

TEST(ConfigFromProto, ErrorsNameTheField) {
  v1::FingerprintConfig proto;
  proto.set_tokenizer("sentencepiece");
  EXPECT_THAT(ConfigFromProto(proto).status().message(),
              HasSubstr("config.tokenizer"));
  proto = {};
  proto.set_shingle_k(65);
  EXPECT_THAT(ConfigFromProto(proto).status().message(),
              HasSubstr("shingle_k"));
  proto = {};
  proto.set_bands(13);
  proto.set_rows(13);
  EXPECT_THAT(ConfigFromProto(proto).status().message(), HasSubstr("13 x 13"));
  proto = {};
  proto.set_threshold(1.5);
  EXPECT_EQ(ConfigFromProto(proto).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// Every numeric field has a range, checked on the wire value before it is
// narrowed or multiplied.
TEST(ConfigFromProto, NumericFieldsOutsideTheirRangeAreRefused) {
  struct Case {
    std::function<void(v1::FingerprintConfig&)> set;
    std::string field;
  };
  const std::vector<Case> cases = {
      {[](auto& p) { p.set_num_perm(100); }, "num_perm"},
      {[](auto& p) { p.set_num_perm(4294967295u); }, "num_perm"},
      {[](auto& p) { p.set_bands(128), p.set_rows(33554433); }, "rows"},
      {[](auto& p) { p.set_bands(33554433), p.set_rows(128); }, "bands"},
      {[](auto& p) { p.set_bands(16); }, "bands and config.rows"},
      {[](auto& p) { p.set_slot_bits(4294967295u); }, "slot_bits"},
      {[](auto& p) { p.set_evidence_bits(16); }, "evidence_bits"},
      {[](auto& p) { p.set_evidence_bits(4294967295u); }, "evidence_bits"},
      {[](auto& p) { p.set_verify_bits(4294967295u); }, "slot_bits"},
      {[](auto& p) {
         p.set_slot_bits(32);
         p.set_verify_bits(64);
       },
       "slot_bits"},
      {[](auto& p) { p.set_threshold(-0.5); }, "threshold"},
      {[](auto& p) { p.set_threshold(std::nan("")); }, "threshold"},
      {[](auto& p) { p.set_threshold(INFINITY); }, "threshold"},
      {[](auto& p) { p.set_simhash(true), p.set_simhash_max_distance(17); },
       "simhash_max_distance"},
      {[](auto& p) { p.set_shingle_k(4294967295u); }, "shingle_k"},
      {[](auto& p) { p.set_min_threshold(1.0); }, "min_threshold"},
      {[](auto& p) { p.set_min_threshold(-0.1); }, "min_threshold"},
      {[](auto& p) { p.set_banding(static_cast<v1::Banding>(9)); }, "banding"},
      {[](auto& p) { p.set_verification(static_cast<v1::Verification>(9)); },
       "verification"},
  };
  for (const Case& c : cases) {
    v1::FingerprintConfig proto;
    c.set(proto);
    const absl::Status status = ConfigFromProto(proto).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.field;
    EXPECT_THAT(status.message(), HasSubstr("config." + c.field));
  }
}

TEST(MetadataFromProto, SortsByKey) {
  google::protobuf::Map<std::string, std::string> map;
  map["z"] = "1";
  map["a"] = "2";
  map["m"] = "3";
  const storage::Metadata metadata = MetadataFromProto(map);
  ASSERT_EQ(metadata.size(), 3u);
  EXPECT_EQ(metadata[0].first, "a");
  EXPECT_EQ(metadata[2].first, "z");
}

// The deprecated TLSH fields are written beside the kept ones, and read
// when a peer that predates kept families sends them alone.
TEST(KeptProto, DeprecatedTlshFieldsAreWrittenBesideAndReadAlone) {
  v1::Signatures sigs;
  proto::KeptToProto({{"tlsh", "T1AB", 7}}, &sigs);
  ASSERT_EQ(sigs.kept_size(), 1);
  EXPECT_EQ(sigs.tlsh(), "T1AB");
  EXPECT_EQ(sigs.tlsh_config_hash(), 7u);
  // Both spellings: one value, not two.
  EXPECT_THAT(proto::KeptFromProto(sigs),
              ::testing::ElementsAre(KeptValue{"tlsh", "T1AB", 7}));
  sigs.clear_kept();
  EXPECT_THAT(proto::KeptFromProto(sigs),
              ::testing::ElementsAre(KeptValue{"tlsh", "T1AB", 7}));

  v1::Collection collection;
  proto::KeptConfigHashesToProto({{"tlsh", 9}}, &collection);
  EXPECT_EQ(collection.tlsh_config_hash(), 9u);
  collection.clear_kept_config_hashes();
  collection.mutable_config()->set_tlsh(true);
  EXPECT_THAT(proto::KeptConfigHashesFromProto(collection),
              ::testing::ElementsAre(KeptConfigHash{"tlsh", 9}));

  v1::Match match;
  proto::KeptDistancesToProto({{"tlsh", 12}}, &match);
  EXPECT_EQ(match.tlsh_distance(), 12);
  match.clear_kept_distances();
  EXPECT_THAT(proto::KeptDistancesFromProto(match),
              ::testing::ElementsAre(KeptDistance{"tlsh", 12}));
}

}  // namespace
}  // namespace neardup::server
