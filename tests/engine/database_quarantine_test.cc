// Database: a stored collection that fails validation or its rebuild is
// quarantined, never able to stop the others from serving.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "engine/engine_test_util.h"
#include "neardup/engine/database.h"
#include "neardup/storage/internal/keys.h"
#include "neardup/storage/internal/record_codec.h"
#include "storage/raw_db.h"

namespace neardup::engine {
namespace {

using storage::CollectionRecord;

using storage::ColumnFamily;
using storage::DecodeCollectionRecord;
using storage::testing::EditCollectionRecord;
namespace keys = storage::keys;
using storage::testing::RawDb;
using ::testing::ElementsAre;
using testing::EngineTest;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr std::string_view kText =
    "the committee approved the budget for the new school year after a long "
    "debate about teacher salaries and class sizes in the district";

class DatabaseQuarantineTest : public EngineTest {
 protected:
  // Creates "good" and "bad" with one document each, then closes.
  void CreateTwoCollections() {
    ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase(2));
    for (const char* name : {"good", "bad"}) {
      ASSERT_OK_AND_ASSIGN(auto collection, db->CreateCollection(name, {}));
      ASSERT_OK_AND_ASSIGN(auto write,
                           collection->PrepareText("d1", kText, {}));
      ASSERT_OK(collection->Apply(write).status());
    }
  }

  // The good collection still answers reads and writes.
  void ExpectGoodServes(Database& db) {
    ASSERT_OK_AND_ASSIGN(auto good, db.GetCollection("good"));
    ASSERT_OK_AND_ASSIGN(auto sig, good->fingerprinter().MinHash(kText));
    ASSERT_OK_AND_ASSIGN(auto matches, good->QueryMinHash(sig, nullptr, 0.8));
    EXPECT_THAT(matches, SizeIs(1));
    // A replace: the document count stays 1 however often this runs.
    ASSERT_OK_AND_ASSIGN(auto write, good->PrepareText("d1", kText, {}));
    ASSERT_OK(good->Apply(write).status());
  }
};

// The reproduction of the crash: bands x rows = 128 x 33554433 wraps to 128
// in 32-bit arithmetic; the first query (and every rebuild) then crashed.
TEST_F(DatabaseQuarantineTest, BandingThatWrapsIsQuarantinedNotCrashed) {
  CreateTwoCollections();
  for (const LshParams lsh :
       std::vector<LshParams>{{128, 33554433}, {33554433, 128}}) {
    EditCollectionRecord(StoreDir(), "bad", [&](CollectionRecord& record) {
      record.config.lsh = lsh;
    });
    ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase(2));
    EXPECT_THAT(db->ListCollections(), SizeIs(1));
    const auto quarantined = db->QuarantinedCollections();
    ASSERT_THAT(quarantined, SizeIs(1));
    EXPECT_EQ(quarantined[0].name, "bad");
    EXPECT_THAT(quarantined[0].reason.message(), HasSubstr("bands x rows"));
    const auto bad = db->GetCollection("bad");
    EXPECT_EQ(bad.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(bad.status().message(),
                HasSubstr("collection 'bad' is quarantined"));
    ExpectGoodServes(*db);
    // The name stays taken until the collection is dropped.
    EXPECT_EQ(db->CreateCollection("bad", {}).status().code(),
              absl::StatusCode::kAlreadyExists);
  }
}

TEST_F(DatabaseQuarantineTest, DroppingAQuarantinedCollectionClearsIt) {
  CreateTwoCollections();
  uint32_t bad_id = 0;
  EditCollectionRecord(StoreDir(), "bad", [&](CollectionRecord& record) {
    record.config.lsh = {128, 33554433};
    bad_id = record.id;
  });
  {
    RawDb raw(StoreDir());
    ASSERT_EQ(raw.CountWithPrefix(ColumnFamily::kDocs,
                                  keys::CollectionPrefix(bad_id)),
              1u);
  }
  {
    ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase(2));
    ASSERT_OK(db->DropCollection("bad"));
    EXPECT_THAT(db->QuarantinedCollections(), IsEmpty());
    EXPECT_EQ(db->GetCollection("bad").status().code(),
              absl::StatusCode::kNotFound);
    ASSERT_OK(db->CreateCollection("bad", {}).status());
  }
  {
    // The old documents went with the record, in every column family.
    RawDb raw(StoreDir());
    for (ColumnFamily family :
         {ColumnFamily::kIds, ColumnFamily::kDocs, ColumnFamily::kMinHash}) {
      EXPECT_EQ(raw.CountWithPrefix(family, keys::CollectionPrefix(bad_id)),
                0u);
    }
  }
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase(2));
  EXPECT_THAT(db->QuarantinedCollections(), IsEmpty());
  ASSERT_OK_AND_ASSIGN(auto bad, db->GetCollection("bad"));
  EXPECT_EQ(bad->num_documents(), 0u);
  ExpectGoodServes(*db);
}

