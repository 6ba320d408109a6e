#ifndef NEARDUP_STORAGE_INTERNAL_DISK_SPACE_GUARD_H_
#define NEARDUP_STORAGE_INTERNAL_DISK_SPACE_GUARD_H_

// Keeps a full disk from costing data or a restart. Writes that grow the
// store are refused (RESOURCE_EXHAUSTED) while the data directory's
// filesystem has less free space than a reserve, so RocksDB's own flushes,
// compactions and manifest writes keep room to finish. When RocksDB still
// hits "no space" (another process filled the disk), it stops writing; the
// guard then resumes it (DB::Resume) at the first write after space is back.
// Reads never pass through here.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "neardup/base/sync.h"

namespace rocksdb {
class DB;
class Status;
}  // namespace rocksdb

namespace neardup::storage {

class DiskSpaceGuard {
 public:
  // Bytes free to this process on the filesystem; nullopt when unknown.
  using FreeBytesProbe = std::function<std::optional<uint64_t>()>;

  // Monotonic microseconds; tests give a clock they move by hand.
  using MicrosClock = std::function<int64_t()>;

  // `db` is resumed after a no-space error; it must outlive the guard.
  // `now` defaults to the steady clock.
  DiskSpaceGuard(rocksdb::DB* db, uint64_t reserve_bytes,
                 FreeBytesProbe free_bytes, MicrosClock now = nullptr);

  // The statvfs of `dir`.
  static FreeBytesProbe StatvfsProbe(std::string dir);

  enum class WriteKind {
    kGrowing,    // puts and creates: refused below the reserve
    kShrinking,  // deletes and drops: how an operator makes room
  };
  // OK when the write may go ahead; RESOURCE_EXHAUSTED (with the free
  // space, the reserve and what to do) when it may not.
  absl::Status BeforeWrite(WriteKind kind);
  // Records a write's outcome: a no-space failure marks the disk full.
  void AfterWrite(const rocksdb::Status& status);

  struct State {
    bool full = false;
    std::string reason;  // empty when not full
  };
  // Probes the filesystem: a disk that is full now or that failed a write
  // and has not been resumed yet.
  State Current();

  uint64_t reserve_bytes() const { return reserve_bytes_; }

  // Free space is probed at most this often while the disk is not full.
  static constexpr int64_t kProbeIntervalMicros = 50'000;

  // A resume is tried at most this often while RocksDB is stopped.
  static constexpr int64_t kResumeIntervalMicros = 200'000;

 private:
  // Why the disk counts as full now, or empty.
  std::string ProbeLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // After a no-space failure: DB::Resume once enough space is free for
  // RocksDB's flush (ResumeFloor), rate-limited.
  void MaybeResume(int64_t now) ABSL_LOCKS_EXCLUDED(mu_);
  uint64_t ResumeFloor() const {
    return std::min<uint64_t>(reserve_bytes_, uint64_t{64} << 20);
  }

  rocksdb::DB* const db_;
  const uint64_t reserve_bytes_;
  const FreeBytesProbe free_bytes_;
  const MicrosClock now_;

  // Fast path: nothing is wrong and the last probe is recent.
  std::atomic<bool> healthy_{true};
  std::atomic<int64_t> next_probe_micros_{0};

  Mutex mu_;
  // A write failed with "no space": RocksDB refuses writes until resumed.
  bool rocksdb_failed_ ABSL_GUARDED_BY(mu_) = false;
  std::string rocksdb_error_ ABSL_GUARDED_BY(mu_);
  int64_t next_resume_micros_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace neardup::storage

#endif  // NEARDUP_STORAGE_INTERNAL_DISK_SPACE_GUARD_H_
