#include "neardup/cluster/log_entry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/escaping.h"
#include "neardup/cluster/log_entry.pb.h"
#include "neardup/core/collection_config.h"
#include "neardup/core/collection_fingerprinter.h"
#include "neardup/core/config_hash.h"
#include "neardup/core/hash.h"
#include "neardup/core/shingle_set.h"
#include "support/status_matchers.h"

namespace neardup::cluster {
namespace {

using ::neardup::testing::StatusIs;
using ::testing::HasSubstr;
namespace pb = ::neardup::cluster::log;

LogEntry Deletion(std::string collection, std::string id) {
  LogEntry entry;
  entry.collection = std::move(collection);
  entry.delete_id = std::move(id);
  return entry;
}

// Every field set, from a real fingerprint, so the golden bytes below pin
// the whole format.
LogEntry EveryField() {
  CollectionConfig config;
  config.simhash_enabled = true;
  config.kept_families = {"tlsh"};
  // The log carries sets in the 64-bit encoding whatever their width; 64-bit
  // hashes keep the bytes this golden was made with.
  config.evidence_bits = 64;
  const CollectionFingerprinter fingerprinter =
      *CollectionFingerprinter::Create(*NormalizeCollectionConfig(config));
  const std::string text =
      "The committee met on Tuesday to review the budget for the coming "
      "year.";
  engine::PreparedDocument doc;
  doc.external_id = "doc-1";
  doc.metadata = {{"lang", "en"}, {"src", "wire"}};
  doc.text = text;
  std::vector<uint64_t> evidence;
  doc.minhash = *fingerprinter.MinHash(text, &evidence);
  doc.minhash_config_hash = fingerprinter.minhash_config_hash();
  doc.simhash = *fingerprinter.SimHash(text);
  doc.simhash_config_hash = fingerprinter.simhash_config_hash();
  doc.shingles = evidence;
  doc.evidence_bits = 64;
  doc.kept = fingerprinter.Kept(text);
  doc.embedding = std::vector<float>{0.6f, 0.8f};
  doc.embedding_model_id = "m1";
  LogEntry entry;
  entry.collection = "news";
  entry.upsert = doc;
  return entry;
}

TEST(LogEntry, RoundTripsEveryField) {
  const LogEntry entry = EveryField();
  ASSERT_EQ(entry.upsert->kept.size(), 1u);  // the text allows a TLSH
  ASSERT_OK_AND_ASSIGN(const std::string bytes, EncodeLogEntry(entry));
  ASSERT_OK_AND_ASSIGN(const LogEntry back, DecodeLogEntry(bytes));
  EXPECT_EQ(back, entry);

  const LogEntry deletion = Deletion("news", "doc-1");
  ASSERT_OK_AND_ASSIGN(const std::string deleted, EncodeLogEntry(deletion));
  ASSERT_OK_AND_ASSIGN(const LogEntry deleted_back, DecodeLogEntry(deleted));
  EXPECT_EQ(deleted_back, deletion);

  // A document without the optional parts stays without them.
  LogEntry bare = entry;
  bare.upsert->text.reset();
  bare.upsert->simhash.reset();
  bare.upsert->shingles.reset();
  bare.upsert->evidence_bits = 0;  // the width goes with the set
  bare.upsert->kept.clear();
  bare.upsert->embedding.reset();
  ASSERT_OK_AND_ASSIGN(const std::string bare_bytes, EncodeLogEntry(bare));
  ASSERT_OK_AND_ASSIGN(const LogEntry bare_back, DecodeLogEntry(bare_bytes));
  EXPECT_EQ(bare_back, bare);

  // Who wrote it, and dedup-on-write.
  LogEntry guarded = entry;
  guarded.append_id = "node-a-1f-7";
  guarded.insert_only_below = 0.8;
  guarded.unix_micros = 1795839243461831;
  guarded.outcome_subject = "neardup.outcome.3fa9";
  ASSERT_OK_AND_ASSIGN(const std::string guarded_bytes,
                       EncodeLogEntry(guarded));
  ASSERT_OK_AND_ASSIGN(const LogEntry guarded_back,
                       DecodeLogEntry(guarded_bytes));
  EXPECT_EQ(guarded_back, guarded);
}

// Replicas apply what the log holds long after it was written, perhaps by
// another build: the bytes of an entry are fixed.
// 32-bit evidence says its width on the wire (a build before widths then
// refuses the entry) and travels in 32-bit coding; 64-bit evidence keeps
// the bytes of entries before widths.
TEST(LogEntry, EvidenceWidthTravelsWithTheSet) {
  LogEntry entry = EveryField();
  std::vector<uint64_t>& set = *entry.upsert->shingles;
  NarrowEvidence(32, &set);
  entry.upsert->evidence_bits = 32;
  ASSERT_OK_AND_ASSIGN(const std::string narrow, EncodeLogEntry(entry));
  ASSERT_OK_AND_ASSIGN(const LogEntry back, DecodeLogEntry(narrow));
  EXPECT_EQ(back, entry);
  pb::LogEntry message;
  ASSERT_TRUE(message.ParseFromString(narrow));
  EXPECT_EQ(message.upsert().evidence_bits(), 32u);
  EXPECT_EQ(message.upsert().shingle_set(), EncodeShingleSet(set, 32));

  ASSERT_OK_AND_ASSIGN(const std::string wide, EncodeLogEntry(EveryField()));
  ASSERT_TRUE(message.ParseFromString(wide));
  EXPECT_EQ(message.upsert().evidence_bits(), 0u);
  // A width no build writes is a corrupt entry.
  ASSERT_TRUE(message.ParseFromString(narrow));
  message.mutable_upsert()->set_evidence_bits(16);
  EXPECT_THAT(DecodeLogEntry(message.SerializeAsString()).status().message(),
              HasSubstr("evidence_bits 16"));
}

TEST(LogEntry, DeleteBytesAreGolden) {
  const LogEntry deletion = Deletion("news", "doc-1");
  ASSERT_OK_AND_ASSIGN(const std::string bytes, EncodeLogEntry(deletion));
  EXPECT_EQ(absl::BytesToHexString(bytes), "0a046e6577731a05646f632d31");

  LogEntry guarded = Deletion("news", "doc-1");
  guarded.append_id = "n1-ab-2";
  ASSERT_OK_AND_ASSIGN(const std::string with_id, EncodeLogEntry(guarded));
  EXPECT_EQ(absl::BytesToHexString(with_id),
            "0a046e6577731a05646f632d3122076e312d61622d32");
}

// The dedup-on-write threshold, as an upsert carries it.
TEST(LogEntry, DedupOnWriteBytesAreGolden) {
  LogEntry entry = EveryField();
  entry.insert_only_below = 0.75;
  ASSERT_OK_AND_ASSIGN(const std::string bytes, EncodeLogEntry(entry));
  ASSERT_OK_AND_ASSIGN(const std::string plain, EncodeLogEntry(EveryField()));
  // Field 5, a double (tag 0x29), then 0.75 little-endian.
  EXPECT_EQ(absl::BytesToHexString(bytes.substr(plain.size())),
            "29000000000000e83f");
  EXPECT_EQ(bytes.substr(0, plain.size()), plain);

  // Its time (field 6, a varint).
  LogEntry timed = EveryField();
  timed.unix_micros = 1;
  ASSERT_OK_AND_ASSIGN(const std::string timed_bytes, EncodeLogEntry(timed));
  EXPECT_EQ(absl::BytesToHexString(timed_bytes.substr(plain.size())), "3001");

  // Where its outcome goes (field 7, a string).
  LogEntry told = EveryField();
  told.outcome_subject = "o.1";
  ASSERT_OK_AND_ASSIGN(const std::string told_bytes, EncodeLogEntry(told));
  EXPECT_EQ(absl::BytesToHexString(told_bytes.substr(plain.size())),
            "3a036f2e31");
}

// An upsert of every field, pinned by its size and digest (its MinHash
// alone is 1 KB): a change here is a change of the log's format.
TEST(LogEntry, UpsertBytesAreGolden) {
  ASSERT_OK_AND_ASSIGN(const std::string a, EncodeLogEntry(EveryField()));
  ASSERT_OK_AND_ASSIGN(const std::string b, EncodeLogEntry(EveryField()));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.size(), 1356u);
  EXPECT_EQ(FormatHex64(Xxh3Hash64(a)), "490d7b2f686bbdd4");
}

TEST(LogEntry, RefusesWhatIsNoEntry) {
  LogEntry neither;
  neither.collection = "c";
  EXPECT_THAT(
      EncodeLogEntry(neither).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("exactly one")));
  EXPECT_THAT(DecodeLogEntry("\xff\xff").status(),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("protobuf")));
  EXPECT_THAT(DecodeLogEntry(std::string("\x0a\x01\x63", 3)).status(),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("no operation")));
  LogEntry guarded_delete = Deletion("c", "d");
  guarded_delete.insert_only_below = 0.5;
  EXPECT_THAT(
      EncodeLogEntry(guarded_delete).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not deletes")));
  // An upsert whose MinHash does not parse.
  const std::string bad_minhash = std::string("\x12\x04\x22\x02\x01\x02", 6);
  EXPECT_THAT(DecodeLogEntry(bad_minhash).status(),
              StatusIs(absl::StatusCode::kDataLoss, ::testing::_));
}

}  // namespace
}  // namespace neardup::cluster
