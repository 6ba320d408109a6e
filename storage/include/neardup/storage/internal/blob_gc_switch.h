#ifndef NEARDUP_STORAGE_INTERNAL_BLOB_GC_SWITCH_H_
#define NEARDUP_STORAGE_INTERNAL_BLOB_GC_SWITCH_H_

// Blob garbage collection copies the live values of the oldest blob files
// into new ones whenever a compaction meets their keys. When those files hold
// little garbage that is nearly all copying for nothing, and it comes at bad
// times: after a bulk ingest (files moved down without a rewrite keep their
// sequence numbers), the first snapshot release makes RocksDB recompact every
// such file, and with collection on, 1M documents' evidence meant ~490 MB of
// blobs rewritten while queries competed for the CPU.
//
// So collection is on only while the files it would rewrite are worth it:
// this listener looks at the blob files' garbage after every compaction of
// its family (garbage appears only there: compaction is what drops replaced
// and deleted values) and switches `enable_blob_garbage_collection`.

#include <cstdint>
#include <span>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "neardup/base/sync.h"
#include "rocksdb/listener.h"
#include "rocksdb/metadata.h"

namespace rocksdb {
class ColumnFamilyHandle;
class DB;
}  // namespace rocksdb

namespace neardup::storage {

struct BlobGcPolicy {
  // RocksDB's blob_garbage_collection_age_cutoff: collection rewrites the
  // oldest this fraction of blob files (by file number).
  double age_cutoff = 0.25;
  // Collection starts when those files are at least this fraction garbage
  // (each byte freed then costs at most 3 copied) and stops below the
  // lower mark, so one compaction's change does not flip it back and forth.
  double enable_at = 0.25;
  double disable_below = 0.125;
  // While on, RocksDB compacts the files that keep the oldest blob files
  // alive once those are this much garbage, even if nothing else would.
  double force_threshold = 0.5;
};

// The garbage fraction of the blob files collection would rewrite (0 when
// there are none).
double CollectableGarbageRatio(std::span<const rocksdb::BlobMetaData> files,
                               double age_cutoff);

// Whether collection should be on, given the ratio and whether it is now.
bool WantsBlobGc(const BlobGcPolicy& policy, double ratio, bool enabled);

class BlobGcSwitch final : public rocksdb::EventListener {
 public:
  explicit BlobGcSwitch(BlobGcPolicy policy = {}) : policy_(policy) {}

  // The family's options must not enable collection themselves: the switch
  // decides (now, then after each compaction). `db` and `family` must stay
  // valid until Detach(). A failure to switch is not an error of the
  // store's: collection stays as it was and the next compaction retries.
  void Attach(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* family);
  // After this no callback touches the database; call before closing it.
  void Detach();

  bool enabled() const;
  const BlobGcPolicy& policy() const { return policy_; }

  void OnCompactionCompleted(rocksdb::DB* db,
                             const rocksdb::CompactionJobInfo& info) override;

 private:
  absl::Status Update() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const BlobGcPolicy policy_;
  mutable Mutex mu_;
  rocksdb::DB* db_ ABSL_GUARDED_BY(mu_) = nullptr;
  rocksdb::ColumnFamilyHandle* family_ ABSL_GUARDED_BY(mu_) = nullptr;
  uint32_t family_id_ ABSL_GUARDED_BY(mu_) = 0;
  bool enabled_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace neardup::storage

#endif  // NEARDUP_STORAGE_INTERNAL_BLOB_GC_SWITCH_H_