// Two records claiming one id: both quarantined, and dropping one deletes
// no documents (they may be the other's).
TEST_F(DatabaseQuarantineTest,
       RecordsSharingAnIdAreQuarantinedAndDropSparesData) {
  CreateTwoCollections();
  uint32_t good_id = 0;
  {
    RawDb raw(StoreDir());
    auto good =
        DecodeCollectionRecord(raw.Get(ColumnFamily::kCollections, "good"));
    ASSERT_OK(good);
    good_id = good->id;
  }
  EditCollectionRecord(StoreDir(), "bad",
                       [&](CollectionRecord& record) { record.id = good_id; });
  {
    ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase(2));
    EXPECT_THAT(db->QuarantinedCollections(), SizeIs(2));
    ASSERT_OK(db->DropCollection("bad"));
  }
  RawDb raw(StoreDir());
  EXPECT_EQ(
      raw.CountWithPrefix(ColumnFamily::kDocs, keys::CollectionPrefix(good_id)),
      1u);
}

TEST_F(DatabaseQuarantineTest, ConfigHashThatDiffersFromTheConfigIsRefused) {
  CreateTwoCollections();
  EditCollectionRecord(StoreDir(), "bad", [](CollectionRecord& record) {
    record.minhash_config_hash ^= 1;
  });
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase(2));
  ASSERT_THAT(db->QuarantinedCollections(), SizeIs(1));
  EXPECT_THAT(db->QuarantinedCollections()[0].reason.message(),
              HasSubstr("config hashes"));
  ExpectGoodServes(*db);
}

// A kept family of a newer build: this build would not maintain its values
// (a replace would leave the old one behind), so it serves none of the
// collection, and the rest as usual. This is why a new kept family needs no
// new store format.
TEST_F(DatabaseQuarantineTest, KeptFamilyThisBuildDoesNotKnowIsQuarantined) {
  CreateTwoCollections();
  EditCollectionRecord(StoreDir(), "bad", [](CollectionRecord& record) {
    record.config.kept_families.push_back("from-a-newer-build");
  });
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase(2));
  ASSERT_THAT(db->QuarantinedCollections(),
              ElementsAre(Field(&QuarantinedCollection::name, "bad")));
  EXPECT_THAT(db->QuarantinedCollections()[0].reason.message(),
              HasSubstr("kept family \"from-a-newer-build\" is unknown to "
                        "this build"));
  EXPECT_EQ(db->GetCollection("bad").status().code(),
            absl::StatusCode::kFailedPrecondition);
  ExpectGoodServes(*db);
}

TEST_F(DatabaseQuarantineTest, UndecodableRecordIsQuarantinedAndDropable) {
  CreateTwoCollections();
  {
    RawDb raw(StoreDir());
    raw.Put(ColumnFamily::kCollections, "bad", "\xff\xff not a record");
  }
  {
    ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase(2));
    ASSERT_THAT(db->QuarantinedCollections(),
                ElementsAre(Field(&QuarantinedCollection::name, "bad")));
    EXPECT_EQ(db->GetCollection("bad").status().code(),
              absl::StatusCode::kFailedPrecondition);
    ExpectGoodServes(*db);
    ASSERT_OK(db->DropCollection("bad"));
  }
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase(2));
  EXPECT_THAT(db->QuarantinedCollections(), IsEmpty());
  EXPECT_THAT(db->ListCollections(), SizeIs(1));
}

TEST_F(DatabaseQuarantineTest, NotFoundEchoesOnlyValidNames) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase(2));
  const auto valid = db->GetCollection("missing");
  EXPECT_EQ(valid.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(valid.status().message(), HasSubstr("'missing'"));
  const std::string hostile = "evil\n\x1b[31mname";
  const auto invalid = db->GetCollection(hostile);
  EXPECT_EQ(invalid.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(invalid.status().message()),
              ::testing::Not(HasSubstr("evil")));
}

}  // namespace
}  // namespace neardup::engine
