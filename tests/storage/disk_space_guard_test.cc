// DiskSpaceGuard with a fake free-space probe: refusals below the reserve,
// deletes let through, and recovery from a RocksDB no-space failure.

#include "neardup/storage/disk_space_guard.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>

#include "rocksdb/db.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace neardup::storage {
namespace {

using Kind = DiskSpaceGuard::WriteKind;

constexpr uint64_t kReserve = 1000;

class DiskSpaceGuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rocksdb::Options options;
    options.create_if_missing = true;
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, temp_.path() + "/db", &db).ok());
    db_.reset(db);
    guard_ = std::make_unique<DiskSpaceGuard>(
        db_.get(), kReserve,
        [this]() -> std::optional<uint64_t> { return free_.load(); },
        [this] { return now_micros_.load(); });
  }
  // The guard's clock, moved by the test.
  void Advance(int64_t micros) { now_micros_ += micros; }
  std::atomic<int64_t> now_micros_{1'000'000};

  neardup::testing::TempDir temp_;
  std::unique_ptr<rocksdb::DB> db_;
  std::atomic<uint64_t> free_{10 * kReserve};
  std::unique_ptr<DiskSpaceGuard> guard_;
};

TEST_F(DiskSpaceGuardTest, AllowsWritesWithSpaceAboveTheReserve) {
  EXPECT_OK(guard_->BeforeWrite(Kind::kGrowing));
  EXPECT_OK(guard_->BeforeWrite(Kind::kShrinking));
  EXPECT_FALSE(guard_->Current().full);
}

TEST_F(DiskSpaceGuardTest, RefusesGrowingWritesBelowTheReserveUntilFreed) {
  free_ = kReserve - 1;
  const absl::Status refused = guard_->BeforeWrite(Kind::kGrowing);
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.message().find("disk full"), std::string::npos);
  EXPECT_NE(refused.message().find("--min-free-disk-bytes"), std::string::npos)
      << refused;
  // Deletes make room: they go through.
  EXPECT_OK(guard_->BeforeWrite(Kind::kShrinking));
  const DiskSpaceGuard::State state = guard_->Current();
  EXPECT_TRUE(state.full);
  EXPECT_NE(state.reason.find("reserve"), std::string::npos);

  free_ = kReserve;
  EXPECT_OK(guard_->BeforeWrite(Kind::kGrowing));
  EXPECT_FALSE(guard_->Current().full);
}

TEST_F(DiskSpaceGuardTest, NoticesAShrinkingDiskWithinTheProbeInterval) {
  EXPECT_OK(guard_->BeforeWrite(Kind::kGrowing));
  free_ = 0;
  // Within the probe interval the last probe stands ...
  Advance(DiskSpaceGuard::kProbeIntervalMicros - 1);
  EXPECT_OK(guard_->BeforeWrite(Kind::kGrowing));
  // ... and once it has passed the disk is looked at again.
  Advance(1);
  EXPECT_EQ(guard_->BeforeWrite(Kind::kGrowing).code(),
            absl::StatusCode::kResourceExhausted);
}

TEST_F(DiskSpaceGuardTest, ANoSpaceFailureStopsEveryWriteUntilResumed) {
  guard_->AfterWrite(rocksdb::Status::NoSpace("append to WAL"));
  free_ = 0;
  EXPECT_EQ(guard_->BeforeWrite(Kind::kGrowing).code(),
            absl::StatusCode::kResourceExhausted);
  // RocksDB refuses deletes too until it is resumed.
  const absl::Status shrink = guard_->BeforeWrite(Kind::kShrinking);
  EXPECT_EQ(shrink.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(shrink.message().find("RocksDB stopped writing"), std::string::npos)
      << shrink;
  EXPECT_TRUE(guard_->Current().full);

  EXPECT_NE(shrink.message().find("free space outside the store"),
            std::string::npos)
      << shrink;

  // Space is back, but the last try was just now: no new one yet ...
  free_ = 10 * kReserve;
  Advance(DiskSpaceGuard::kResumeIntervalMicros - 1);
  EXPECT_EQ(guard_->BeforeWrite(Kind::kGrowing).code(),
            absl::StatusCode::kResourceExhausted);
  // ... and once the interval has passed a write resumes RocksDB.
  Advance(1);
  EXPECT_OK(guard_->BeforeWrite(Kind::kGrowing));
  EXPECT_FALSE(guard_->Current().full);
}

TEST_F(DiskSpaceGuardTest, OtherFailuresDoNotMarkTheDiskFull) {
  guard_->AfterWrite(rocksdb::Status::IOError("EIO"));
  guard_->AfterWrite(rocksdb::Status::OK());
  EXPECT_OK(guard_->BeforeWrite(Kind::kGrowing));
  EXPECT_FALSE(guard_->Current().full);
}

TEST_F(DiskSpaceGuardTest, AnUnknownFreeSpaceDoesNotBlockWrites) {
  DiskSpaceGuard guard(db_.get(), kReserve, []() -> std::optional<uint64_t> {
    return std::nullopt;
  });
  EXPECT_OK(guard.BeforeWrite(Kind::kGrowing));
}

}  // namespace
}  // namespace neardup::storage
