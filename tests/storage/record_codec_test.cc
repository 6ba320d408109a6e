#include "neardup/storage/internal/record_codec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <string>
#include <vector>

#include "neardup/core/collection_config.h"
#include "neardup/core/tlsh.h"
#include "neardup/storage/config_codec.h"
#include "neardup/storage/records.pb.h"
#include "support/status_matchers.h"

namespace neardup::storage {
namespace {

namespace pb = ::neardup::storage::records;
using ::testing::HasSubstr;

CollectionRecord EveryFieldSet() {
  CollectionConfig config;
  config.canonicalizer = {.normalization = Normalization::kNfc,
                          .case_fold = CaseFold::kNone,
                          .strip_bidi = false,
                          .strip_format = false,
                          .strip_ignorable = true,
                          .confusable_skeleton = true,
                          .fold_small_capitals = true,
                          .fold_look_alikes = true};
  config.minhash_tokenizer = "shingle-k=3/grapheme-uax29";
  config.num_perm = 256;
  config.seed = 0xDEADBEEFCAFEF00Dull;
  config.family = HashFamily::kMurmur3;
  config.threshold = 0.55;
  config.lsh = {.bands = 32, .rows = 8};
  config.slot_bits = 32;
  config.evidence_bits = 64;
  config.simhash_enabled = true;
  config.simhash_tokenizer = "cjk-icu";
  config.simhash_weighting = SimHashWeighting::kUniform;
  config.simhash_max_distance = 7;
  config.store_text = true;
  config.min_threshold = 0.45;
  config.banding = BandingRule::kTxtfp;
  config.verification = Verification::kEstimate;
  config.minhash_algorithm = MinHashAlgorithm::kPerceptual;
  config.winnow_window = 6;
  config.simhash_variant = SimHashVariant::kNewsbot;
  config.kept_families = {"tlsh"};
  return {.id = 42,
          .name = "news.en-2024",
          .config = config,
          .minhash_config_hash = 0x1ffc8214c1e9e9dbull,
          .simhash_config_hash = 0x8000000000000001ull,
          .created_unix_micros = 1700000000123456,
          .kept_config_hashes = {{"tlsh", 0x0123456789abcdefull}}};
}

TEST(RecordCodecTest, CollectionConfigRoundTripsAlone) {
  const CollectionConfig config = EveryFieldSet().config;
  ASSERT_OK_AND_ASSIGN(const CollectionConfig decoded,
                       DecodeCollectionConfig(EncodeCollectionConfig(config)));
  EXPECT_EQ(decoded, config);
  EXPECT_EQ(EncodeCollectionConfig(config), EncodeCollectionConfig(decoded));
  EXPECT_EQ(DecodeCollectionConfig("\xff").status().code(),
            absl::StatusCode::kDataLoss);
}

TEST(RecordCodecTest, CollectionRecordRoundTripsEveryField) {
  const CollectionRecord record = EveryFieldSet();
  absl::StatusOr<CollectionRecord> decoded =
      DecodeCollectionRecord(EncodeCollectionRecord(record));
  ASSERT_OK(decoded);
  EXPECT_EQ(*decoded, record);
}

TEST(RecordCodecTest, CollectionRecordRoundTripsDefaults) {
  CollectionRecord record;
  record.id = 1;
  record.name = std::string("c");  // not = "c": GCC 12 -Wrestrict bug
  ASSERT_OK_AND_ASSIGN(record.config, NormalizeCollectionConfig({}));
  absl::StatusOr<CollectionRecord> decoded =
      DecodeCollectionRecord(EncodeCollectionRecord(record));
  ASSERT_OK(decoded);
  EXPECT_EQ(*decoded, record);
}

// Records written before recall-first banding keep what they were created
// with: the threshold as floor, txtfp's banding, estimate verification.
TEST(RecordCodecTest, RecordWithoutFloorDecodesAsWrittenBeforeRecallFirst) {
  CollectionRecord record = EveryFieldSet();
  record.config.banding = BandingRule::kRecallFirst;
  record.config.verification = Verification::kExact;
  records::CollectionRecord message;
  ASSERT_TRUE(message.ParseFromString(EncodeCollectionRecord(record)));
  message.mutable_config()->clear_min_threshold();
  message.mutable_config()->clear_banding();
  message.mutable_config()->clear_verification();
  ASSERT_OK_AND_ASSIGN(const CollectionRecord decoded,
                       DecodeCollectionRecord(message.SerializeAsString()));
  EXPECT_DOUBLE_EQ(decoded.config.min_threshold, record.config.threshold);
  EXPECT_EQ(decoded.config.banding, BandingRule::kTxtfp);
  EXPECT_EQ(decoded.config.verification, Verification::kEstimate);
  EXPECT_EQ(decoded.config.lsh, record.config.lsh);
}

TEST(RecordCodecTest, EvidenceRoundTripsAndRejectsGarbage) {
  const std::vector<uint64_t> shingles = {3, 99, 1ull << 40, ~0ull};
  ASSERT_OK_AND_ASSIGN(
      const EvidenceValue value,
      DecodeEvidenceValue(EncodeEvidenceValue(7, shingles, 64), 64));
  EXPECT_EQ(value.config_hash, 7u);
  EXPECT_EQ(value.shingles, shingles);
  EXPECT_EQ(DecodeEvidenceValue("\x12\x02\x05\x01", 64).status().code(),
            absl::StatusCode::kDataLoss);
}

TEST(RecordCodecTest, ThirtyTwoBitEvidenceRoundTripsInItsOwnWidthOnly) {
  const std::vector<uint64_t> shingles = {3, 99, 1ull << 20, 0xFFFFFFFFull};
  const std::string bytes = EncodeEvidenceValue(7, shingles, 32);
  ASSERT_OK_AND_ASSIGN(const EvidenceValue value,
                       DecodeEvidenceValue(bytes, 32));
  EXPECT_EQ(value.shingles, shingles);
  EXPECT_LT(bytes.size(), EncodeEvidenceValue(7, shingles, 64).size());
  // Read as 64-bit evidence the same bytes are not the same set.
  EXPECT_FALSE(DecodeEvidenceValue(bytes, 64).ok());
}

TEST(RecordCodecTest, EvidenceBitsRoundTripAndAbsentReadsAs64) {
  CollectionRecord record;
  record.name = "c";
  record.config = *NormalizeCollectionConfig(CollectionConfig{});
  EXPECT_EQ(record.config.evidence_bits, 32);
  ASSERT_OK_AND_ASSIGN(CollectionRecord decoded,
                       DecodeCollectionRecord(EncodeCollectionRecord(record)));
  EXPECT_EQ(decoded.config.evidence_bits, 32);
  // A record written before format 6 has no evidence_bits.
  pb::CollectionRecord message;
  ASSERT_TRUE(message.ParseFromString(EncodeCollectionRecord(record)));
  message.mutable_config()->clear_evidence_bits();
  ASSERT_OK_AND_ASSIGN(decoded,
                       DecodeCollectionRecord(message.SerializeAsString()));
  EXPECT_EQ(decoded.config.evidence_bits, 64);
  // A width no build writes is damage, said as such.
  message.mutable_config()->set_evidence_bits(16);
  EXPECT_EQ(DecodeCollectionRecord(message.SerializeAsString()).status().code(),
            absl::StatusCode::kDataLoss);
}

TEST(RecordCodecTest, RecordBeforeFormatThreeHasTheFirstFamilies) {
  pb::CollectionRecord message;
  message.set_name("old");
  message.mutable_config()->set_min_threshold(0.7);
  message.mutable_config()->set_banding(pb::BANDING_RULE_RECALL_FIRST);
  message.mutable_config()->set_verification(pb::VERIFICATION_EXACT);
  message.mutable_config()->mutable_canonicalizer()->set_normalization(
      pb::NORMALIZATION_NFKC);
  message.mutable_config()->mutable_canonicalizer()->set_case_fold(
      pb::CASE_FOLD_FULL);
  message.mutable_config()->set_family(pb::HASH_FAMILY_XXH3);
  message.mutable_config()->set_simhash_weighting(pb::SIMHASH_WEIGHTING_TF);
  ASSERT_OK_AND_ASSIGN(const CollectionRecord record,
                       DecodeCollectionRecord(message.SerializeAsString()));
  EXPECT_EQ(record.config.minhash_algorithm, MinHashAlgorithm::kShingled);
  EXPECT_EQ(record.config.simhash_variant, SimHashVariant::kTxtfp);
  EXPECT_TRUE(record.config.kept_families.empty());
  EXPECT_TRUE(record.kept_config_hashes.empty());
  message.mutable_config()->set_minhash_algorithm(
      static_cast<pb::MinHashAlgorithm>(7));
  EXPECT_EQ(DecodeCollectionRecord(message.SerializeAsString()).status().code(),
            absl::StatusCode::kDataLoss);
}

// Records of formats 3 and 4 name TLSH by keep_tlsh and tlsh_config_hash
// only; they read as kept family "tlsh". New records still write both, so a
// build of format 4 reads them as they are.
TEST(RecordCodecTest, TlshOfFormatsThreeAndFourIsAKeptFamily) {
  pb::CollectionRecord message;
  ASSERT_TRUE(message.ParseFromString(EncodeCollectionRecord(EveryFieldSet())));
  EXPECT_TRUE(message.config().keep_tlsh());
  EXPECT_EQ(message.tlsh_config_hash(), 0x0123456789abcdefull);
  message.mutable_config()->clear_kept_families();
  message.clear_kept_config_hashes();
  ASSERT_OK_AND_ASSIGN(const CollectionRecord old,
                       DecodeCollectionRecord(message.SerializeAsString()));
  EXPECT_EQ(old, EveryFieldSet());
  // A family this build does not know: written by a newer one.
  message.mutable_config()->add_kept_families("zz-future");
  EXPECT_THAT(DecodeCollectionRecord(message.SerializeAsString()).status(),
              neardup::testing::StatusIs(absl::StatusCode::kDataLoss,
                                         HasSubstr("zz-future")));
}

// KeptValue's wire form is format 3's TlshValue: old values decode as they
// are.
TEST(RecordCodecTest, KeptValueRoundTripsAndRejectsGarbage) {
  const std::string tlsh = "T1" + std::string(70, 'A');
  const std::string bytes = EncodeKeptValue(0xabcdull, tlsh);
  ASSERT_OK_AND_ASSIGN(const KeptValue decoded,
                       DecodeKeptValue(kTlshFamily, bytes));
  EXPECT_EQ(decoded, (KeptValue{"tlsh", tlsh, 0xabcdull}));
  // The same bytes as format 3 wrote (fixed64 config_hash = 1, string = 2).
  const std::string old_format =
      std::string("\x09\xcd\xab\0\0\0\0\0\0\x12", 10) +
      static_cast<char>(tlsh.size()) + tlsh;
  EXPECT_EQ(bytes, old_format);
  // Lowercase is normalized; garbage is DATA_LOSS.
  ASSERT_OK_AND_ASSIGN(
      const KeptValue lower,
      DecodeKeptValue(kTlshFamily,
                      EncodeKeptValue(1, "t1" + std::string(70, 'a'))));
  EXPECT_EQ(lower.value, tlsh);
  EXPECT_EQ(
      DecodeKeptValue(kTlshFamily, EncodeKeptValue(1, "T1XYZ")).status().code(),
      absl::StatusCode::kDataLoss);
}

TEST(RecordCodecTest, UnspecifiedEnumIsDataLoss) {
  records::CollectionRecord message;
  message.set_name("c");  // config enums left UNSPECIFIED
  EXPECT_EQ(DecodeCollectionRecord(message.SerializeAsString()).status().code(),
            absl::StatusCode::kDataLoss);
}

TEST(RecordCodecTest, GarbageIsDataLoss) {
  EXPECT_EQ(DecodeCollectionRecord("\xff\xff\xff").status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(DecodeDocumentRecord("\x0a\x05"
                                 "ab")
                .status()
                .code(),
            absl::StatusCode::kDataLoss);
}

TEST(RecordCodecTest, DocumentRecordRoundTripsBinaryBytes) {
  const DocumentRecord record{
      .external_id = std::string("id\0\xff", 4),
      .metadata = {{"a", "1"}, {"b", std::string("\xc3\x28", 2)}},
      .text = std::string("not utf-8: \xff", 12),
      .created_unix_micros = 5,
      .updated_unix_micros = 9};
  absl::StatusOr<DocumentRecord> decoded =
      DecodeDocumentRecord(EncodeDocumentRecord(record));
  ASSERT_OK(decoded);
  EXPECT_EQ(decoded->external_id, record.external_id);
  EXPECT_EQ(decoded->metadata, record.metadata);
  EXPECT_EQ(decoded->text, record.text);
  EXPECT_EQ(decoded->created_unix_micros, 5);
  EXPECT_EQ(decoded->updated_unix_micros, 9);
}

TEST(RecordCodecTest, AbsentAndEmptyTextDiffer) {
  DocumentRecord record;
  record.external_id = "x";
  absl::StatusOr<DocumentRecord> absent =
      DecodeDocumentRecord(EncodeDocumentRecord(record));
  ASSERT_OK(absent);
  EXPECT_EQ(absent->text, std::nullopt);
  record.text = "";
  absl::StatusOr<DocumentRecord> empty =
      DecodeDocumentRecord(EncodeDocumentRecord(record));
  ASSERT_OK(empty);
  EXPECT_EQ(empty->text, "");
}

TEST(RecordCodecTest, EqualDocumentsEncodeToEqualBytes) {
  DocumentRecord record;
  record.external_id = "x";
  record.metadata = {{"k1", "v1"}, {"k2", "v2"}};
  EXPECT_EQ(EncodeDocumentRecord(record), EncodeDocumentRecord(record));
}

TEST(RecordCodecTest, MinHashValueKeepsTxtfpWireBytes) {
  MinHashSignature signature;
  for (uint64_t i = 0; i < 64; ++i) signature.slots.push_back(i * 0x9E37ull);
  const std::string bytes = EncodeMinHashValue(0xABCDull, signature);
  records::MinHashValue message;
  ASSERT_TRUE(message.ParseFromString(bytes));
  EXPECT_EQ(message.signature(), signature.Serialize());

  absl::StatusOr<MinHashValue> decoded = DecodeMinHashValue(bytes);
  ASSERT_OK(decoded);
  EXPECT_EQ(decoded->config_hash, 0xABCDull);
  EXPECT_EQ(decoded->signature, signature);
}

TEST(RecordCodecTest, MalformedSignatureIsDataLoss) {
  records::MinHashValue message;
  message.set_config_hash(1);
  message.set_signature("too short");
  EXPECT_EQ(DecodeMinHashValue(message.SerializeAsString()).status().code(),
            absl::StatusCode::kDataLoss);
}

TEST(RecordCodecTest, SimHashValueRoundTrips) {
  const SimHashValue value{.config_hash = ~0ull,
                           .value = 0x0123456789ABCDEFull};
  absl::StatusOr<SimHashValue> decoded =
      DecodeSimHashValue(EncodeSimHashValue(value));
  ASSERT_OK(decoded);
  EXPECT_EQ(decoded->config_hash, value.config_hash);
  EXPECT_EQ(decoded->value, value.value);
}

TEST(RecordCodec, EmbeddingSpacesAndVectorsRoundTrip) {
  CollectionConfig config;
  config.embedding.model_id = "test-model@1";
  config.embedding.dim = 8;
  config.embedding.fasttext_model = "models/m.bin";
  config.embedding.chunking = {ChunkMode::kRecursive, 100, 25};
  config.embedding.hnsw = true;
  config.embedding.hnsw_m = 24;
  config.embedding.min_cosine = 0.75;
  ASSERT_OK_AND_ASSIGN(const CollectionConfig normalized,
                       NormalizeCollectionConfig(config));
  const CollectionRecord record{.id = 9, .name = "n", .config = normalized};
  ASSERT_OK_AND_ASSIGN(const CollectionRecord decoded,
                       DecodeCollectionRecord(EncodeCollectionRecord(record)));
  EXPECT_EQ(decoded, record);
  // A record without a space decodes to none.
  const CollectionRecord plain{
      .id = 9, .name = "n", .config = *NormalizeCollectionConfig({})};
  ASSERT_OK_AND_ASSIGN(const CollectionRecord plain_decoded,
                       DecodeCollectionRecord(EncodeCollectionRecord(plain)));
  EXPECT_FALSE(plain_decoded.config.embedding.enabled());
  // Vectors keep every bit (the sign of zero too).
  const std::vector<float> v = {0.1f, -0.0f, 3.5e-20f, -1.0f};
  ASSERT_OK_AND_ASSIGN(const EmbeddingValue value,
                       DecodeEmbeddingValue(EncodeEmbeddingValue("m", v)));
  EXPECT_EQ(value.model_id, "m");
  ASSERT_EQ(value.vector.size(), v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(std::bit_cast<uint32_t>(value.vector[i]),
              std::bit_cast<uint32_t>(v[i]));
  }
}

}  // namespace
}  // namespace neardup::storage
