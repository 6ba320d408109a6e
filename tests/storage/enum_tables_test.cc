// core's enum tables against both generated protos: every API and disk
// number a row names is the value of that name, and every value of the
// protos' enums has its row (a value added to a proto but not to the table,
// or the other way round, fails here).

#include "neardup/core/enum_tables.h"

#include <gtest/gtest.h>

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "neardup/base/absl_compat.h"
#include "neardup/storage/records.pb.h"
#include "neardup/v1/neardup.pb.h"
#include "support/status_matchers.h"

namespace neardup {
namespace {

namespace pb = ::neardup::storage::records;
using google::protobuf::EnumDescriptor;

// Every value of `proto` but UNSPECIFIED has a row with its number, and
// every nonzero number of a row is a value of `proto`.
template <typename Enum, size_t N, typename NumberOf>
void ExpectCovers(const EnumTable<Enum, N>& table, const EnumDescriptor* proto,
                  NumberOf number_of, bool zero_is_a_value) {
  for (int i = 0; i < proto->value_count(); ++i) {
    const int number = proto->value(i)->number();
    if (number == 0 && !zero_is_a_value) continue;
    bool found = false;
    for (const auto& row : table.rows) found |= number_of(row) == number;
    EXPECT_TRUE(found) << table.what << ": " << proto->value(i)->name()
                       << " has no row";
  }
  for (const auto& row : table.rows) {
    if (number_of(row) == 0 && !zero_is_a_value) continue;
    EXPECT_NE(proto->FindValueByNumber(number_of(row)), nullptr)
        << table.what << " " << row.name << ": no value " << number_of(row)
        << " in " << proto->full_name();
  }
}

template <typename Enum, size_t N>
void ExpectApi(const EnumTable<Enum, N>& table, const EnumDescriptor* api) {
  ExpectCovers(
      table, api, [](const auto& row) { return row.api; }, false);
}

template <typename Enum, size_t N>
void ExpectDisk(const EnumTable<Enum, N>& table, const EnumDescriptor* disk,
                bool zero_is_a_value = false) {
  ExpectCovers(
      table, disk, [](const auto& row) { return row.disk; }, zero_is_a_value);
}

// Names parse back to their values; aliases too.
template <typename Enum, size_t N>
void ExpectNamesRoundTrip(const EnumTable<Enum, N>& table) {
  for (const auto& row : table.rows) {
    ASSERT_OK_AND_ASSIGN(const Enum parsed, table.Parse(row.name));
    EXPECT_EQ(parsed, row.value) << row.name;
    EXPECT_EQ(table.Name(row.value), row.name);
  }
  EXPECT_FALSE(table.Parse("no-such-value").ok());
}

TEST(EnumTables, NumbersAreThoseOfTheProtos) {
  ExpectApi(kNormalizations,
            v1::CanonicalizerOptions::Normalization_descriptor());
  ExpectDisk(kNormalizations, pb::Normalization_descriptor());
  ExpectApi(kCaseFolds, v1::CanonicalizerOptions::CaseFold_descriptor());
  ExpectDisk(kCaseFolds, pb::CaseFold_descriptor());
  ExpectApi(kHashFamilies, v1::HashFamily_descriptor());
  ExpectDisk(kHashFamilies, pb::HashFamily_descriptor());
  ExpectApi(kSimHashWeightings, v1::SimHashWeighting_descriptor());
  ExpectDisk(kSimHashWeightings, pb::SimHashWeighting_descriptor());
  ExpectApi(kBandingRules, v1::Banding_descriptor());
  ExpectDisk(kBandingRules, pb::BandingRule_descriptor());
  ExpectApi(kVerifications, v1::Verification_descriptor());
  ExpectDisk(kVerifications, pb::Verification_descriptor());
  ExpectApi(kMinHashAlgorithms, v1::MinHashAlgorithm_descriptor());
  ExpectDisk(kMinHashAlgorithms, pb::MinHashAlgorithm_descriptor(), true);
  ExpectApi(kSimHashVariants, v1::SimHashVariant_descriptor());
  ExpectDisk(kSimHashVariants, pb::SimHashVariant_descriptor(), true);
  ExpectApi(kChunkModes, v1::EmbeddingSpace::ChunkMode_descriptor());
  ExpectApi(kQueryAlgorithms, v1::Algorithm_descriptor());
  ExpectApi(kFingerprintKinds, v1::FingerprintKind_descriptor());
}

// The fingerprint kinds' API values are the ones of their names
// ("tlsh-raw" is FINGERPRINT_KIND_TLSH_RAW); 0 is a collection's.
TEST(EnumTables, FingerprintKindsAreTheProtoValuesOfTheirNames) {
  for (const auto& row : kFingerprintKinds.rows) {
    if (row.api == 0) continue;
    std::string name = absl::StrCat("FINGERPRINT_KIND_", AbslView(row.name));
    for (char& c : name) c = c == '-' ? '_' : absl::ascii_toupper(c);
    const auto* value =
        v1::FingerprintKind_descriptor()->FindValueByNumber(row.api);
    ASSERT_NE(value, nullptr) << row.name;
    EXPECT_EQ(value->name(), name);
  }
  EXPECT_EQ(kFingerprintKinds.FromApi(v1::FINGERPRINT_KIND_UNSPECIFIED),
            FingerprintKind::kCollection);
}

// The query algorithms' API values are the ones of their names
// ("hybrid-all" is ALGORITHM_HYBRID_ALL): swapping two numbers fails.
TEST(EnumTables, QueryAlgorithmsAreTheProtoValuesOfTheirNames) {
  for (const auto& row : kQueryAlgorithms.rows) {
    std::string name = absl::StrCat("ALGORITHM_", AbslView(row.name));
    for (char& c : name) c = c == '-' ? '_' : absl::ascii_toupper(c);
    const auto* value = v1::Algorithm_descriptor()->FindValueByNumber(row.api);
    ASSERT_NE(value, nullptr) << row.name;
    EXPECT_EQ(value->name(), name);
  }
}

// Each row's numbers are the values of the same name: the tables cannot
// swap two values and still cover the protos.
TEST(EnumTables, EachValueMapsToTheProtoValueOfItsName) {
  EXPECT_EQ(kNormalizations.Api(Normalization::kNfc),
            v1::CanonicalizerOptions::NORMALIZATION_NFC);
  EXPECT_EQ(kNormalizations.Api(Normalization::kNone),
            v1::CanonicalizerOptions::NORMALIZATION_NONE);
  EXPECT_EQ(kNormalizations.Disk(Normalization::kNfc), pb::NORMALIZATION_NFC);
  EXPECT_EQ(kNormalizations.Disk(Normalization::kNone), pb::NORMALIZATION_NONE);
  EXPECT_EQ(kCaseFolds.Disk(CaseFold::kFull), pb::CASE_FOLD_FULL);
  EXPECT_EQ(kCaseFolds.Disk(CaseFold::kNone), pb::CASE_FOLD_NONE);
  EXPECT_EQ(kCaseFolds.Api(CaseFold::kNone),
            v1::CanonicalizerOptions::CASE_FOLD_NONE);
  EXPECT_EQ(kHashFamilies.Api(HashFamily::kMurmur3), v1::HASH_FAMILY_MURMUR3);
  EXPECT_EQ(kHashFamilies.Disk(HashFamily::kMurmur3), pb::HASH_FAMILY_MURMUR3);
  EXPECT_EQ(kSimHashWeightings.Api(SimHashWeighting::kUniform),
            v1::SIMHASH_WEIGHTING_UNIFORM);
  EXPECT_EQ(kSimHashWeightings.Disk(SimHashWeighting::kIdf),
            pb::SIMHASH_WEIGHTING_IDF);
  EXPECT_EQ(kBandingRules.Api(BandingRule::kTxtfp), v1::BANDING_TXTFP);
  EXPECT_EQ(kBandingRules.Disk(BandingRule::kTxtfp), pb::BANDING_RULE_TXTFP);
  EXPECT_EQ(kVerifications.Api(Verification::kEstimate),
            v1::VERIFICATION_ESTIMATE);
  EXPECT_EQ(kVerifications.Disk(Verification::kEstimate),
            pb::VERIFICATION_ESTIMATE);
  EXPECT_EQ(kMinHashAlgorithms.Api(MinHashAlgorithm::kPerceptual),
            v1::MINHASH_ALGORITHM_PERCEPTUAL);
  EXPECT_EQ(kMinHashAlgorithms.Disk(MinHashAlgorithm::kPerceptual),
            pb::MINHASH_ALGORITHM_PERCEPTUAL);
  EXPECT_EQ(kSimHashVariants.Api(SimHashVariant::kNewsbot),
            v1::SIMHASH_VARIANT_NEWSBOT);
  EXPECT_EQ(kSimHashVariants.Disk(SimHashVariant::kNewsbot),
            pb::SIMHASH_VARIANT_NEWSBOT);
  EXPECT_EQ(kChunkModes.Api(ChunkMode::kRecursive),
            v1::EmbeddingSpace::CHUNK_MODE_RECURSIVE);
  EXPECT_EQ(kChunkModes.Api(ChunkMode::kFixedTokens),
            v1::EmbeddingSpace::CHUNK_MODE_FIXED);
  // The chunk mode is stored as core's number (an int32 field).
  EXPECT_EQ(kChunkModes.Disk(ChunkMode::kRecursive),
            static_cast<int>(ChunkMode::kRecursive));
  EXPECT_EQ(kChunkModes.Disk(ChunkMode::kSentenceBounded),
            static_cast<int>(ChunkMode::kSentenceBounded));
}

TEST(EnumTables, UnspecifiedIsTheDefaultAndUnknownIsNone) {
  EXPECT_EQ(kHashFamilies.FromApi(0), HashFamily::kXxh3);
  EXPECT_EQ(kChunkModes.FromApi(0), ChunkMode::kSentenceBounded);
  EXPECT_EQ(kVerifications.FromApi(99), std::nullopt);
  EXPECT_EQ(kVerifications.FromDisk(0), std::nullopt);
  EXPECT_EQ(kMinHashAlgorithms.FromDisk(0), MinHashAlgorithm::kShingled);
}

TEST(EnumTables, NamesAndAliasesParse) {
  ExpectNamesRoundTrip(kNormalizations);
  ExpectNamesRoundTrip(kCaseFolds);
  ExpectNamesRoundTrip(kHashFamilies);
  ExpectNamesRoundTrip(kSimHashWeightings);
  ExpectNamesRoundTrip(kBandingRules);
  ExpectNamesRoundTrip(kVerifications);
  ExpectNamesRoundTrip(kQueryAlgorithms);
  ExpectNamesRoundTrip(kMinHashAlgorithms);
  ExpectNamesRoundTrip(kSimHashVariants);
  ExpectNamesRoundTrip(kChunkModes);
  ExpectNamesRoundTrip(kFingerprintKinds);
  EXPECT_EQ(*kHashFamilies.Parse("murmur3"), HashFamily::kMurmur3);
  EXPECT_EQ(*kCaseFolds.Parse("simple"), CaseFold::kFull);
  EXPECT_EQ(kHashFamilies.Parse("sha1").status().message(),
            "hash family must be xxh3-64 or mmh3-x64-128, got \"sha1\"");
}

}  // namespace
}  // namespace neardup
