// Store: putting, reading, replacing, deleting and scanning documents.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "neardup/core/config_hash.h"
#include "neardup/storage/column_families.h"
#include "neardup/storage/store.h"
#include "storage/store_test_util.h"

namespace neardup::storage {
namespace {

using testing::DocumentMaker;
using ::testing::HasSubstr;
using testing::StoreTest;

class StoreDocumentsTest : public StoreTest {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_, OpenStore());
    CollectionConfig config = SimHashConfig();
    config.store_text = true;
    ASSERT_OK_AND_ASSIGN(collection_, store_->CreateCollection("docs", config));
    maker_ = std::make_unique<DocumentMaker>(collection_);
  }

  DocumentWrite Doc(const std::string& id, const std::string& text) const {
    return maker_->Make(id, text);
  }

  // Every signature of the collection, in the order ForEachSignature gives.
  std::vector<StoredSignatures> AllSignatures() const {
    std::vector<StoredSignatures> all;
    const absl::Status status =
        store_->ForEachSignature(collection_, [&](StoredSignatures s) {
          all.push_back(std::move(s));
          return absl::OkStatus();
        });
    EXPECT_OK(status);
    return all;
  }

  std::unique_ptr<Store> store_;
  CollectionRecord collection_;
  std::unique_ptr<DocumentMaker> maker_;
};

TEST_F(StoreDocumentsTest, PutThenGet) {
  DocumentWrite doc = Doc("a", "the quick brown fox jumps over the lazy dog");
  doc.metadata = {{"lang", "en"}, {"author", "anon"}};
  ASSERT_OK_AND_ASSIGN(PutResult put, store_->PutDocument(collection_, doc));
  EXPECT_EQ(put.internal_id, 0u);
  EXPECT_FALSE(put.replaced);

  ASSERT_OK_AND_ASSIGN(StoredDocument got,
                       store_->GetDocument(collection_, "a"));
  EXPECT_EQ(got.internal_id, 0u);
  EXPECT_EQ(got.external_id, "a");
  EXPECT_EQ(got.metadata, (Metadata{{"author", "anon"}, {"lang", "en"}}));
  EXPECT_EQ(got.text, doc.text);
  EXPECT_EQ(got.minhash, doc.minhash);
  EXPECT_EQ(got.simhash, doc.simhash);
  EXPECT_GT(got.created_unix_micros, 0);
  EXPECT_EQ(got.updated_unix_micros, got.created_unix_micros);

  ASSERT_OK_AND_ASSIGN(StoredDocument by_id,
                       store_->GetDocumentByInternalId(collection_, 0));
  EXPECT_EQ(by_id, got);

  // The record alone (what naming a match reads): neither the signatures
  // nor the text, which lives in its own column family.
  ASSERT_OK_AND_ASSIGN(StoredDocument record,
                       store_->GetDocumentByInternalId(
                           collection_, 0, DocumentParts::kRecordOnly));
  StoredDocument expected = got;
  expected.minhash = {};
  expected.simhash.reset();
  expected.text.reset();
  EXPECT_EQ(record, expected);
  EXPECT_EQ(
      store_
          ->GetDocumentByInternalId(collection_, 7, DocumentParts::kRecordOnly)
          .status()
          .code(),
      absl::StatusCode::kNotFound);
}

TEST_F(StoreDocumentsTest, InternalIdsAreDense) {
  for (uint32_t i = 0; i < 5; ++i) {
    ASSERT_OK_AND_ASSIGN(
        PutResult put,
        store_->PutDocument(collection_, Doc(absl::StrCat("d", i),
                                             absl::StrCat("text number ", i))));
    EXPECT_EQ(put.internal_id, i);
  }
}

