// The export line format and how a dumped document goes back in.

#include "neardup/cli/internal/export_dump.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"
#include "support/status_matchers.h"

// Checks the deprecated TLSH spellings on purpose.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace neardup::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

v1::Document SampleDocument() {
  v1::Document doc;
  doc.set_id("doc \"1\"");
  // (std::string values: GCC 12 warns falsely on assigning literals here.)
  (*doc.mutable_metadata())["b"] = std::string("2");
  (*doc.mutable_metadata())["a"] = std::string("1");
  doc.set_text("caf\xc3\xa9 text\nsecond line");
  doc.mutable_signatures()->set_minhash(std::string("\x01\x00\xff\x7f", 4));
  doc.mutable_signatures()->set_minhash_config_hash(0x0123456789abcdefULL);
  doc.mutable_signatures()->set_simhash(0xfedcba9876543210ULL);
  doc.mutable_signatures()->set_simhash_config_hash(42);
  doc.mutable_signatures()->set_shingle_set(std::string("\x02\x10\x20", 3));
  return doc;
}

v1::Collection CollectionWith(uint64_t minhash_hash, uint64_t simhash_hash) {
  v1::Collection collection;
  collection.set_name("target");
  collection.set_minhash_config_hash(minhash_hash);
  collection.set_simhash_config_hash(simhash_hash);
  return collection;
}

TEST(ExportDump, LineFormatIsStable) {
  EXPECT_EQ(EncodeExportLine(SampleDocument()),
            "{\"neardup_export\":1,\"id\":\"doc \\\"1\\\"\",\"metadata\":"
            "{\"a\":\"1\",\"b\":\"2\"},\"text\":\"caf\xc3\xa9 text\\nsecond "
            "line\",\"signatures\":{\"minhash\":\"AQD/fw==\","
            "\"minhash_config_hash\":\"0123456789abcdef\",\"simhash\":"
            "\"fedcba9876543210\",\"simhash_config_hash\":\"000000000000002a\","
            "\"shingle_set\":\"AhAg\"}}");
}

TEST(ExportDump, RoundTrips) {
  const v1::Document doc = SampleDocument();
  const std::string line = EncodeExportLine(doc);
  EXPECT_TRUE(IsExportLine(line));
  ASSERT_OK_AND_ASSIGN(v1::Document back, DecodeExportLine(line));
  // Map order makes serialized bytes vary: compare the messages.
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(back, doc))
      << back.DebugString();
  v1::Document bare;
  bare.set_id("x");
  ASSERT_OK_AND_ASSIGN(v1::Document bare_back,
                       DecodeExportLine(EncodeExportLine(bare)));
  EXPECT_FALSE(bare_back.has_signatures());
  EXPECT_TRUE(bare_back.text().empty());
}

// A shingle set of 32-bit hashes says so; one without the key is 64-bit
// (every dump before the width existed).
TEST(ExportDump, EvidenceBitsTravelWithTheShingleSet) {
  v1::Document doc = SampleDocument();
  doc.mutable_signatures()->set_evidence_bits(32);
  const std::string line = EncodeExportLine(doc);
  EXPECT_THAT(line, HasSubstr("\"shingle_set\":\"AhAg\",\"evidence_bits\":32"));
  ASSERT_OK_AND_ASSIGN(const v1::Document back, DecodeExportLine(line));
  EXPECT_EQ(back.signatures().evidence_bits(), 32u);
  doc.mutable_signatures()->set_evidence_bits(64);
  EXPECT_THAT(EncodeExportLine(doc), Not(HasSubstr("evidence_bits")));
  for (const char* bad : {"16", "\"32\"", "-32", "32.5"}) {
    const std::string wrong =
        absl::StrCat("{\"neardup_export\":1,\"id\":\"x\",\"signatures\":{",
                     "\"minhash\":\"AQD/fw==\",\"minhash_config_hash\":",
                     "\"0123456789abcdef\",\"shingle_set\":\"AhAg\",",
                     "\"evidence_bits\":", bad, "}}");
    EXPECT_THAT(DecodeExportLine(wrong).status().message(),
                HasSubstr("evidence_bits"))
        << bad;
  }
}

