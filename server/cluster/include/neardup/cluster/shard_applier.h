#ifndef NEARDUP_CLUSTER_SHARD_APPLIER_H_
#define NEARDUP_CLUSTER_SHARD_APPLIER_H_

// A replica's write path (docs/cluster.md): the entries of one shard's
// subject of a collection's log, applied to the local collection in log
// order, each exactly once across crashes. Every write records its entry's
// sequence in the same RocksDB batch (storage::WriteOptions::log_sequence),
// and reading resumes after the sequence the collection holds.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "neardup/cluster/jetstream_log.h"
#include "neardup/cluster/log_entry.h"
#include "neardup/engine/collection.h"

namespace neardup::cluster {

// What applying one entry did, told to the node that wrote it (which finds
// its write by the append id). An upsert's outcome (written, or blocked by
// insert_only_below); a delete: written when it removed the document,
// NOT_FOUND when there was none.
struct AppliedEntry {
  uint64_t sequence = 0;
  const LogEntry* entry = nullptr;
  absl::StatusOr<engine::UpsertOutcome> outcome = engine::UpsertOutcome{};
  // Of another shard: read, not applied here (outcome says nothing).
  bool skipped = false;
};
// Called on the applying thread, after the entry is stored, for each entry.
using AppliedListener = std::function<void(const AppliedEntry&)>;
// Whether an entry is this replica's to apply (its shard's); the others are
// read and passed over, so that "applied through N" covers every entry.
using EntryFilter = std::function<bool(const LogEntry&)>;

class ShardApplier {
 public:
  // Reads `subject` of `stream` (every record of it: a wildcard over its
  // subjects, or its only one) after `collection`'s log sequence, and
  // applies the entries `applies` accepts (null: all). `log` and
  // `collection` must outlive the applier.
  static absl::StatusOr<std::unique_ptr<ShardApplier>> Create(
      JetStreamLog& log, engine::Collection& collection, std::string stream,
      std::string subject, AppliedListener on_applied = nullptr,
      EntryFilter applies = nullptr);

  // Applies the entries that arrive within `wait` (at least one wait for
  // the first); returns how many. A delete of an absent document counts as
  // applied (alike on every replica). Anything else that fails stops here,
  // and the same entry is tried again on the next call (an error is
  // returned by the call that applied nothing before it): a store's failure
  // (a full disk) passes; an entry this replica cannot apply as the node
  // that prepared it could (another config, an entry of a newer build)
  // keeps failing, and the replica falls behind rather than drift.
  // Not thread-safe: one thread applies.
  // At most `max_entries` per call.
  absl::StatusOr<size_t> ApplyAvailable(absl::Duration wait,
                                        size_t max_entries = SIZE_MAX);

  // The last sequence applied (and recorded) here, or passed over.
  uint64_t applied_sequence() const { return applied_; }
  // The last sequence the store recorded: a restart reads on after it.
  // Entries of other shards passed over are recorded at the end of each
  // ApplyAvailable call, so a quiet shard does not read them again (nor
  // need them once the log is trimmed).
  uint64_t recorded_sequence() const { return recorded_; }
  // Entries applied that changed nothing (deletes of absent documents).
  size_t refused() const { return refused_; }
  // Entries of the subject after the last one read, as the log last said
  // (0 once a read found nothing more).
  uint64_t pending() const { return pending_count_; }

 private:
  ShardApplier(engine::Collection& collection,
               std::unique_ptr<LogReader> reader, uint64_t applied,
               AppliedListener on_applied, EntryFilter applies)
      : collection_(collection),
        reader_(std::move(reader)),
        applied_(applied),
        recorded_(applied),
        on_applied_(std::move(on_applied)),
        applies_(std::move(applies)) {}

  // OK when applied or refused for what the entry holds; the store's own
  // failures otherwise.
  absl::Status Apply(const LogRecord& record);
  // Records applied_ when entries passed over came last (best effort: a
  // restart that finds it unrecorded reads them again).
  void RecordPassedOver();

  engine::Collection& collection_;
  std::unique_ptr<LogReader> reader_;
  uint64_t applied_;
  uint64_t recorded_;
  const AppliedListener on_applied_;
  const EntryFilter applies_;
  size_t refused_ = 0;
  uint64_t pending_count_ = 0;
  // Read but not yet applied (the store failed): applied first next time.
  std::optional<LogRecord> pending_;
};

}  // namespace neardup::cluster

#endif  // NEARDUP_CLUSTER_SHARD_APPLIER_H_
