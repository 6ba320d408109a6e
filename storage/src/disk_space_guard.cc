#include "neardup/storage/disk_space_guard.h"

#include <sys/statvfs.h>

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "rocksdb/db.h"

namespace neardup::storage {
namespace {

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string Mebibytes(uint64_t bytes) {
  return absl::StrFormat("%.1f MiB", static_cast<double>(bytes) / (1 << 20));
}

constexpr char kWhatToDo[] =
    "writes resume by themselves once space is freed (grow the volume, or "
    "delete documents or drop a collection, which free space as compaction "
    "rewrites files); reads keep working";

}  // namespace

DiskSpaceGuard::DiskSpaceGuard(rocksdb::DB* db, uint64_t reserve_bytes,
                               FreeBytesProbe free_bytes, MicrosClock now)
    : db_(db),
      reserve_bytes_(reserve_bytes),
      free_bytes_(std::move(free_bytes)),
      now_(now ? std::move(now) : MicrosClock(&NowMicros)) {}

DiskSpaceGuard::FreeBytesProbe DiskSpaceGuard::StatvfsProbe(std::string dir) {
  return [dir = std::move(dir)]() -> std::optional<uint64_t> {
    struct statvfs fs;
    if (statvfs(dir.c_str(), &fs) != 0) return std::nullopt;
    return static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
  };
}

std::string DiskSpaceGuard::ProbeLocked() {
  if (rocksdb_failed_) {
    return absl::StrCat("RocksDB stopped writing after running out of space (",
                        rocksdb_error_, ")");
  }
  const std::optional<uint64_t> free = free_bytes_();
  if (free.has_value() && *free < reserve_bytes_) {
    return absl::StrCat(Mebibytes(*free),
                        " free on the data directory's filesystem, below the "
                        "reserve of ",
                        Mebibytes(reserve_bytes_), " (--min-free-disk-bytes)");
  }
  return "";
}

absl::Status DiskSpaceGuard::BeforeWrite(WriteKind kind) {
  const int64_t now = now_();
  if (healthy_.load(std::memory_order_acquire) &&
      now < next_probe_micros_.load(std::memory_order_relaxed)) {
    return absl::OkStatus();
  }
  MaybeResume(now);
  MutexLock lock(&mu_);
  next_probe_micros_.store(now + kProbeIntervalMicros,
                           std::memory_order_relaxed);
  const std::string reason = ProbeLocked();
  healthy_.store(reason.empty(), std::memory_order_release);
  if (reason.empty() || (kind == WriteKind::kShrinking && !rocksdb_failed_)) {
    return absl::OkStatus();
  }
  if (rocksdb_failed_) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "disk full: ", reason,
        "; free space outside the store: RocksDB "
        "resumes, and deletes work again, at the first write once ",
        Mebibytes(ResumeFloor()), " are free; reads keep working"));
  }
  return absl::ResourceExhaustedError(
      absl::StrCat("disk full: ", reason, "; ", kWhatToDo));
}

void DiskSpaceGuard::MaybeResume(int64_t now) {
  {
    MutexLock lock(&mu_);
    if (!rocksdb_failed_ || now < next_resume_micros_) return;
    next_resume_micros_ = now + kResumeIntervalMicros;
    // Resuming flushes memtables: pointless (and, with Debian's RocksDB,
    // risky) while there is no room for them.
    const std::optional<uint64_t> free = free_bytes_();
    if (free.has_value() && *free < ResumeFloor()) return;
  }
  // Outside mu_: a resume flushes, and Stats must not wait for it.
  const rocksdb::Status resumed = db_->Resume();
  MutexLock lock(&mu_);
  if (resumed.ok()) {
    rocksdb_failed_ = false;
    rocksdb_error_.clear();
  } else {
    rocksdb_error_ = resumed.ToString();
  }
}

void DiskSpaceGuard::AfterWrite(const rocksdb::Status& status) {
  if (status.ok() || !status.IsNoSpace()) return;
  MutexLock lock(&mu_);
  rocksdb_failed_ = true;
  rocksdb_error_ = status.ToString();
  healthy_.store(false, std::memory_order_release);
}

DiskSpaceGuard::State DiskSpaceGuard::Current() {
  MutexLock lock(&mu_);
  std::string reason = ProbeLocked();
  return {.full = !reason.empty(), .reason = std::move(reason)};
}

}  // namespace neardup::storage
