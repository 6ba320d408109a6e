// BlobGcSwitch: the on/off hysteresis and the age cutoff it picks, and on a
// real RocksDB that collection stays off without garbage, comes on when
// there is enough, reclaims it wherever it is, and goes off again.

#include "neardup/storage/internal/blob_gc_switch.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "support/temp_dir.h"

namespace neardup::storage {
namespace {

rocksdb::BlobMetaData Blob(uint64_t number, uint64_t total, uint64_t garbage) {
  rocksdb::BlobMetaData blob;
  blob.blob_file_number = number;
  blob.total_blob_bytes = total;
  blob.garbage_blob_bytes = garbage;
  return blob;
}

TEST(BlobGarbageRatioTest, GarbageOverAllBlobBytes) {
  const std::vector<rocksdb::BlobMetaData> files = {
      Blob(4, 100, 100), Blob(1, 300, 0), Blob(9, 600, 150)};
  EXPECT_DOUBLE_EQ(BlobGarbageRatio(files), 250.0 / 1000.0);
  EXPECT_EQ(BlobGarbageRatio({}), 0.0);
}

TEST(DecideBlobGcTest, SwitchesOnAtAQuarterAndOffBelowAnEighth) {
  const BlobGcPolicy policy;
  auto files_with_garbage = [](uint64_t garbage) {
    return std::vector<rocksdb::BlobMetaData>{Blob(1, 500, garbage),
                                              Blob(2, 500, 0)};
  };
  EXPECT_FALSE(DecideBlobGc(policy, files_with_garbage(0), false).enabled);
  EXPECT_FALSE(DecideBlobGc(policy, files_with_garbage(240), false).enabled);
  EXPECT_TRUE(DecideBlobGc(policy, files_with_garbage(250), false).enabled);
  EXPECT_TRUE(DecideBlobGc(policy, files_with_garbage(125), true).enabled);
  EXPECT_FALSE(DecideBlobGc(policy, files_with_garbage(120), true).enabled);
  EXPECT_FALSE(DecideBlobGc(policy, {}, true).enabled);
}

// RocksDB rewrites the first floor(cutoff * count) files by number.
size_t FilesRewritten(const BlobGcSetting& setting, size_t count) {
  return static_cast<size_t>(setting.age_cutoff * static_cast<double>(count));
}

TEST(DecideBlobGcTest, CutoffReachesHalfTheGarbageWhereverItIs) {
  const BlobGcPolicy policy;
  // A quarter of the bytes garbage, all in the two newest of eight files
  // (listed out of order): the cutoff must take in file 70, the older.
  const std::vector<rocksdb::BlobMetaData> newest = {
      Blob(80, 100, 100), Blob(10, 100, 0),  Blob(20, 100, 0),
      Blob(30, 100, 0),   Blob(40, 100, 0),  Blob(50, 100, 0),
      Blob(60, 100, 0),   Blob(70, 100, 100)};
  const BlobGcSetting late = DecideBlobGc(policy, newest, false);
  ASSERT_TRUE(late.enabled);
  EXPECT_EQ(FilesRewritten(late, newest.size()), 7u);

  // Garbage in the oldest: RocksDB's own quarter is the least.
  std::vector<rocksdb::BlobMetaData> oldest = newest;
  oldest[0] = Blob(80, 100, 0);
  oldest[7] = Blob(70, 100, 0);
  oldest[1] = Blob(10, 100, 100);
  oldest[2] = Blob(20, 100, 100);
  const BlobGcSetting early = DecideBlobGc(policy, oldest, false);
  ASSERT_TRUE(early.enabled);
  EXPECT_DOUBLE_EQ(early.age_cutoff, policy.min_age_cutoff);
  EXPECT_EQ(FilesRewritten(early, oldest.size()), 2u);

  // A store of two files: the garbage-holding older one is rewritten (the
  // default quarter would rewrite none).
  const std::vector<rocksdb::BlobMetaData> two = {Blob(1, 100, 60),
                                                  Blob(2, 100, 0)};
  const BlobGcSetting small = DecideBlobGc(policy, two, false);
  ASSERT_TRUE(small.enabled);
  EXPECT_EQ(FilesRewritten(small, two.size()), 1u);
}

class BlobGcSwitchDbTest : public ::testing::Test {
 protected:
  static constexpr int kFiles = 8;
  static constexpr int kKeysPerFile = 200;

  void SetUp() override {
    rocksdb::Options options;
    options.create_if_missing = true;
    options.disable_auto_compactions = true;  // the test compacts
    options.enable_blob_files = true;
    options.min_blob_size = 0;
    options.enable_blob_garbage_collection = false;
    options.listeners.push_back(switch_);
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, temp_.path() + "/db", &db).ok());
    db_.reset(db);
  }
  void TearDown() override {
    switch_->Detach();
    db_.reset();
  }