TEST_F(StoreDocumentsTest, ReplaceKeepsInternalIdAndCreatedTime) {
  ASSERT_OK_AND_ASSIGN(
      PutResult first,
      store_->PutDocument(collection_, Doc("a", "first version of text")));
  ASSERT_OK(store_->PutDocument(collection_, Doc("b", "another one")).status());
  ASSERT_OK_AND_ASSIGN(StoredDocument before,
                       store_->GetDocument(collection_, "a"));

  DocumentWrite second = Doc("a", "second, rewritten version of the text");
  second.metadata = {{"v", "2"}};
  ASSERT_OK_AND_ASSIGN(PutResult put, store_->PutDocument(collection_, second));
  EXPECT_TRUE(put.replaced);
  EXPECT_EQ(put.internal_id, first.internal_id);

  ASSERT_OK_AND_ASSIGN(StoredDocument after,
                       store_->GetDocument(collection_, "a"));
  EXPECT_EQ(after.internal_id, first.internal_id);
  EXPECT_EQ(after.created_unix_micros, before.created_unix_micros);
  EXPECT_GE(after.updated_unix_micros, before.updated_unix_micros);
  EXPECT_EQ(after.text, second.text);
  EXPECT_EQ(after.metadata, second.metadata);
  EXPECT_EQ(after.minhash, second.minhash);
  ASSERT_OK_AND_ASSIGN(uint64_t count, store_->CountDocuments(collection_));
  EXPECT_EQ(count, 2u);
  // The next new document still gets a fresh id.
  ASSERT_OK_AND_ASSIGN(PutResult third,
                       store_->PutDocument(collection_, Doc("c", "third doc")));
  EXPECT_EQ(third.internal_id, 2u);
}

