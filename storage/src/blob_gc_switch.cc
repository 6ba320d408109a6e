#include "neardup/storage/internal/blob_gc_switch.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "rocksdb/db.h"
#include "rocksdb_status.h"

namespace neardup::storage {

double CollectableGarbageRatio(std::span<const rocksdb::BlobMetaData> files,
                               double age_cutoff) {
  std::vector<const rocksdb::BlobMetaData*> by_age;
  by_age.reserve(files.size());
  for (const rocksdb::BlobMetaData& file : files) by_age.push_back(&file);
  std::sort(by_age.begin(), by_age.end(), [](const auto* a, const auto* b) {
    return a->blob_file_number < b->blob_file_number;
  });
  // RocksDB's cut: files before index floor(cutoff * count) are rewritten.
  const size_t eligible =
      std::min(by_age.size(), static_cast<size_t>(age_cutoff * by_age.size()));
  uint64_t total = 0;
  uint64_t garbage = 0;
  for (size_t i = 0; i < eligible; ++i) {
    total += by_age[i]->total_blob_bytes;
    garbage += by_age[i]->garbage_blob_bytes;
  }
  return total == 0 ? 0.0 : static_cast<double>(garbage) / total;
}

bool WantsBlobGc(const BlobGcPolicy& policy, double ratio, bool enabled) {
  return enabled ? ratio >= policy.disable_below : ratio >= policy.enable_at;
}

void BlobGcSwitch::Attach(rocksdb::DB* db,
                          rocksdb::ColumnFamilyHandle* family) {
  MutexLock lock(&mu_);
  db_ = db;
  family_ = family;
  family_id_ = family->GetID();
  enabled_ = false;
  Update().IgnoreError();
}

void BlobGcSwitch::Detach() {
  MutexLock lock(&mu_);
  db_ = nullptr;
  family_ = nullptr;
}

bool BlobGcSwitch::enabled() const {
  MutexLock lock(&mu_);
  return enabled_;
}

void BlobGcSwitch::OnCompactionCompleted(
    rocksdb::DB* /*db*/, const rocksdb::CompactionJobInfo& info) {
  MutexLock lock(&mu_);
  if (db_ == nullptr || info.cf_id != family_id_) return;
  // A failure leaves collection as it was; the next compaction retries.
  Update().IgnoreError();
}

absl::Status BlobGcSwitch::Update() {
  if (db_ == nullptr) return absl::OkStatus();
  rocksdb::ColumnFamilyMetaData meta;
  db_->GetColumnFamilyMetaData(family_, &meta);
  const double ratio =
      CollectableGarbageRatio(meta.blob_files, policy_.age_cutoff);
  const bool want = WantsBlobGc(policy_, ratio, enabled_);
  if (want == enabled_) return absl::OkStatus();
  const rocksdb::Status set = db_->SetOptions(
      family_, {{"enable_blob_garbage_collection", want ? "true" : "false"},
                {"blob_garbage_collection_age_cutoff",
                 std::to_string(policy_.age_cutoff)},
                {"blob_garbage_collection_force_threshold",
                 std::to_string(policy_.force_threshold)}});
  if (set.ok()) enabled_ = want;
  return FromRocksDb(set, absl::StrCat("switch blob garbage collection ",
                                       want ? "on" : "off"));
}

}  // namespace neardup::storage
