#ifndef NEARDUP_STORAGE_INTERNAL_BLOB_GC_SWITCH_H_
#define NEARDUP_STORAGE_INTERNAL_BLOB_GC_SWITCH_H_

// Blob garbage collection copies the live values of old blob files into new
// ones whenever a compaction meets their keys. When those files hold little
// garbage that is nearly all copying for nothing, and it comes at bad times:
// after a bulk ingest (files moved down without a rewrite keep their
// sequence numbers), the first snapshot release makes RocksDB recompact every
// such file, and with collection on, 1M documents' evidence meant ~490 MB of
// blobs rewritten while queries competed for the CPU.
//
// So collection is on only while there is garbage worth it: after every
// compaction of its family (garbage appears only there: compaction is what
// drops replaced and deleted values) this listener has its own thread read
// the blob files' garbage and set `enable_blob_garbage_collection` and the
// age cutoff (which of the oldest files collection rewrites) to reach it.
// Not from the callback itself: SetOptions waits for queued writers, and a
// writer stalled on compaction would wait for that very callback.

#include <atomic>
#include <cstdint>
#include <span>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "neardup/base/sync.h"
#include "rocksdb/listener.h"
#include "rocksdb/metadata.h"

namespace rocksdb {
class ColumnFamilyHandle;
class DB;
}  // namespace rocksdb

namespace neardup::storage {

struct BlobGcPolicy {
  // Collection starts when this fraction of all blob bytes is garbage and
  // stops below the lower mark, so one compaction's change does not flip it
  // back and forth. Stored evidence stays within about a third above its
  // live size.
  double enable_at = 0.25;
  double disable_below = 0.125;
  // While on, collection rewrites at least the oldest quarter of the blob
  // files (RocksDB's default age cutoff), and more when that is what it
  // takes to reach half of the garbage.
  double min_age_cutoff = 0.25;
  // While on, RocksDB compacts the files that keep the oldest blob files
  // alive once those are this much garbage, even if nothing else would.
  double force_threshold = 0.5;
};

struct BlobGcSetting {
  bool enabled = false;
  double age_cutoff = 0.25;  // meaningful when enabled

  friend bool operator==(const BlobGcSetting&, const BlobGcSetting&) = default;
};

// Garbage bytes over all blob bytes (0 without blob files).
double BlobGarbageRatio(std::span<const rocksdb::BlobMetaData> files);

// What collection should be, given the blob files and whether it is on now.
// The age cutoff covers the oldest files holding at least half the garbage
// (RocksDB rewrites the first floor(cutoff * count) files by number).
BlobGcSetting DecideBlobGc(const BlobGcPolicy& policy,
                           std::span<const rocksdb::BlobMetaData> files,
                           bool enabled_now);

class BlobGcSwitch final : public rocksdb::EventListener {
 public:
  explicit BlobGcSwitch(BlobGcPolicy policy = {}) : policy_(policy) {}
  ~BlobGcSwitch() override { Detach(); }

  // Starts the switch's thread and a first decision. The family's options
  // must not enable collection themselves. `db` and `family` must stay valid
  // until Detach(). A failure to switch is not an error of the store's:
  // collection stays as it was and the next compaction retries. Attaching
  // again detaches first.
  void Attach(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* family);
  // Stops the thread; after this nothing touches the database. Call before
  // closing it.
  void Detach();
  // Returns once every decision asked for so far is made (for tests: a
  // compaction asks before CompactRange returns).
  void WaitIdle();

  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }
  // Times collection was switched on since Attach.
  uint64_t starts() const { return starts_.load(std::memory_order_relaxed); }
  const BlobGcPolicy& policy() const { return policy_; }

  void OnCompactionCompleted(rocksdb::DB* db,
                             const rocksdb::CompactionJobInfo& info) override;

 private:
  void Run();
  // On the switch's thread only.
  void Update(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* family);

  const BlobGcPolicy policy_;
  std::atomic<bool> enabled_{false};
  std::atomic<uint64_t> starts_{0};
  BlobGcSetting applied_;  // the switch's thread only

  Mutex mu_;
  CondVar cv_;  // pending_, stop_ or busy_ changed
  rocksdb::DB* db_ ABSL_GUARDED_BY(mu_) = nullptr;
  rocksdb::ColumnFamilyHandle* family_ ABSL_GUARDED_BY(mu_) = nullptr;
  uint32_t family_id_ ABSL_GUARDED_BY(mu_) = 0;
  bool pending_ ABSL_GUARDED_BY(mu_) = false;
  bool busy_ ABSL_GUARDED_BY(mu_) = false;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;  // started by Attach, joined by Detach
};

}  // namespace neardup::storage

#endif  // NEARDUP_STORAGE_INTERNAL_BLOB_GC_SWITCH_H_
