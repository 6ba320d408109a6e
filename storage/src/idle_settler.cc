#include "neardup/storage/internal/idle_settler.h"

#include "rocksdb/db.h"

namespace neardup::storage {
namespace {

// Flushes and compactions (trivial moves included) still change what lies
// at the bottom: wait for them before releasing.
bool BackgroundWorkRunning(rocksdb::DB& db) {
  uint64_t compactions = 0, flushes = 0;
  db.GetIntProperty(rocksdb::DB::Properties::kNumRunningCompactions,
                    &compactions);
  db.GetIntProperty(rocksdb::DB::Properties::kNumRunningFlushes, &flushes);
  return compactions + flushes > 0;
}

}  // namespace

void IdleSettler::Attach(rocksdb::DB* db) {
  Detach();
  {
    MutexLock lock(&mu_);
    stop_ = false;
  }
  thread_ = std::thread([this, db] { Run(db); });
}

void IdleSettler::Detach() {
  {
    MutexLock lock(&mu_);
    stop_ = true;
  }
  cv_.SignalAll();
  if (thread_.joinable()) thread_.join();
}

bool IdleSettler::WaitOrStop() {
  MutexLock lock(&mu_);
  if (!stop_) {
    cv_.WaitUntil(&mu_, std::chrono::steady_clock::now() + options_.poll);
  }
  return !stop_;
}

void IdleSettler::Run(rocksdb::DB* db) {
  using Clock = std::chrono::steady_clock;
  // What the store looked like at the last look, since when it has looked
  // like that, and the write the last release covered. RocksDB is called
  // without mu_ held, so Detach never waits behind it for long.
  uint64_t sequence = db->GetLatestSequenceNumber();
  uint64_t activity = activity_.load(std::memory_order_relaxed);
  Clock::time_point unchanged_since = Clock::now();
  uint64_t settled_sequence = 0;
  while (WaitOrStop()) {
    const uint64_t now_sequence = db->GetLatestSequenceNumber();
    const uint64_t now_activity = activity_.load(std::memory_order_relaxed);
    const Clock::time_point now = Clock::now();
    if (now_sequence != sequence || now_activity != activity ||
        BackgroundWorkRunning(*db)) {
      sequence = now_sequence;
      activity = now_activity;
      unchanged_since = now;
      continue;
    }
    if (sequence == settled_sequence ||
        now - unchanged_since < options_.quiet) {
      continue;
    }
    // A snapshot released with none older lets RocksDB mark the bottom
    // files older than the last write (all but the one holding it, if it
    // is flushed); their rewrite starts in the background.
    db->ReleaseSnapshot(db->GetSnapshot());
    settled_sequence = sequence;
    settles_.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace neardup::storage