TEST(ExportDump, RefusesMalformedLines) {
  EXPECT_FALSE(IsExportLine("{\"id\":\"x\",\"text\":\"y\"}"));
  EXPECT_FALSE(IsExportLine("not json"));
  for (const char* bad : {
           "{\"id\":\"x\"}",  // no marker
           "[1]",
           "{\"neardup_export\":1}",
           "{\"neardup_export\":1,\"id\":3}",
           "{\"neardup_export\":1,\"id\":\"x\",\"metadata\":{\"k\":1}}",
           "{\"neardup_export\":1,\"id\":\"x\",\"signatures\":{\"minhash\":"
           "\"!!\",\"minhash_config_hash\":\"0000000000000001\"}}",
           "{\"neardup_export\":1,\"id\":\"x\",\"signatures\":{\"minhash\":"
           "\"AA==\",\"minhash_config_hash\":\"12\"}}",
       }) {
    EXPECT_EQ(DecodeExportLine(bad).status().code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
}

// Kept families go out as one "kept" entry each, TLSH also under the keys
// older dumps had; both come back in both of the API's spellings, and the
// old keys alone are still read.
TEST(ExportDump, KeptFamiliesRoundTripAndReadOldDumps) {
  const std::string tlsh = "T1" + std::string(70, 'A');
  v1::Document doc;
  doc.set_id("k");
  v1::Signatures* sigs = doc.mutable_signatures();
  sigs->set_minhash("AA");
  v1::KeptValue* kept = sigs->add_kept();
  kept->set_family("tlsh");
  kept->set_value(tlsh);
  kept->set_config_hash(0x2a);
  sigs->set_tlsh(tlsh);
  sigs->set_tlsh_config_hash(0x2a);
  const std::string line = EncodeExportLine(doc);
  EXPECT_THAT(line, HasSubstr("\"kept\":{\"tlsh\":{\"value\":\"" + tlsh +
                              "\",\"config_hash\":\"000000000000002a\"}}"));
  EXPECT_THAT(line, HasSubstr("\"tlsh\":\"" + tlsh + "\""));
  ASSERT_OK_AND_ASSIGN(const v1::Document back, DecodeExportLine(line));
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(back, doc))
      << back.DebugString();

  const std::string old_line =
      "{\"neardup_export\":1,\"id\":\"k\",\"signatures\":{\"minhash\":"
      "\"QUE=\",\"minhash_config_hash\":\"0000000000000000\",\"tlsh\":\"" +
      tlsh + "\",\"tlsh_config_hash\":\"000000000000002a\"}}";
  ASSERT_OK_AND_ASSIGN(const v1::Document old, DecodeExportLine(old_line));
  ASSERT_EQ(old.signatures().kept_size(), 1);
  EXPECT_EQ(old.signatures().kept(0).value(), tlsh);
  EXPECT_EQ(old.signatures().kept(0).config_hash(), 0x2au);
  EXPECT_EQ(old.signatures().tlsh(), tlsh);

  for (const char* bad : {
           "\"kept\":[1]",
           "\"kept\":{\"tlsh\":{\"config_hash\":\"000000000000002a\"}}",
           "\"kept\":{\"tlsh\":{\"value\":\"T1\",\"config_hash\":\"2a\"}}",
       }) {
    const std::string line_with =
        std::string(
            "{\"neardup_export\":1,\"id\":\"x\",\"signatures\":{"
            "\"minhash\":\"AA==\",\"minhash_config_hash\":"
            "\"0000000000000001\",") +
        bad + "}}";
    EXPECT_EQ(DecodeExportLine(line_with).status().code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
}

TEST(ExportDump, TextGoesBackAsTextWhateverTheConfig) {
  ASSERT_OK_AND_ASSIGN(
      v1::UpsertRequest request,
      UpsertFromExport(SampleDocument(), CollectionWith(7, 0)));
  EXPECT_EQ(request.collection(), "target");
  EXPECT_EQ(request.text(), SampleDocument().text());
  EXPECT_FALSE(request.has_signatures());
  EXPECT_EQ(request.metadata().at("a"), "1");
}

TEST(ExportDump, SignaturesGoBackOnlyUnderTheSameConfig) {
  v1::Document doc = SampleDocument();
  doc.clear_text();
  ASSERT_OK_AND_ASSIGN(
      v1::UpsertRequest same,
      UpsertFromExport(doc, CollectionWith(0x0123456789abcdefULL, 42)));
  EXPECT_EQ(same.signatures().SerializeAsString(),
            doc.signatures().SerializeAsString());
  // A target without SimHash keeps the MinHash only.
  ASSERT_OK_AND_ASSIGN(
      v1::UpsertRequest no_simhash,
      UpsertFromExport(doc, CollectionWith(0x0123456789abcdefULL, 0)));
  EXPECT_FALSE(no_simhash.signatures().has_simhash());
  EXPECT_EQ(no_simhash.signatures().simhash_config_hash(), 0u);

  const absl::Status other =
      UpsertFromExport(doc, CollectionWith(99, 42)).status();
  EXPECT_EQ(other.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(other.message(), HasSubstr("0123456789abcdef"));
  EXPECT_THAT(other.message(), HasSubstr("no text to fingerprint again"));
  EXPECT_EQ(UpsertFromExport(doc, CollectionWith(0x0123456789abcdefULL, 43))
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  doc.clear_signatures();
  EXPECT_THAT(UpsertFromExport(doc, CollectionWith(1, 0)).status().message(),
              HasSubstr("neither text nor signatures"));
}

}  // namespace
}  // namespace neardup::cli