TEST_F(StoreDocumentsTest, MissingDocumentIsNotFound) {
  EXPECT_EQ(store_->GetDocument(collection_, "nope").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->GetDocumentByInternalId(collection_, 3).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->DeleteDocument(collection_, "nope").status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(StoreDocumentsTest, DeleteRemovesEveryEntry) {
  ASSERT_OK(
      store_->PutDocument(collection_, Doc("keep", "kept text")).status());
  ASSERT_OK_AND_ASSIGN(PutResult gone,
                       store_->PutDocument(collection_, Doc("gone", "bye")));
  ASSERT_OK_AND_ASSIGN(uint32_t deleted,
                       store_->DeleteDocument(collection_, "gone"));
  EXPECT_EQ(deleted, gone.internal_id);

  EXPECT_EQ(store_->GetDocument(collection_, "gone").status().code(),
            absl::StatusCode::kNotFound);  // ids entry
  EXPECT_EQ(
      store_->GetDocumentByInternalId(collection_, deleted).status().code(),
      absl::StatusCode::kNotFound);                            // docs entry
  const std::vector<StoredSignatures> left = AllSignatures();  // minhash,
  ASSERT_EQ(left.size(), 1u);  // and simhash, or the scan reports DATA_LOSS
  EXPECT_NE(left[0].internal_id, deleted);
  ASSERT_OK_AND_ASSIGN(uint64_t count, store_->CountDocuments(collection_));
  EXPECT_EQ(count, 1u);

  // Putting it again is a new document, which reuses the freed id with
  // nothing of the old one attached.
  ASSERT_OK_AND_ASSIGN(PutResult again,
                       store_->PutDocument(collection_, Doc("gone", "back")));
  EXPECT_FALSE(again.replaced);
  EXPECT_EQ(again.internal_id, deleted);
  ASSERT_OK_AND_ASSIGN(StoredDocument back,
                       store_->GetDocumentByInternalId(collection_, deleted));
  EXPECT_EQ(back.external_id, "gone");
  EXPECT_EQ(back.text, "back");
  ASSERT_OK_AND_ASSIGN(uint32_t bound, store_->InternalIdBound(collection_));
  EXPECT_EQ(bound, 2u);
}

TEST_F(StoreDocumentsTest, ConfigHashMismatchIsRefusedAndNothingStored) {
  DocumentWrite doc = Doc("a", "some words to fingerprint");
  doc.minhash_config_hash ^= 1;
  const absl::Status status = store_->PutDocument(collection_, doc).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(),
              HasSubstr(FormatHex64(collection_.minhash_config_hash)));
  EXPECT_THAT(status.message(),
              HasSubstr(FormatHex64(doc.minhash_config_hash)));

  DocumentWrite other = Doc("b", "some words to fingerprint");
  other.simhash_config_hash ^= 1;
  EXPECT_EQ(store_->PutDocument(collection_, other).status().code(),
            absl::StatusCode::kFailedPrecondition);

  EXPECT_EQ(store_->GetDocument(collection_, "a").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_TRUE(AllSignatures().empty());
  // The refused puts did not consume internal ids.
  ASSERT_OK_AND_ASSIGN(PutResult put,
                       store_->PutDocument(collection_, Doc("c", "fine")));
  EXPECT_EQ(put.internal_id, 0u);
}

TEST_F(StoreDocumentsTest, WidthMismatchIsInvalidArgument) {
  DocumentWrite doc = Doc("a", "some words to fingerprint");
  doc.minhash.slots.resize(64);
  EXPECT_EQ(store_->PutDocument(collection_, doc).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->GetDocument(collection_, "a").status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(StoreDocumentsTest, SimHashPresenceMustMatchCollection) {
  DocumentWrite missing = Doc("a", "words");
  missing.simhash.reset();
  EXPECT_EQ(store_->PutDocument(collection_, missing).status().code(),
            absl::StatusCode::kInvalidArgument);

  ASSERT_OK_AND_ASSIGN(CollectionRecord plain,
                       store_->CreateCollection("plain", CollectionConfig{}));
  DocumentWrite extra = DocumentMaker(plain).Make("a", "words");
  extra.simhash = 1;
  EXPECT_EQ(store_->PutDocument(plain, extra).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(StoreDocumentsTest, ExternalIdLimits) {
  EXPECT_EQ(store_->PutDocument(collection_, Doc("", "words")).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->PutDocument(collection_, Doc(std::string(1025, 'x'), "w"))
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  const std::string longest(1024, '\xff');
  ASSERT_OK(store_->PutDocument(collection_, Doc(longest, "w")).status());
  ASSERT_OK_AND_ASSIGN(StoredDocument got,
                       store_->GetDocument(collection_, longest));
  EXPECT_EQ(got.external_id, longest);
}

TEST_F(StoreDocumentsTest, DuplicateMetadataKeyIsInvalidArgument) {
  DocumentWrite doc = Doc("a", "words");
  doc.metadata = {{"k", "1"}, {"k", "2"}};
  EXPECT_EQ(store_->PutDocument(collection_, doc).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(StoreDocumentsTest, TextIsDroppedWithoutStoreText) {
  ASSERT_OK_AND_ASSIGN(CollectionRecord plain,
                       store_->CreateCollection("plain", CollectionConfig{}));
  DocumentWrite doc = DocumentMaker(plain).Make("a", "words to keep");
  ASSERT_TRUE(doc.text.has_value());
  ASSERT_OK(store_->PutDocument(plain, doc).status());
  ASSERT_OK_AND_ASSIGN(StoredDocument got, store_->GetDocument(plain, "a"));
  EXPECT_EQ(got.text, std::nullopt);
  EXPECT_EQ(got.simhash, std::nullopt);
  EXPECT_EQ(got.minhash, doc.minhash);
}

// A replica stores the time its log entry was prepared with, not its own
// clock's: created on the first put, updated on each.
TEST_F(StoreDocumentsTest, AWriteMayCarryItsTime) {
  ASSERT_OK(store_
                ->PutDocument(collection_, Doc("a", "words"),
                              WriteOptions{.unix_micros = 1000})
                .status());
  ASSERT_OK_AND_ASSIGN(StoredDocument first,
                       store_->GetDocument(collection_, "a"));
  EXPECT_EQ(first.created_unix_micros, 1000);
  EXPECT_EQ(first.updated_unix_micros, 1000);
  ASSERT_OK(store_
                ->PutDocument(collection_, Doc("a", "other words"),
                              WriteOptions{.unix_micros = 2000})
                .status());
  ASSERT_OK_AND_ASSIGN(StoredDocument second,
                       store_->GetDocument(collection_, "a"));
  EXPECT_EQ(second.created_unix_micros, 1000);
  EXPECT_EQ(second.updated_unix_micros, 2000);
}

// A replica loading a peer's snapshot keeps each document's two times.
TEST_F(StoreDocumentsTest, ACopyKeepsItsTimes) {
  DocumentWrite copy = Doc("a", "words");
  copy.created_unix_micros = 100;
  copy.updated_unix_micros = 300;
  ASSERT_OK(store_->PutDocument(collection_, copy).status());
  ASSERT_OK_AND_ASSIGN(StoredDocument stored,
                       store_->GetDocument(collection_, "a"));
  EXPECT_EQ(stored.created_unix_micros, 100);
  EXPECT_EQ(stored.updated_unix_micros, 300);
  // A later write as any: its time, the creation kept.
  ASSERT_OK(store_
                ->PutDocument(collection_, Doc("a", "more words"),
                              WriteOptions{.unix_micros = 500})
                .status());
  ASSERT_OK_AND_ASSIGN(stored, store_->GetDocument(collection_, "a"));
  EXPECT_EQ(stored.created_unix_micros, 100);
  EXPECT_EQ(stored.updated_unix_micros, 500);
}

// A cluster replica's writes carry their log sequence, which the store
// keeps in the same batch: puts, deletes (of an absent document too, which
// every replica applies alike), never going back; a put of only refused
// documents writes nothing, not even the sequence. It goes with the
// collection.
TEST_F(StoreDocumentsTest, LogSequenceIsRecordedWithEachWrite) {
  ASSERT_OK_AND_ASSIGN(uint64_t sequence, store_->LogSequence(collection_));
  EXPECT_EQ(sequence, 0u);
  auto at = [](uint64_t sequence) {
    return WriteOptions{.log_sequence = sequence};
  };
  ASSERT_OK(
      store_->PutDocument(collection_, Doc("a", "words"), at(3)).status());
  ASSERT_OK_AND_ASSIGN(sequence, store_->LogSequence(collection_));
  EXPECT_EQ(sequence, 3u);
  DocumentWrite refused = Doc("b", "words");
  refused.minhash_config_hash ^= 1;
  EXPECT_FALSE(store_->PutDocument(collection_, refused, at(5)).ok());
  ASSERT_OK_AND_ASSIGN(sequence, store_->LogSequence(collection_));
  EXPECT_EQ(sequence, 3u);
  EXPECT_EQ(
      store_->DeleteDocument(collection_, "absent", at(8)).status().code(),
      absl::StatusCode::kNotFound);
  ASSERT_OK_AND_ASSIGN(sequence, store_->LogSequence(collection_));
  EXPECT_EQ(sequence, 8u);
  ASSERT_OK(store_->DeleteDocument(collection_, "a", at(9)).status());
  ASSERT_OK_AND_ASSIGN(sequence, store_->LogSequence(collection_));
  EXPECT_EQ(sequence, 9u);
  // Not after the recorded one: refused, nothing written.
  EXPECT_THAT(
      store_->PutDocument(collection_, Doc("c", "words"), at(9)).status(),
      ::neardup::testing::StatusIs(absl::StatusCode::kFailedPrecondition,
                                   HasSubstr("not after the recorded 9")));
  EXPECT_EQ(store_->GetDocument(collection_, "c").status().code(),
            absl::StatusCode::kNotFound);
  // A write without one leaves it.
  ASSERT_OK(store_->PutDocument(collection_, Doc("c", "words")).status());
  ASSERT_OK_AND_ASSIGN(sequence, store_->LogSequence(collection_));
  EXPECT_EQ(sequence, 9u);

  ASSERT_OK(store_->DropCollection("docs"));
  ASSERT_OK_AND_ASSIGN(const CollectionRecord again,
                       store_->CreateCollection("docs", SimHashConfig()));
  ASSERT_OK_AND_ASSIGN(sequence, store_->LogSequence(again));
  EXPECT_EQ(sequence, 0u);
}

// Entries of other shards a replica passed over are recorded without a
// document, never going back.
TEST_F(StoreDocumentsTest, ALogSequenceIsRecordedWithoutAWrite) {
  ASSERT_OK(store_
                ->PutDocument(collection_, Doc("a", "words"),
                              WriteOptions{.log_sequence = 3})
                .status());
  ASSERT_OK(store_->RecordLogSequence(collection_, 7));
  ASSERT_OK(store_->RecordLogSequence(collection_, 7));  // nothing new
  ASSERT_OK_AND_ASSIGN(const uint64_t sequence,
                       store_->LogSequence(collection_));
  EXPECT_EQ(sequence, 7u);
  EXPECT_THAT(
      store_->RecordLogSequence(collection_, 6),
      ::neardup::testing::StatusIs(absl::StatusCode::kFailedPrecondition,
                                   HasSubstr("not after the recorded 7")));
}

// A snapshot's documents are the collection right after its log sequence.
TEST_F(StoreDocumentsTest, ACursorReadsTheLogSequenceOfItsSnapshot) {
  ASSERT_OK(store_
                ->PutDocument(collection_, Doc("a", "words"),
                              WriteOptions{.log_sequence = 3})
                .status());
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<DocumentCursor> cursor,
                       store_->OpenDocumentCursor(collection_));
  ASSERT_OK(store_
                ->PutDocument(collection_, Doc("b", "words"),
                              WriteOptions{.log_sequence = 4})
                .status());
  ASSERT_OK_AND_ASSIGN(const uint64_t at, cursor->LogSequence());
  EXPECT_EQ(at, 3u);
  ASSERT_OK_AND_ASSIGN(const std::vector<StoredDocument> docs,
                       cursor->Next(10, 1 << 20));
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0].external_id, "a");
}

// A load is marked until its last document and its sequence are in (one
// write); the mark goes with the collection.
TEST_F(StoreDocumentsTest, ASnapshotLoadIsMarkedUntilFinished) {
  ASSERT_OK_AND_ASSIGN(bool loading, store_->SnapshotLoading(collection_));
  EXPECT_FALSE(loading);
  ASSERT_OK(store_->MarkSnapshotLoading(collection_));
  ASSERT_OK_AND_ASSIGN(loading, store_->SnapshotLoading(collection_));
  EXPECT_TRUE(loading);
  ASSERT_OK(store_->PutDocument(collection_, Doc("a", "words")).status());
  ASSERT_OK(store_->FinishSnapshotLoading(collection_, 12));
  ASSERT_OK_AND_ASSIGN(loading, store_->SnapshotLoading(collection_));
  EXPECT_FALSE(loading);
  ASSERT_OK_AND_ASSIGN(const uint64_t sequence,
                       store_->LogSequence(collection_));
  EXPECT_EQ(sequence, 12u);

  ASSERT_OK(store_->MarkSnapshotLoading(collection_));
  ASSERT_OK(store_->DropCollection("docs"));
  ASSERT_OK_AND_ASSIGN(const CollectionRecord again,
                       store_->CreateCollection("docs", SimHashConfig()));
  ASSERT_OK_AND_ASSIGN(loading, store_->SnapshotLoading(again));
  EXPECT_FALSE(loading);
}

TEST_F(StoreDocumentsTest, ForEachSignatureIsInInternalIdOrder) {
  // More than 256 documents so big-endian ids cross a byte boundary.
  std::vector<DocumentWrite> docs;
  for (int i = 0; i < 300; ++i) {
    docs.push_back(Doc(absl::StrCat("doc-", i),
                       absl::StrCat("document ", i, " has words")));
    ASSERT_OK(store_->PutDocument(collection_, docs.back()).status());
  }
  const std::vector<StoredSignatures> all = AllSignatures();
  ASSERT_EQ(all.size(), docs.size());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].internal_id, i);
    EXPECT_EQ(all[i].minhash, docs[i].minhash);
    EXPECT_EQ(all[i].simhash, docs[i].simhash);
  }
}

TEST_F(StoreDocumentsTest, ForEachSignatureStopsAtCallbackError) {
  for (int i = 0; i < 5; ++i) {
    ASSERT_OK(
        store_->PutDocument(collection_, Doc(absl::StrCat("d", i), "words"))
            .status());
  }
  int calls = 0;
  const absl::Status status =
      store_->ForEachSignature(collection_, [&](StoredSignatures) {
        return ++calls == 2 ? absl::CancelledError("enough") : absl::OkStatus();
      });
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(calls, 2);
}

TEST_F(StoreDocumentsTest, ConcurrentPutsGetUniqueIds) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 100;
  std::vector<std::vector<uint32_t>> ids(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const std::string id = absl::StrCat("t", t, "-", i);
        absl::StatusOr<PutResult> put = store_->PutDocument(
            collection_, Doc(id, absl::StrCat("thread ", t, " doc ", i)));
        ASSERT_OK(put);
        ids[t].push_back(put->internal_id);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  std::set<uint32_t> unique;
  for (const auto& per_thread : ids)
    unique.insert(per_thread.begin(), per_thread.end());
  EXPECT_EQ(unique.size(), size_t{kThreads * kPerThread});
  EXPECT_EQ(*unique.rbegin(), uint32_t{kThreads * kPerThread - 1});
  ASSERT_OK_AND_ASSIGN(uint64_t count, store_->CountDocuments(collection_));
  EXPECT_EQ(count, uint64_t{kThreads * kPerThread});
  EXPECT_EQ(AllSignatures().size(), size_t{kThreads * kPerThread});
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_OK_AND_ASSIGN(
        StoredDocument doc,
        store_->GetDocument(collection_, absl::StrCat("t", t, "-42")));
    EXPECT_EQ(doc.internal_id, ids[t][42]);
  }
}

TEST_F(StoreDocumentsTest, ConcurrentReplacesOfOneIdShareItsInternalId) {
  std::vector<std::thread> threads;
  std::vector<uint32_t> ids(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      absl::StatusOr<PutResult> put = store_->PutDocument(
          collection_, Doc("same", absl::StrCat("version ", t)));
      ASSERT_OK(put);
      ids[t] = put->internal_id;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_THAT(ids, ::testing::Each(ids[0]));
  ASSERT_OK_AND_ASSIGN(uint64_t count, store_->CountDocuments(collection_));
  EXPECT_EQ(count, 1u);
}

}  // namespace
}  // namespace neardup::storage

namespace neardup::storage {
namespace {

// Deletes and drops walk kDocumentColumnFamilies: a family keyed by
// document that is missing from it would keep a deleted document's values.
TEST(ColumnFamilies, EveryFamilyKeyedByDocumentIsDeletedWithIt) {
  for (size_t i = 0; i < kNumColumnFamilies; ++i) {
    const ColumnFamily family = static_cast<ColumnFamily>(i);
    const bool keyed_by_document = kColumnFamilies[i].description.starts_with(
        "collection id + internal id");
    const bool listed = std::find(kDocumentColumnFamilies.begin(),
                                  kDocumentColumnFamilies.end(),
                                  family) != kDocumentColumnFamilies.end();
    EXPECT_EQ(keyed_by_document, listed) << kColumnFamilies[i].name;
  }
}

// A kept family's column family is named as the family: a name a fixed
// family has would open one column family twice.
TEST(ColumnFamilies, KeptFamilyNamesAreNotFixedFamilyNames) {
  for (const KeptFamily* kept : KeptFamilies()) {
    for (const ColumnFamilyInfo& fixed : kColumnFamilies) {
      EXPECT_NE(kept->name, fixed.name);
    }
  }
}

}  // namespace
}  // namespace neardup::storage