  static std::string Key(int file, int i) {
    return std::string("k").append(
        std::to_string(file * kKeysPerFile + i + 100000));
  }
  static std::string Value(int file, int i) {
    return std::string(1000, static_cast<char>('a' + (file * 7 + i) % 26));
  }
  // One blob file per flush.
  void WriteFiles() {
    for (int f = 0; f < kFiles; ++f) {
      for (int i = 0; i < kKeysPerFile; ++i) {
        ASSERT_TRUE(db_->Put({}, Key(f, i), Value(f, i)).ok());
      }
      ASSERT_TRUE(db_->Flush({}).ok());
    }
  }
  // Rewrites the bottommost level too (by default CompactRange skips it
  // when there is no compaction filter).
  // Then waits for the switch's decision.
  void CompactAll() {
    rocksdb::CompactRangeOptions options;
    options.bottommost_level_compaction =
        rocksdb::BottommostLevelCompaction::kForce;
    ASSERT_TRUE(db_->CompactRange(options, nullptr, nullptr).ok());
    switch_->WaitIdle();
  }
  void Attach() {
    switch_->Attach(db_.get(), db_->DefaultColumnFamily());
    switch_->WaitIdle();
  }
  uint64_t Garbage() {
    uint64_t garbage = 0;
    for (const auto& blob : BlobFiles()) garbage += blob.garbage_blob_bytes;
    return garbage;
  }
  // Deletes the keys `deleted(file, i)` names, then flushes.
  template <typename Deleted>
  void DeleteKeys(Deleted deleted) {
    for (int f = 0; f < kFiles; ++f) {
      for (int i = 0; i < kKeysPerFile; ++i) {
        if (deleted(f, i)) {
          ASSERT_TRUE(db_->Delete({}, Key(f, i)).ok());
        }
      }
    }
    ASSERT_TRUE(db_->Flush({}).ok());
  }
  // Keys that `deleted(file, i)` names are gone; every other one reads its
  // value.
  template <typename Deleted>
  void ExpectContents(Deleted deleted) {
    for (int f = 0; f < kFiles; ++f) {
      for (int i = 0; i < kKeysPerFile; ++i) {
        std::string value;
        const rocksdb::Status got = db_->Get({}, Key(f, i), &value);
        if (deleted(f, i)) {
          EXPECT_TRUE(got.IsNotFound()) << Key(f, i);
        } else {
          ASSERT_TRUE(got.ok()) << Key(f, i) << ": " << got.ToString();
          EXPECT_EQ(value, Value(f, i));
        }
      }
    }
  }
  std::vector<rocksdb::BlobMetaData> BlobFiles() {
    rocksdb::ColumnFamilyMetaData meta;
    db_->GetColumnFamilyMetaData(&meta);
    return meta.blob_files;
  }
  bool GcOptionOn() { return db_->GetOptions().enable_blob_garbage_collection; }

  neardup::testing::TempDir temp_;
  std::shared_ptr<BlobGcSwitch> switch_ = std::make_shared<BlobGcSwitch>();
  std::unique_ptr<rocksdb::DB> db_;
};

TEST_F(BlobGcSwitchDbTest, StaysOffWhileNothingIsGarbage) {
  WriteFiles();
  Attach();
  CompactAll();
  EXPECT_FALSE(switch_->enabled());
  EXPECT_FALSE(GcOptionOn());
  // Without collection the compaction moved keys only: the same blob files.
  EXPECT_EQ(BlobFiles().size(), static_cast<size_t>(kFiles));
}

TEST_F(BlobGcSwitchDbTest, CollectsHalfGarbageFilesThenSwitchesOff) {
  WriteFiles();
  Attach();
  ASSERT_FALSE(switch_->enabled());
  // Every other key of every file deleted: each blob file half garbage once
  // a compaction drops the keys.
  auto deleted = [](int /*file*/, int i) { return i % 2 == 0; };
  DeleteKeys(deleted);
  CompactAll();
  EXPECT_TRUE(switch_->enabled());
  EXPECT_TRUE(GcOptionOn());
  EXPECT_DOUBLE_EQ(db_->GetOptions().blob_garbage_collection_force_threshold,
                   switch_->policy().force_threshold);

  const uint64_t garbage_before = Garbage();
  ASSERT_GT(garbage_before, 0u);
  // Each compaction rewrites the oldest files' live values into new files
  // without garbage, until too little is left to be worth it.
  for (int round = 0; round < 20 && switch_->enabled(); ++round) {
    CompactAll();
  }
  EXPECT_FALSE(switch_->enabled());
  EXPECT_FALSE(GcOptionOn());
  EXPECT_LT(Garbage(), garbage_before / 4);
  ExpectContents(deleted);
}

TEST_F(BlobGcSwitchDbTest, ReachesGarbageInTheNewestFiles) {
  WriteFiles();
  Attach();
  // Nine keys in ten of the three newest files deleted: a third of all blob
  // bytes, none of it in the oldest quarter RocksDB would rewrite by default.
  auto deleted = [](int file, int i) {
    return file >= kFiles - 3 && i % 10 != 0;
  };
  DeleteKeys(deleted);
  CompactAll();
  ASSERT_TRUE(switch_->enabled());
  EXPECT_GT(db_->GetOptions().blob_garbage_collection_age_cutoff, 0.5);
  const uint64_t garbage_before = Garbage();
  for (int round = 0; round < 20 && switch_->enabled(); ++round) {
    CompactAll();
  }
  EXPECT_FALSE(switch_->enabled());
  EXPECT_LT(Garbage(), garbage_before / 4);
  ExpectContents(deleted);
}

TEST_F(BlobGcSwitchDbTest, DetachedSwitchIgnoresCompactions) {
  WriteFiles();
  Attach();
  switch_->Detach();
  DeleteKeys([](int /*file*/, int i) { return i % 2 == 0; });
  CompactAll();
  EXPECT_FALSE(switch_->enabled());
  EXPECT_FALSE(GcOptionOn());
}

TEST_F(BlobGcSwitchDbTest, AttachingAgainKeepsOneWorkingSwitch) {
  WriteFiles();
  Attach();
  Attach();
  DeleteKeys([](int /*file*/, int i) { return i % 2 == 0; });
  CompactAll();
  EXPECT_TRUE(switch_->enabled());
  EXPECT_EQ(switch_->starts(), 1u);
}

}  // namespace
}  // namespace neardup::storage
