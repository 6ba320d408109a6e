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
  // RocksDB is called without mu_ held, so Detach never waits behind it for
  // long.
  Step(*db, Clock::now());
  while (WaitOrStop()) Step(*db, Clock::now());
}

void IdleSettler::Step(rocksdb::DB& db, Clock::time_point now) {
  const uint64_t now_sequence = db.GetLatestSequenceNumber();
  const uint64_t now_activity = activity_.load(std::memory_order_relaxed);
  if (!watch_.started || now_sequence != watch_.sequence ||
      now_activity != watch_.activity || BackgroundWorkRunning(db)) {
    watch_.started = true;
    watch_.sequence = now_sequence;
    watch_.activity = now_activity;
    watch_.unchanged_since = now;
    return;
  }
  if (watch_.sequence == watch_.settled_sequence ||
      now - watch_.unchanged_since < options_.quiet) {
    return;
  }
  // A snapshot released with none older lets RocksDB mark the bottom files
  // older than the last write (all but the one holding it, if it is
  // flushed); their rewrite starts in the background.
  db.ReleaseSnapshot(db.GetSnapshot());
  watch_.settled_sequence = watch_.sequence;
  settles_.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace neardup::storage
