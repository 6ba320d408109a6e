#include "neardup/storage/validation.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/status_matchers.h"

namespace neardup::storage {
namespace {

CollectionRecord Collection(bool simhash) {
  CollectionRecord record;
  record.id = 1;
  record.name = std::string("c");  // not = "c": GCC 12 -Wrestrict bug
  record.config.num_perm = 64;
  record.config.simhash_enabled = simhash;
  record.minhash_config_hash = 0x1111;
  record.simhash_config_hash = simhash ? 0x2222 : 0;
  return record;
}

DocumentWrite Write(bool simhash) {
  DocumentWrite doc;
  doc.external_id = "doc";
  doc.minhash.slots.assign(64, 7);
  doc.minhash_config_hash = 0x1111;
  if (simhash) {
    doc.simhash = 0xF0F0;
    doc.simhash_config_hash = 0x2222;
  }
  return doc;
}

absl::StatusCode CodeOf(const absl::Status& status) { return status.code(); }

TEST(ValidationTest, CollectionNames) {
  EXPECT_OK(ValidateCollectionName("a"));
  EXPECT_OK(ValidateCollectionName("News_2024.v-1"));
  EXPECT_OK(ValidateCollectionName(std::string(128, 'x')));
  for (const std::string& bad :
       {std::string(), std::string(129, 'x'), std::string("a b"),
        std::string("a/b"), std::string("ünï"), std::string("a\0b", 3)}) {
    EXPECT_EQ(CodeOf(ValidateCollectionName(bad)),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
}

TEST(ValidationTest, ExternalIds) {
  EXPECT_OK(ValidateExternalId(std::string("\0\xff", 2)));
  EXPECT_OK(ValidateExternalId(std::string(1024, 'x')));
  EXPECT_EQ(CodeOf(ValidateExternalId("")), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CodeOf(ValidateExternalId(std::string(1025, 'x'))),
            absl::StatusCode::kInvalidArgument);
}

TEST(ValidationTest, AcceptsMatchingWrites) {
  EXPECT_OK(ValidateDocumentWrite(Collection(false), Write(false)));
  EXPECT_OK(ValidateDocumentWrite(Collection(true), Write(true)));
}

TEST(ValidationTest, MinHashConfigMismatchNamesBothHashes) {
  DocumentWrite doc = Write(false);
  doc.minhash_config_hash = 0x9999;
  const absl::Status status = ValidateDocumentWrite(Collection(false), doc);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("0000000000009999"), absl::string_view::npos)
      << status;
  EXPECT_NE(status.message().find("0000000000001111"), absl::string_view::npos)
      << status;
}

TEST(ValidationTest, WidthMismatch) {
  DocumentWrite doc = Write(false);
  doc.minhash.slots.assign(128, 7);
  EXPECT_EQ(CodeOf(ValidateDocumentWrite(Collection(false), doc)),
            absl::StatusCode::kInvalidArgument);
}

TEST(ValidationTest, ShingleHashesWiderThanTheCollectionsEvidenceAreRefused) {
  CollectionRecord narrow = Collection(false);
  narrow.config.evidence_bits = 32;
  DocumentWrite doc = Write(false);
  doc.shingles = std::vector<uint64_t>{1, 0xFFFFFFFFull};
  EXPECT_OK(ValidateDocumentWrite(narrow, doc));
  doc.shingles->push_back(uint64_t{1} << 32);
  const absl::Status status = ValidateDocumentWrite(narrow, doc);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("evidence_bits (32)"),
            absl::string_view::npos)
      << status;
  CollectionRecord wide = narrow;
  wide.config.evidence_bits = 64;
  EXPECT_OK(ValidateDocumentWrite(wide, doc));
}

TEST(ValidationTest, SimHashPresence) {
  EXPECT_EQ(CodeOf(ValidateDocumentWrite(Collection(false), Write(true))),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CodeOf(ValidateDocumentWrite(Collection(true), Write(false))),
            absl::StatusCode::kInvalidArgument);
  DocumentWrite doc = Write(true);
  doc.simhash_config_hash = 0x3333;
  EXPECT_EQ(CodeOf(ValidateDocumentWrite(Collection(true), doc)),
            absl::StatusCode::kFailedPrecondition);
}

TEST(ValidationTest, SortedMetadata) {
  absl::StatusOr<Metadata> sorted =
      SortedMetadata({{"b", "2"}, {"a", "1"}, {"c", "3"}});
  ASSERT_OK(sorted);
  EXPECT_EQ(*sorted, (Metadata{{"a", "1"}, {"b", "2"}, {"c", "3"}}));
  EXPECT_EQ(
      SortedMetadata({{"a", "1"}, {"b", "2"}, {"a", "3"}}).status().code(),
      absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace neardup::storage
