#ifndef NEARDUP_STORAGE_INTERNAL_IDLE_SETTLER_H_
#define NEARDUP_STORAGE_INTERNAL_IDLE_SETTLER_H_

// Lets RocksDB tidy freshly written files while the store is idle.
//
// A bulk load leaves most files at the bottom level by trivial moves, which
// keep their sequence numbers. The first time a snapshot is released after
// that, RocksDB rewrites all of them once (compaction reason
// "BottommostFiles") to zero those numbers: about 1 GB and seconds of CPU
// for a million documents. Left alone, that first release is the index
// rebuild's at the next start, and the rewrite competes with the first
// seconds of queries. So once neither writes, reads nor flushes and
// compactions have happened for a while, this releases a snapshot itself:
// the rewrite starts while nothing else runs.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "neardup/base/sync.h"

namespace rocksdb {
class DB;
}

namespace neardup::storage {

struct IdleSettlerOptions {
  // No write, no noted read and no flush or compaction for this long
  // counts as idle.
  std::chrono::milliseconds quiet{5000};
  // How often the thread looks.
  std::chrono::milliseconds poll{1000};
};

class IdleSettler {
 public:
  using Clock = std::chrono::steady_clock;

  explicit IdleSettler(IdleSettlerOptions options = {}) : options_(options) {}
  ~IdleSettler() { Detach(); }
  IdleSettler(const IdleSettler&) = delete;
  IdleSettler& operator=(const IdleSettler&) = delete;

  // Starts watching `db`, which must stay open until Detach(). Attach and
  // Detach are called from one thread (the owner's).
  void Attach(rocksdb::DB* db);
  // Stops the thread; after this nothing touches the database.
  void Detach();

  // Reads do not move the sequence number: callers note them here.
  void NoteActivity() { activity_.fetch_add(1, std::memory_order_relaxed); }
  // Snapshots released so far (once per idle spell after new writes).
  uint64_t settles() const { return settles_.load(std::memory_order_relaxed); }

  // One look at `db` at time `now`, what the thread does every poll
  // interval; the first look only notes the state. Tests call it
  // themselves, without Attach, with times of their choosing.
  void Step(rocksdb::DB& db, Clock::time_point now);

 private:
  void Run(rocksdb::DB* db);
  // Waits one poll interval; false once Detach was asked for.
  bool WaitOrStop();

  const IdleSettlerOptions options_;
  // What the store looked like at the last look, since when it has looked
  // like that, and the write the last release covered. Only the thread (or
  // a test instead of it) touches these.
  struct Watch {
    bool started = false;
    uint64_t sequence = 0;
    uint64_t activity = 0;
    Clock::time_point unchanged_since;
    uint64_t settled_sequence = 0;
  } watch_;
  std::atomic<uint64_t> activity_{0};
  std::atomic<uint64_t> settles_{0};
  Mutex mu_;
  CondVar cv_;  // stop_ changed
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace neardup::storage

#endif  // NEARDUP_STORAGE_INTERNAL_IDLE_SETTLER_H_
