// BlobGcSwitch: which blob files count, the on/off hysteresis, and on a real
// RocksDB that collection stays off without garbage, comes on when the
// oldest files are half garbage, reclaims them, and goes off again.

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

TEST(CollectableGarbageRatioTest, CountsOnlyTheOldestQuarterByFileNumber) {
  // Listed out of order: the two lowest numbers (3, 5) are the eligible
  // quarter of eight files, whatever their position.
  const std::vector<rocksdb::BlobMetaData> files = {
      Blob(40, 100, 100), Blob(5, 100, 50),  Blob(30, 100, 100),
      Blob(3, 300, 0),    Blob(20, 100, 90), Blob(10, 100, 100),
      Blob(50, 100, 100), Blob(60, 100, 100)};
  EXPECT_DOUBLE_EQ(CollectableGarbageRatio(files, 0.25), 50.0 / 400.0);
  EXPECT_DOUBLE_EQ(CollectableGarbageRatio(files, 1.0), 640.0 / 1000.0);
}

TEST(CollectableGarbageRatioTest, FewerFilesThanTheCutoffNeedsMeansNothing) {
  // floor(0.25 * 3) = 0 files: RocksDB would rewrite none.
  const std::vector<rocksdb::BlobMetaData> files = {
      Blob(1, 100, 100), Blob(2, 100, 100), Blob(3, 100, 100)};
  EXPECT_EQ(CollectableGarbageRatio(files, 0.25), 0.0);
  EXPECT_EQ(CollectableGarbageRatio({}, 0.25), 0.0);
}

TEST(WantsBlobGcTest, SwitchesOnAtTheUpperMarkAndOffBelowTheLower) {
  const BlobGcPolicy policy;  // 0.25 on, 0.125 off
  EXPECT_FALSE(WantsBlobGc(policy, 0.0, false));
  EXPECT_FALSE(WantsBlobGc(policy, 0.24, false));
  EXPECT_TRUE(WantsBlobGc(policy, 0.25, false));
  EXPECT_TRUE(WantsBlobGc(policy, 0.20, true));
  EXPECT_TRUE(WantsBlobGc(policy, 0.125, true));
  EXPECT_FALSE(WantsBlobGc(policy, 0.12, true));
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
  void CompactAll() {
    rocksdb::CompactRangeOptions options;
    options.bottommost_level_compaction =
        rocksdb::BottommostLevelCompaction::kForce;
    ASSERT_TRUE(db_->CompactRange(options, nullptr, nullptr).ok());
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
  switch_->Attach(db_.get(), db_->DefaultColumnFamily());
  CompactAll();
  EXPECT_FALSE(switch_->enabled());
  EXPECT_FALSE(GcOptionOn());
  // Without collection the compaction moved keys only: the same blob files.
  EXPECT_EQ(BlobFiles().size(), static_cast<size_t>(kFiles));
}

TEST_F(BlobGcSwitchDbTest, CollectsHalfGarbageFilesThenSwitchesOff) {
  WriteFiles();
  switch_->Attach(db_.get(), db_->DefaultColumnFamily());
  ASSERT_FALSE(switch_->enabled());
  // Every other key of every file deleted: each blob file half garbage once
  // a compaction drops the keys.
  for (int f = 0; f < kFiles; ++f) {
    for (int i = 0; i < kKeysPerFile; i += 2) {
      ASSERT_TRUE(db_->Delete({}, Key(f, i)).ok());
    }
  }
  ASSERT_TRUE(db_->Flush({}).ok());
  CompactAll();
  EXPECT_TRUE(switch_->enabled());
  EXPECT_TRUE(GcOptionOn());
  EXPECT_DOUBLE_EQ(db_->GetOptions().blob_garbage_collection_age_cutoff,
                   switch_->policy().age_cutoff);

  uint64_t garbage_before = 0;
  for (const auto& blob : BlobFiles())
    garbage_before += blob.garbage_blob_bytes;
  ASSERT_GT(garbage_before, 0u);
  // Each compaction rewrites the oldest quarter's live values; the new files
  // hold no garbage, so the oldest quarter turns clean and collection stops.
  for (int round = 0; round < 20 && switch_->enabled(); ++round) {
    CompactAll();
  }
  EXPECT_FALSE(switch_->enabled());
  EXPECT_FALSE(GcOptionOn());
  uint64_t garbage_after = 0;
  for (const auto& blob : BlobFiles()) garbage_after += blob.garbage_blob_bytes;
  EXPECT_LT(garbage_after, garbage_before);

  // Nothing live was lost in the rewrites.
  for (int f = 0; f < kFiles; ++f) {
    for (int i = 0; i < kKeysPerFile; ++i) {
      std::string value;
      const rocksdb::Status got = db_->Get({}, Key(f, i), &value);
      if (i % 2 == 0) {
        EXPECT_TRUE(got.IsNotFound()) << Key(f, i);
      } else {
        ASSERT_TRUE(got.ok()) << Key(f, i) << ": " << got.ToString();
        EXPECT_EQ(value, Value(f, i));
      }
    }
  }
}

TEST_F(BlobGcSwitchDbTest, DetachedSwitchIgnoresCompactions) {
  WriteFiles();
  switch_->Attach(db_.get(), db_->DefaultColumnFamily());
  switch_->Detach();
  for (int f = 0; f < kFiles; ++f) {
    for (int i = 0; i < kKeysPerFile; i += 2) {
      ASSERT_TRUE(db_->Delete({}, Key(f, i)).ok());
    }
  }
  CompactAll();
  EXPECT_FALSE(switch_->enabled());
  EXPECT_FALSE(GcOptionOn());
}

}  // namespace
}  // namespace neardup::storage
