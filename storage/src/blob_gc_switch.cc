#include "neardup/storage/internal/blob_gc_switch.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "rocksdb/db.h"

namespace neardup::storage {

double BlobGarbageRatio(std::span<const rocksdb::BlobMetaData> files) {
  uint64_t total = 0;
  uint64_t garbage = 0;
  for (const rocksdb::BlobMetaData& file : files) {
    total += file.total_blob_bytes;
    garbage += file.garbage_blob_bytes;
  }
  return total == 0 ? 0.0 : static_cast<double>(garbage) / total;
}

BlobGcSetting DecideBlobGc(const BlobGcPolicy& policy,
                           std::span<const rocksdb::BlobMetaData> files,
                           bool enabled_now) {
  const double ratio = BlobGarbageRatio(files);
  const bool on =
      enabled_now ? ratio >= policy.disable_below : ratio >= policy.enable_at;
  if (!on) return {.enabled = false, .age_cutoff = policy.min_age_cutoff};

  std::vector<const rocksdb::BlobMetaData*> by_age;
  by_age.reserve(files.size());
  uint64_t garbage = 0;
  for (const rocksdb::BlobMetaData& file : files) {
    by_age.push_back(&file);
    garbage += file.garbage_blob_bytes;
  }
  std::sort(by_age.begin(), by_age.end(), [](const auto* a, const auto* b) {
    return a->blob_file_number < b->blob_file_number;
  });
  // The oldest files that hold half the garbage.
  size_t oldest = 0;
  uint64_t reached = 0;
  while (oldest < by_age.size() && 2 * reached < garbage) {
    reached += by_age[oldest++]->garbage_blob_bytes;
  }
  // Half a file more, so floor(cutoff * count) is `oldest` despite rounding.
  const double cutoff =
      (static_cast<double>(oldest) + 0.5) / static_cast<double>(by_age.size());
  return {.enabled = true,
          .age_cutoff = std::clamp(cutoff, policy.min_age_cutoff, 1.0)};
}

void BlobGcSwitch::Attach(rocksdb::DB* db,
                          rocksdb::ColumnFamilyHandle* family) {
  Detach();  // a second Attach replaces the first
  {
    MutexLock lock(&mu_);
    db_ = db;
    family_ = family;
    family_id_ = family->GetID();
    pending_ = true;
    stop_ = false;
  }
  thread_ = std::thread([this] { Run(); });
}

void BlobGcSwitch::Detach() {
  {
    MutexLock lock(&mu_);
    stop_ = true;
    cv_.SignalAll();
  }
  if (thread_.joinable()) thread_.join();
  MutexLock lock(&mu_);
  db_ = nullptr;
  family_ = nullptr;
}

void BlobGcSwitch::WaitIdle() {
  MutexLock lock(&mu_);
  while ((pending_ || busy_) && !stop_) cv_.Wait(&mu_);
}

void BlobGcSwitch::OnCompactionCompleted(
    rocksdb::DB* /*db*/, const rocksdb::CompactionJobInfo& info) {
  MutexLock lock(&mu_);
  if (db_ == nullptr || stop_ || info.cf_id != family_id_) return;
  pending_ = true;
  cv_.SignalAll();
}

void BlobGcSwitch::Run() {
  while (true) {
    rocksdb::DB* db = nullptr;
    rocksdb::ColumnFamilyHandle* family = nullptr;
    {
      MutexLock lock(&mu_);
      while (!pending_ && !stop_) cv_.Wait(&mu_);
      if (stop_) return;
      pending_ = false;
      busy_ = true;
      db = db_;
      family = family_;
    }
    // Detach joins this thread before `db` and `family` go. An allocation
    // failure here only leaves collection as it was.
    try {
      Update(db, family);
    } catch (...) {
    }
    MutexLock lock(&mu_);
    busy_ = false;
    cv_.SignalAll();
  }
}

void BlobGcSwitch::Update(rocksdb::DB* db,
                          rocksdb::ColumnFamilyHandle* family) {
  rocksdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(family, &meta);
  BlobGcSetting wanted =
      DecideBlobGc(policy_, meta.blob_files, applied_.enabled);
  // Small moves of the cutoff are not worth rewriting the OPTIONS file.
  if (wanted.enabled && applied_.enabled &&
      std::abs(wanted.age_cutoff - applied_.age_cutoff) < 0.05) {
    wanted.age_cutoff = applied_.age_cutoff;
  }
  if (wanted == applied_) return;
  const rocksdb::Status set = db->SetOptions(
      family,
      {{"enable_blob_garbage_collection", wanted.enabled ? "true" : "false"},
       {"blob_garbage_collection_age_cutoff",
        std::to_string(wanted.age_cutoff)},
       {"blob_garbage_collection_force_threshold",
        std::to_string(policy_.force_threshold)}});
  if (!set.ok()) return;  // the next compaction retries
  if (wanted.enabled && !applied_.enabled) {
    starts_.fetch_add(1, std::memory_order_relaxed);
  }
  applied_ = wanted;
  enabled_.store(wanted.enabled, std::memory_order_relaxed);
}

}  // namespace neardup::storage
