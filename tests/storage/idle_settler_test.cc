// IdleSettler: on a real RocksDB, it releases a snapshot once per idle spell
// after new writes (never while writes or noted reads go on, never on an
// untouched database), and that release gets bottom files that a trivial
// move left with their sequence numbers rewritten.

#include "neardup/storage/internal/idle_settler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "support/temp_dir.h"

namespace neardup::storage {
namespace {

using std::chrono::milliseconds;

constexpr IdleSettlerOptions kFast{.quiet = milliseconds(100),
                                   .poll = milliseconds(10)};

// Polls `done` for up to 20 s (sanitizer builds on a busy machine are slow).
bool Eventually(const std::function<bool()>& done) {
  for (int i = 0; i < 2000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return done();
}

class IdleSettlerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rocksdb::Options options;
    options.create_if_missing = true;
    options.level_compaction_dynamic_level_bytes = true;
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, temp_.path() + "/db", &db).ok());
    db_.reset(db);
  }
  void TearDown() override {
    settler_.Detach();
    if (db_) {
      ASSERT_TRUE(db_->Close().ok());
    }
  }
  void Put(const std::string& key) {
    ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), key, "value").ok());
  }
  // Sequence numbers of the live files, bottom level only.
  std::vector<uint64_t> BottomSequenceNumbers() const {
    std::vector<rocksdb::LiveFileMetaData> files;
    db_->GetLiveFilesMetaData(&files);
    int bottom = 0;
    for (const auto& file : files) bottom = std::max(bottom, file.level);
    std::vector<uint64_t> largest;
    for (const auto& file : files) {
      if (file.level == bottom) largest.push_back(file.largest_seqno);
    }
    return largest;
  }

  neardup::testing::TempDir temp_;
  std::unique_ptr<rocksdb::DB> db_;
  IdleSettler settler_{kFast};
};

// The settler's looks, driven by hand on a clock of the test's (no thread,
// no sleeps): Step is what the thread does every poll interval.
TEST_F(IdleSettlerTest, SettlesOnceAfterEachSpellOfWrites) {
  IdleSettler settler({.quiet = milliseconds(1000)});
  IdleSettler::Clock::time_point t{};
  settler.Step(*db_, t);
  // An untouched database has nothing to settle, however long it idles.
  settler.Step(*db_, t += std::chrono::hours(1));
  EXPECT_EQ(settler.settles(), 0u);

  Put("a");
  settler.Step(*db_, t += milliseconds(10));  // the write is noticed
  settler.Step(*db_, t += milliseconds(999));
  EXPECT_EQ(settler.settles(), 0u);  // not quiet for long enough yet
  settler.Step(*db_, t += milliseconds(1));
  EXPECT_EQ(settler.settles(), 1u);
  // Idle on, nothing new: no second release.
  settler.Step(*db_, t += std::chrono::hours(1));
  EXPECT_EQ(settler.settles(), 1u);

  Put("b");
  settler.Step(*db_, t += milliseconds(10));
  settler.Step(*db_, t += milliseconds(1000));
  EXPECT_EQ(settler.settles(), 2u);
}

TEST_F(IdleSettlerTest, WritesAndNotedReadsPostponeIt) {
  IdleSettler settler({.quiet = milliseconds(1000)});
  IdleSettler::Clock::time_point t{};
  settler.Step(*db_, t);
  // A change at every look, each before the quiet time is up.
  for (int i = 0; i < 10; ++i) {
    Put("key" + std::to_string(i));
    settler.Step(*db_, t += milliseconds(900));
  }
  for (int i = 0; i < 10; ++i) {
    settler.NoteActivity();
    settler.Step(*db_, t += milliseconds(900));
  }
  EXPECT_EQ(settler.settles(), 0u);
  settler.Step(*db_, t += milliseconds(999));
  EXPECT_EQ(settler.settles(), 0u);
  settler.Step(*db_, t += milliseconds(1));
  EXPECT_EQ(settler.settles(), 1u);
}

// The thread itself, on the real clock: it settles after a write.
TEST_F(IdleSettlerTest, ItsThreadSettles) {
  settler_.Attach(db_.get());
  Put("a");
  ASSERT_TRUE(Eventually([&] { return settler_.settles() == 1; }));
}

TEST_F(IdleSettlerTest, ItsReleaseRewritesTriviallyMovedBottomFiles) {
  for (int i = 0; i < 100; ++i) Put("key" + std::to_string(i));
  ASSERT_TRUE(db_->Flush(rocksdb::FlushOptions()).ok());
  // One L0 file over an empty tree moves to the bottom as it is, sequence
  // numbers and all (what bulk loads of ascending ids leave behind).
  ASSERT_TRUE(
      db_->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr).ok());
  const std::vector<uint64_t> before = BottomSequenceNumbers();
  ASSERT_FALSE(before.empty());
  ASSERT_NE(before.front(), 0u) << "the move rewrote the file already";
  // RocksDB marks files older than the oldest snapshot, which a release
  // with none left puts at the last write: one more write, in the memtable,
  // makes the file older than that.
  Put("later");
  // No snapshot was released: RocksDB leaves the file alone.
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(BottomSequenceNumbers(), before);

  settler_.Attach(db_.get());
  ASSERT_TRUE(Eventually([&] { return settler_.settles() == 1; }));
  EXPECT_TRUE(Eventually([&] {
    const std::vector<uint64_t> now = BottomSequenceNumbers();
    return !now.empty() && std::all_of(now.begin(), now.end(),
                                       [](uint64_t s) { return s == 0; });
  }));
}

}  // namespace
}  // namespace neardup::storage
