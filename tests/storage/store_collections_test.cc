// Store: creating, listing and dropping collections.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "neardup/core/minhash.h"
#include "neardup/core/simhash.h"
#include "neardup/storage/store.h"
#include "storage/store_test_util.h"

namespace neardup::storage {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using testing::StoreTest;

using StoreCollectionsTest = StoreTest;

TEST_F(StoreCollectionsTest, CreateNormalizesAndStampsConfigHashes) {
  ASSERT_OK_AND_ASSIGN(auto store, OpenStore());
  CollectionConfig config = SimHashConfig();
  config.threshold = 0.5;
  ASSERT_OK_AND_ASSIGN(CollectionRecord record,
                       store->CreateCollection("news", config));
  EXPECT_EQ(record.name, "news");
  EXPECT_GE(record.id, 1u);
  EXPECT_GT(record.created_unix_micros, 0);
  // Normalized: the floor from the threshold, bands x rows from the floor.
  EXPECT_DOUBLE_EQ(record.config.min_threshold, 0.4);
  EXPECT_EQ(record.config.lsh, (LshParams{.bands = 31, .rows = 2}));

  ASSERT_OK_AND_ASSIGN(MinHasher minhasher,
                       MinHasher::Create(MinHashConfigOf(record.config)));
  ASSERT_OK_AND_ASSIGN(SimHasher simhasher,
                       SimHasher::Create(SimHashConfigOf(record.config)));
  EXPECT_EQ(record.minhash_config_hash, minhasher.config_hash());
  EXPECT_EQ(record.simhash_config_hash, simhasher.config_hash());
}

TEST_F(StoreCollectionsTest, SimHashHashIsZeroWhenDisabled) {
  ASSERT_OK_AND_ASSIGN(auto store, OpenStore());
  ASSERT_OK_AND_ASSIGN(CollectionRecord record,
                       store->CreateCollection("plain", CollectionConfig{}));
  EXPECT_EQ(record.minhash_config_hash, 0x1ffc8214c1e9e9dbull);
  EXPECT_EQ(record.simhash_config_hash, 0u);
}

TEST_F(StoreCollectionsTest, GetReturnsTheCreatedRecord) {
  ASSERT_OK_AND_ASSIGN(auto store, OpenStore());
  ASSERT_OK_AND_ASSIGN(CollectionRecord created,
                       store->CreateCollection("a", SimHashConfig()));
  ASSERT_OK_AND_ASSIGN(CollectionRecord got, store->GetCollection("a"));
  EXPECT_EQ(got, created);
}

TEST_F(StoreCollectionsTest, DuplicateNameIsAlreadyExists) {
  ASSERT_OK_AND_ASSIGN(auto store, OpenStore());
  ASSERT_OK(store->CreateCollection("a", {}).status());
  EXPECT_EQ(store->CreateCollection("a", {}).status().code(),
            absl::StatusCode::kAlreadyExists);
}

TEST_F(StoreCollectionsTest, MissingIsNotFound) {
  ASSERT_OK_AND_ASSIGN(auto store, OpenStore());
  EXPECT_EQ(store->GetCollection("nope").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store->DropCollection("nope").code(), absl::StatusCode::kNotFound);
}

TEST_F(StoreCollectionsTest, BadNamesAreInvalidArgument) {
  ASSERT_OK_AND_ASSIGN(auto store, OpenStore());
  for (const std::string& name :
       {std::string(), std::string(129, 'a'), std::string("has space"),
        std::string("slash/y"), std::string("tab\t")}) {
    EXPECT_EQ(store->CreateCollection(name, {}).status().code(),
              absl::StatusCode::kInvalidArgument)
        << name;
  }
  EXPECT_TRUE(store->ListCollections().empty());
}

TEST_F(StoreCollectionsTest, BadConfigIsInvalidArgument) {
  ASSERT_OK_AND_ASSIGN(auto store, OpenStore());
  CollectionConfig config;
  config.num_perm = 100;
  EXPECT_EQ(store->CreateCollection("a", config).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(store->ListCollections().empty());
}

TEST_F(StoreCollectionsTest, ListIsInNameOrder) {
  ASSERT_OK_AND_ASSIGN(auto store, OpenStore());
  for (const char* name : {"zeta", "alpha", "Mid", "beta"}) {
    ASSERT_OK(store->CreateCollection(name, {}).status());
  }
  EXPECT_THAT(store->ListCollections(),
              ElementsAre(Field(&CollectionRecord::name, "Mid"),
                          Field(&CollectionRecord::name, "alpha"),
                          Field(&CollectionRecord::name, "beta"),
                          Field(&CollectionRecord::name, "zeta")));
}

TEST_F(StoreCollectionsTest, DropRemovesAndRecreateGetsANewId) {
  ASSERT_OK_AND_ASSIGN(auto store, OpenStore());
  ASSERT_OK_AND_ASSIGN(CollectionRecord first,
                       store->CreateCollection("a", {}));
  ASSERT_OK(store->DropCollection("a"));
  EXPECT_EQ(store->GetCollection("a").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_TRUE(store->ListCollections().empty());

  ASSERT_OK_AND_ASSIGN(CollectionRecord second,
                       store->CreateCollection("a", {}));
  EXPECT_NE(second.id, first.id);
}

TEST_F(StoreCollectionsTest, StaleRecordOfDroppedCollectionIsNotFound) {
  ASSERT_OK_AND_ASSIGN(auto store, OpenStore());
  ASSERT_OK_AND_ASSIGN(CollectionRecord stale,
                       store->CreateCollection("a", {}));
  testing::DocumentMaker maker(stale);
  ASSERT_OK(store->DropCollection("a"));
  ASSERT_OK(store->CreateCollection("a", {}).status());

  const absl::Status put =
      store->PutDocument(stale, maker.Make("d", "some words here")).status();
  EXPECT_EQ(put.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(put.message(), HasSubstr("dropped"));
  EXPECT_EQ(store->CountDocuments(stale).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(StoreCollectionsTest, DropLeavesOtherCollectionsIntact) {
  ASSERT_OK_AND_ASSIGN(auto store, OpenStore());
  ASSERT_OK_AND_ASSIGN(CollectionRecord doomed,
                       store->CreateCollection("doomed", SimHashConfig()));
  ASSERT_OK_AND_ASSIGN(CollectionRecord kept,
                       store->CreateCollection("kept", SimHashConfig()));
  testing::DocumentMaker doomed_maker(doomed);
  testing::DocumentMaker kept_maker(kept);
  for (int i = 0; i < 20; ++i) {
    const std::string id = absl::StrCat("doc-", i);
    const std::string text =
        absl::StrCat("document number ", i, " about something or other");
    ASSERT_OK(store->PutDocument(doomed, doomed_maker.Make(id, text)).status());
    ASSERT_OK(store->PutDocument(kept, kept_maker.Make(id, text)).status());
  }
  ASSERT_OK(store->DropCollection("doomed"));

  ASSERT_OK_AND_ASSIGN(uint64_t count, store->CountDocuments(kept));
  EXPECT_EQ(count, 20u);
  int visited = 0;
  ASSERT_OK(store->ForEachSignature(kept, [&](StoredSignatures) {
    ++visited;
    return absl::OkStatus();
  }));
  EXPECT_EQ(visited, 20);
  ASSERT_OK_AND_ASSIGN(StoredDocument doc, store->GetDocument(kept, "doc-7"));
  EXPECT_EQ(doc.external_id, "doc-7");

  // The dropped collection's entries are gone too, also after reopening.
  ASSERT_OK_AND_ASSIGN(CollectionRecord again,
                       store->CreateCollection("doomed", SimHashConfig()));
  ASSERT_OK_AND_ASSIGN(uint64_t empty, store->CountDocuments(again));
  EXPECT_EQ(empty, 0u);
  store.reset();
  ASSERT_OK_AND_ASSIGN(store, OpenStore());
  EXPECT_THAT(store->ListCollections(),
              ElementsAre(Field(&CollectionRecord::name, "doomed"),
                          Field(&CollectionRecord::name, "kept")));
  ASSERT_OK_AND_ASSIGN(count, store->CountDocuments(kept));
  EXPECT_EQ(count, 20u);
}

}  // namespace
}  // namespace neardup::storage
