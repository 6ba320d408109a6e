// Store: what survives a close, the on-disk format guard, checkpoints and
// stored data that went bad. Some tests reach under the Store with raw
// RocksDB.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "neardup/storage/column_families.h"
#include "neardup/storage/internal/keys.h"
#include "neardup/storage/internal/record_codec.h"
#include "neardup/storage/store.h"
#include "rocksdb/db.h"
#include "storage/raw_db.h"
#include "storage/store_test_util.h"

namespace neardup::storage {
namespace {

using ::testing::AllOf;
using testing::DocumentMaker;
using ::testing::HasSubstr;
using testing::RawDb;
using testing::StoreTest;

// Long and varied enough for every kept family (TLSH: 50 bytes).
constexpr std::string_view kLongText =
    "The committee met on Tuesday to review the budget for the coming year "
    "and agreed to fund the new library wing before the winter session.";

std::vector<std::string> AllFamilyNames() {
  std::vector<std::string> names;
  for (const ColumnFamilyInfo& info : kColumnFamilies) {
    names.emplace_back(info.name);
  }
  for (const KeptFamily* kept : KeptFamilies()) names.emplace_back(kept->name);
  return names;
}

// Everything observable about a collection's documents.
struct Contents {
  std::vector<StoredSignatures> signatures;
  std::vector<StoredDocument> documents;
};

Contents Capture(const Store& store, const CollectionRecord& collection) {
  Contents snapshot;
  const absl::Status status =
      store.ForEachSignature(collection, [&](StoredSignatures s) {
        absl::StatusOr<StoredDocument> doc =
            store.GetDocumentByInternalId(collection, s.internal_id);
        if (!doc.ok()) return doc.status();
        snapshot.documents.push_back(*std::move(doc));
        snapshot.signatures.push_back(std::move(s));
        return absl::OkStatus();
      });
  EXPECT_OK(status);
  return snapshot;
}

class StorePersistenceTest : public StoreTest {
 protected:
  // Fills `name` with `count` documents, replacing the first and deleting
  // the second.
  void Fill(Store& store, const std::string& name,
            const CollectionConfig& config, int count) {
    ASSERT_OK_AND_ASSIGN(CollectionRecord collection,
                         store.CreateCollection(name, config));
    DocumentMaker maker(collection);
    for (int i = 0; i < count; ++i) {
      DocumentWrite doc = maker.Make(
          absl::StrCat("doc-", i),
          absl::StrCat(name, " document ", i, " with a few more words"));
      doc.metadata = {{"i", absl::StrCat(i)}};
      ASSERT_OK(
          store.PutDocument(collection, doc, {.sync = i % 2 == 0}).status());
    }
    ASSERT_OK(
        store.PutDocument(collection, maker.Make("doc-0", "replaced text"))
            .status());
    ASSERT_OK(store.DeleteDocument(collection, "doc-1").status());
  }
};

TEST_F(StorePersistenceTest, ReopenSeesTheSameCollectionsAndDocuments) {
  CollectionConfig with_text = SimHashConfig();
  with_text.store_text = true;
  std::vector<CollectionRecord> collections;
  Contents a_before, b_before;
  {
    ASSERT_OK_AND_ASSIGN(auto store, OpenStore());
    Fill(*store, "a", with_text, 50);
    Fill(*store, "b", CollectionConfig{}, 30);
    collections = store->ListCollections();
    a_before = Capture(*store, collections[0]);
    b_before = Capture(*store, collections[1]);
  }
  ASSERT_EQ(a_before.documents.size(), 49u);
  ASSERT_EQ(b_before.documents.size(), 29u);

  ASSERT_OK_AND_ASSIGN(auto store, OpenStore());
  ASSERT_EQ(store->ListCollections(), collections);
  const Contents a_after = Capture(*store, collections[0]);
  const Contents b_after = Capture(*store, collections[1]);
  EXPECT_EQ(a_after.signatures, a_before.signatures);
  EXPECT_EQ(a_after.documents, a_before.documents);
  EXPECT_EQ(b_after.signatures, b_before.signatures);
  EXPECT_EQ(b_after.documents, b_before.documents);

  // The id counter survived: no internal id is handed out twice.
  DocumentMaker maker(collections[0]);
  ASSERT_OK_AND_ASSIGN(
      PutResult put,
      store->PutDocument(collections[0], maker.Make("new", "fresh words")));
  EXPECT_EQ(put.internal_id, 50u);
  ASSERT_OK_AND_ASSIGN(CollectionRecord c,
                       store->CreateCollection("c", CollectionConfig{}));
  EXPECT_GT(c.id, std::max(collections[0].id, collections[1].id));
}

// Store format 1 kept the text inside the document record; format 2 keeps
// it in the text column family. Both read back.
TEST_F(StorePersistenceTest, TextInsideAFormatOneRecordStillReads) {
  CollectionConfig with_text;
  with_text.store_text = true;
  CollectionRecord collection;
  {
    ASSERT_OK_AND_ASSIGN(auto store, OpenStore());
    ASSERT_OK_AND_ASSIGN(collection, store->CreateCollection("t", with_text));
    DocumentMaker maker(collection);
    ASSERT_OK(store->PutDocument(collection, maker.Make("d", "old style text"))
                  .status());
  }
  {
    RawDb raw(StoreDir());
    const std::string key = keys::DocKey(collection.id, 0);
    EXPECT_EQ(raw.Get(ColumnFamily::kText, key), "old style text");
    ASSERT_OK_AND_ASSIGN(DocumentRecord record, DecodeDocumentRecord(raw.Get(
                                                    ColumnFamily::kDocs, key)));
    EXPECT_FALSE(record.text.has_value());  // format 2: not inline
    record.text = "old style text";
    raw.Put(ColumnFamily::kDocs, key, EncodeDocumentRecord(record));
    raw.Delete(ColumnFamily::kText, key);
  }
  ASSERT_OK_AND_ASSIGN(auto store, OpenStore());
  ASSERT_OK_AND_ASSIGN(StoredDocument doc, store->GetDocument(collection, "d"));
  EXPECT_EQ(doc.text, "old style text");
}

TEST_F(StorePersistenceTest, DeleteAndDropLeaveNoEntriesBehind) {
  CollectionRecord collection;
  uint32_t deleted = 0;
  {
    ASSERT_OK_AND_ASSIGN(auto store, OpenStore());
    CollectionConfig config = SimHashConfig();
    config.kept_families = {"tlsh"};
    ASSERT_OK_AND_ASSIGN(collection, store->CreateCollection("a", config));
    DocumentMaker maker(collection);
    for (const char* id : {"x", "y", "z"}) {
      ASSERT_OK(
          store->PutDocument(collection, maker.Make(id, kLongText)).status());
    }
    ASSERT_OK_AND_ASSIGN(deleted, store->DeleteDocument(collection, "y"));
  }
  const std::string prefix = keys::CollectionPrefix(collection.id);
  {
    RawDb raw(StoreDir());
    EXPECT_FALSE(raw.Has(ColumnFamily::kIds, keys::IdKey(collection.id, "y")));
    for (ColumnFamily family : {ColumnFamily::kDocs, ColumnFamily::kMinHash,
                                ColumnFamily::kSimHash}) {
      EXPECT_FALSE(raw.Has(family, keys::DocKey(collection.id, deleted)));
      EXPECT_EQ(raw.CountWithPrefix(family, prefix), 2u);
    }
    EXPECT_EQ(raw.CountWithPrefix("tlsh", prefix), 2u);  // kept families too
    EXPECT_EQ(raw.CountWithPrefix(ColumnFamily::kIds, prefix), 2u);
  }
  {
    ASSERT_OK_AND_ASSIGN(auto store, OpenStore());
    ASSERT_OK(store->DropCollection("a"));
  }
  RawDb raw(StoreDir());
  for (ColumnFamily family :
       {ColumnFamily::kIds, ColumnFamily::kDocs, ColumnFamily::kMinHash,
        ColumnFamily::kSimHash, ColumnFamily::kEvidence, ColumnFamily::kText,
        ColumnFamily::kEmbedding}) {
    EXPECT_EQ(raw.CountWithPrefix(family, prefix), 0u);
  }
  for (const KeptFamily* kept : KeptFamilies()) {
    EXPECT_EQ(raw.CountWithPrefix(kept->name, prefix), 0u);
  }
  EXPECT_FALSE(raw.Has(ColumnFamily::kCollections, "a"));
  EXPECT_FALSE(raw.Has(ColumnFamily::kMeta, keys::NextDocIdKey(collection.id)));
  EXPECT_TRUE(raw.Has(ColumnFamily::kMeta, keys::kNextCollectionId));
}

TEST_F(StorePersistenceTest, NewerFormatVersionIsRefused) {
  { ASSERT_OK(OpenStore().status()); }
  {
    RawDb raw(StoreDir());
    EXPECT_EQ(raw.Get(ColumnFamily::kMeta, keys::kFormatVersion),
              keys::EncodeU32LittleEndian(Store::kFormatVersion));
    raw.Put(ColumnFamily::kMeta, keys::kFormatVersion,
            keys::EncodeU32LittleEndian(Store::kFormatVersion + 1));
  }
  const absl::Status status = OpenStore().status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(
      status.message(),
      AllOf(HasSubstr("newer neardup"),
            HasSubstr(absl::StrCat("version ", Store::kFormatVersion + 1)),
            HasSubstr(absl::StrCat("version ", Store::kFormatVersion))));
}

TEST_F(StorePersistenceTest, OlderFormatsAreUpgradedInPlace) {
  for (uint32_t old_version = 1; old_version < Store::kFormatVersion;
       ++old_version) {
    { ASSERT_OK(OpenStore().status()); }
    {
      RawDb raw(StoreDir());
      raw.Put(ColumnFamily::kMeta, keys::kFormatVersion,
              keys::EncodeU32LittleEndian(old_version));
    }
    { ASSERT_OK(OpenStore().status()); }
    RawDb raw(StoreDir());
    EXPECT_EQ(raw.Get(ColumnFamily::kMeta, keys::kFormatVersion),
              keys::EncodeU32LittleEndian(Store::kFormatVersion));
  }
}

TEST_F(StorePersistenceTest, DatabaseWithoutFormatVersionIsRefused) {
  { RawDb raw(StoreDir(), AllFamilyNames()); }
  const absl::Status status = OpenStore().status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("format_version"));
}

TEST_F(StorePersistenceTest, ForeignDatabaseIsRefusedAndLeftAlone) {
  {
    RawDb raw(StoreDir());
    raw.Put(ColumnFamily::kDefault, "someone", "else's data");
  }
  EXPECT_EQ(OpenStore().status().code(), absl::StatusCode::kFailedPrecondition);
  RawDb raw(StoreDir());
  EXPECT_THAT(raw.FamilyNames(), ::testing::ElementsAre("default"));
}

TEST_F(StorePersistenceTest, MissingStoreWithoutCreateIsNotFound) {
  StoreOptions options = SmallOptions();
  options.create_if_missing = false;
  EXPECT_EQ(OpenStore(options).status().code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE(std::filesystem::exists(StoreDir()));
}

TEST_F(StorePersistenceTest, BadOptionsAreInvalidArgument) {
  StoreOptions options = SmallOptions();
  options.write_buffer_bytes = options.block_cache_bytes + 1;
  EXPECT_EQ(OpenStore(options).status().code(),
            absl::StatusCode::kInvalidArgument);
  options = SmallOptions();
  options.background_jobs = 0;
  EXPECT_EQ(OpenStore(options).status().code(),
            absl::StatusCode::kInvalidArgument);
  for (const auto& [start, stop] : std::vector<std::pair<double, double>>{
           {0.25, 0.0}, {0.1, 0.2}, {1.5, 0.5}, {0.25, -1.0}}) {
    options = SmallOptions();
    options.blob_gc_start_ratio = start;
    options.blob_gc_stop_ratio = stop;
    const absl::Status status = OpenStore(options).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(status.message(), HasSubstr("blob garbage collection"));
  }
  options = SmallOptions();
  options.idle_settle_after = std::chrono::milliseconds(-1);
  EXPECT_THAT(OpenStore(options).status().message(),
              HasSubstr("idle_settle_after"));
}

TEST_F(StorePersistenceTest, SecondOpenOfALiveStoreFails) {
  ASSERT_OK_AND_ASSIGN(auto store, OpenStore());
  EXPECT_FALSE(OpenStore().ok());
}

TEST_F(StorePersistenceTest, CheckpointOpensAsAStoreWithTheData) {
  ASSERT_OK_AND_ASSIGN(auto store, OpenStore());
  Fill(*store, "a", SimHashConfig(), 40);
  ASSERT_OK_AND_ASSIGN(CollectionRecord a, store->GetCollection("a"));
  const Contents before = Capture(*store, a);
  const std::string checkpoint_dir = temp_.path() + "/checkpoint";
  ASSERT_OK_AND_ASSIGN(CheckpointInfo info, store->Checkpoint(checkpoint_dir));
  // Fill wrote 40 documents and deleted one.
  EXPECT_EQ(info.documents, (std::map<std::string, uint64_t>{{"a", 39}}));
  EXPECT_GT(info.sequence_number, 0u);
  EXPECT_GT(info.bytes, 0u);
  EXPECT_EQ(store->Checkpoint(checkpoint_dir).status().code(),
            absl::StatusCode::kAlreadyExists);
  // Writes after the checkpoint stay out of it.
  ASSERT_OK(store->DeleteDocument(a, "doc-5").status());
  ASSERT_OK(store->CreateCollection("later", {}).status());

  ASSERT_OK_AND_ASSIGN(auto restored,
                       Store::Open(checkpoint_dir, SmallOptions()));
  ASSERT_OK_AND_ASSIGN(CollectionRecord restored_a,
                       restored->GetCollection("a"));
  EXPECT_EQ(restored_a, a);
  EXPECT_EQ(restored->GetCollection("later").status().code(),
            absl::StatusCode::kNotFound);
  const Contents after = Capture(*restored, restored_a);
  EXPECT_EQ(after.signatures, before.signatures);
  EXPECT_EQ(after.documents, before.documents);
}

TEST_F(StorePersistenceTest, ForeignConfigHashIsDataLossNamingTheDocument) {
  CollectionRecord collection;
  {
    ASSERT_OK_AND_ASSIGN(auto store, OpenStore());
    Fill(*store, "a", CollectionConfig{}, 5);
    ASSERT_OK_AND_ASSIGN(collection, store->GetCollection("a"));
  }
  {
    RawDb raw(StoreDir());
    const std::string key = keys::DocKey(collection.id, 3);
    absl::StatusOr<MinHashValue> value =
        DecodeMinHashValue(raw.Get(ColumnFamily::kMinHash, key));
    ASSERT_OK(value);
    raw.Put(ColumnFamily::kMinHash, key,
            EncodeMinHashValue(value->config_hash ^ 1, value->signature));
  }
  ASSERT_OK_AND_ASSIGN(auto store, OpenStore());
  int visited = 0;
  const absl::Status status =
      store->ForEachSignature(collection, [&](StoredSignatures) {
        ++visited;
        return absl::OkStatus();
      });
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(), HasSubstr("internal id 3"));
  EXPECT_EQ(visited, 2);  // ids 0 and 2; 1 was deleted
  EXPECT_EQ(store->GetDocument(collection, "doc-3").status().code(),
            absl::StatusCode::kDataLoss);
}

TEST_F(StorePersistenceTest, StatsReportMemoryAndFiles) {
  ASSERT_OK_AND_ASSIGN(auto store, OpenStore());
  Fill(*store, "a", CollectionConfig{}, 100);
  StoreStats stats = store->Stats();
  EXPECT_EQ(stats.block_cache_capacity_bytes, SmallOptions().block_cache_bytes);
  EXPECT_GT(stats.memtable_bytes, 0u);
  // Memtables are charged to the block cache.
  EXPECT_GT(stats.block_cache_usage_bytes, 0u);
  // A long text's evidence (over 256 bytes) goes to a blob file.
  ASSERT_OK_AND_ASSIGN(CollectionRecord long_texts,
                       store->CreateCollection("long", CollectionConfig{}));
  std::string text;
  for (int w = 0; w < 200; ++w) absl::StrAppend(&text, "word", w, " ");
  DocumentWrite long_doc = DocumentMaker(long_texts).Make("long-0", text);
  std::vector<uint64_t> shingles;
  for (uint64_t i = 1; i <= 200; ++i)  // 32-bit evidence: the top halves
    shingles.push_back((i * 0x9E3779B97F4A7C15) >> 32);
  std::sort(shingles.begin(), shingles.end());
  long_doc.shingles = std::move(shingles);
  ASSERT_OK(store->PutDocument(long_texts, long_doc).status());
  // A checkpoint flushes the memtables into SST and blob files.
  ASSERT_OK(store->Checkpoint(temp_.path() + "/checkpoint"));
  stats = store->Stats();
  EXPECT_GT(stats.live_sst_bytes, 0u);
  EXPECT_GE(stats.total_sst_bytes, stats.live_sst_bytes);
  EXPECT_GT(stats.live_blob_bytes, 0u);
  // Nothing replaced or deleted has reached a blob file.
  EXPECT_EQ(stats.blob_garbage_bytes, 0u);
  EXPECT_FALSE(stats.blob_gc_on);
}

// Families read by key keep bloom filters and indexes in small partitions
// (a lookup loads one partition, not a whole file's filter); the MinHash
// family, only scanned, has no filter.
TEST_F(StorePersistenceTest, LookupFamiliesHavePartitionedIndexesAndFilters) {
  {
    ASSERT_OK_AND_ASSIGN(auto store, OpenStore());
    Fill(*store, "a", CollectionConfig{}, 100);
    // A checkpoint flushes the memtables into SST files.
    ASSERT_OK(store->Checkpoint(temp_.path() + "/checkpoint"));
  }
  RawDb raw(StoreDir());
  for (const ColumnFamily family : {ColumnFamily::kIds, ColumnFamily::kDocs}) {
    const std::string_view name = ColumnFamilyInfoOf(family).name;
    const auto tables = raw.Tables(name);
    ASSERT_FALSE(tables.empty()) << name;
    for (const auto& table : tables) {
      EXPECT_GE(table->index_partitions, 1u) << name;
      EXPECT_THAT(table->filter_policy_name, HasSubstr("bloom")) << name;
    }
  }
  const auto minhash =
      raw.Tables(ColumnFamilyInfoOf(ColumnFamily::kMinHash).name);
  ASSERT_FALSE(minhash.empty());
  for (const auto& table : minhash) {
    EXPECT_EQ(table->filter_policy_name, "");
    EXPECT_EQ(table->index_partitions, 0u);
  }
}

// The store's blob garbage switch watches the evidence family: replacing
// most documents' shingle sets makes the old blob files mostly garbage, and
// collection comes on.
TEST_F(StorePersistenceTest, ReplacedEvidenceTurnsBlobCollectionOn) {
  // How much RocksDB's own compactions merge old and new values by the end
  // varies from run to run (9-17 % of the blob bytes garbage in three runs);
  // a low start ratio makes the test about the switch, not the merge.
  StoreOptions options = SmallOptions();
  options.blob_gc_start_ratio = 0.04;
  options.blob_gc_stop_ratio = 0.02;
  ASSERT_OK_AND_ASSIGN(auto store, OpenStore(options));
  ASSERT_OK_AND_ASSIGN(CollectionRecord collection,
                       store->CreateCollection("long", CollectionConfig{}));
  DocumentMaker maker(collection);
  auto put = [&](int doc, uint64_t salt) {
    DocumentWrite write = maker.Make(absl::StrCat("doc-", doc), "some text");
    std::vector<uint64_t> shingles;
    for (uint64_t i = 1; i <= 200; ++i) {
      shingles.push_back(((i + salt * 1000) * 0x9E3779B97F4A7C15) >> 32);
    }
    std::sort(shingles.begin(), shingles.end());
    write.shingles = std::move(shingles);
    ASSERT_OK(store->PutDocument(collection, write).status());
  };
  int checkpoints = 0;
  auto flush = [&] {  // a checkpoint flushes: one blob file per round
    ASSERT_OK(store->Checkpoint(
        absl::StrCat(temp_.path(), "/checkpoint-", checkpoints++)));
  };
  constexpr int kRounds = 6;
  constexpr int kPerRound = 40;
  for (int round = 0; round < kRounds; ++round) {
    for (int i = 0; i < kPerRound; ++i) put(round * kPerRound + i, 0);
    flush();
  }
  ASSERT_GT(store->Stats().live_blob_bytes, 0u);
  EXPECT_EQ(store->Stats().blob_gc_starts, 0u);
  // Three documents in four get a new shingle set, twice, over as many
  // flushes, so that RocksDB's own L0 compactions meet old and new values.
  for (uint64_t salt = 1; salt <= 2; ++salt) {
    for (int round = 0; round < kRounds; ++round) {
      for (int i = 0; i < kPerRound; ++i) {
        if (i % 4 != 0) put(round * kPerRound + i, salt);
      }
      flush();
    }
  }
  // Compaction runs in the background: wait for it (30 s at most).
  for (int wait = 0; wait < 300 && store->Stats().blob_gc_starts == 0; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_GT(store->Stats().blob_gc_starts, 0u)
      << "garbage " << store->Stats().blob_garbage_bytes << " of "
      << store->Stats().live_blob_bytes;
}

}  // namespace
}  // namespace neardup::storage
