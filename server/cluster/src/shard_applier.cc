#include "neardup/cluster/shard_applier.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"
#include "neardup/cluster/log_entry.h"

namespace neardup::cluster {

absl::StatusOr<std::unique_ptr<ShardApplier>> ShardApplier::Create(
    JetStreamLog& log, engine::Collection& collection, std::string stream,
    std::string subject, AppliedListener on_applied, EntryFilter applies) {
  ASSIGN_OR_RETURN(const uint64_t applied, collection.LogSequence());
  ASSIGN_OR_RETURN(std::unique_ptr<LogReader> reader,
                   log.Read(stream, subject, applied + 1,
                            /*every_record=*/true));
  return std::unique_ptr<ShardApplier>(
      new ShardApplier(collection, std::move(reader), applied,
                       std::move(on_applied), std::move(applies)));
}

absl::StatusOr<size_t> ShardApplier::ApplyAvailable(absl::Duration wait,
                                                    size_t max_entries) {
  size_t applied = 0;
  absl::Duration next_wait = wait;
  while (applied < max_entries) {
    if (!pending_.has_value()) {
      absl::StatusOr<std::optional<LogRecord>> next = reader_->Next(next_wait);
      if (!next.ok()) {
        RecordPassedOver();
        if (applied > 0) return applied;
        return next.status();
      }
      std::optional<LogRecord> record = *std::move(next);
      if (!record.has_value()) {
        pending_count_ = 0;
        RecordPassedOver();
        return applied;
      }
      pending_count_ = record->pending;
      pending_ = std::move(record);
    }
    if (absl::Status done = Apply(*pending_); !done.ok()) {
      RecordPassedOver();
      // Said on the call that applies nothing before it.
      if (applied > 0) return applied;
      return done;
    }
    applied_ = pending_->sequence;
    pending_.reset();
    ++applied;
    // What is there already, without waiting again.
    next_wait = absl::Milliseconds(1);
  }
  RecordPassedOver();
  return applied;
}

void ShardApplier::RecordPassedOver() {
  if (applied_ <= recorded_) return;
  if (collection_.RecordLogSequence(applied_).ok()) recorded_ = applied_;
}

absl::Status ShardApplier::Apply(const LogRecord& record) {
  const std::string where = absl::StrCat("log entry ", record.sequence);
  // What this replica cannot apply as every other replica would (an entry
  // of a newer build, of another collection, a document the node that
  // prepared it accepted but this collection refuses: another config)
  // stops it here, unhealthy, rather than let it drift from its peers.
  ASSIGN_OR_RETURN(const LogEntry entry,
                   Prefixed(where, DecodeLogEntry(record.data)));
  if (entry.collection != collection_.record().name) {
    return absl::FailedPreconditionError(
        absl::StrCat(where, " is of collection \"", entry.collection,
                     "\", not \"", collection_.record().name, "\""));
  }
  if (applies_ && !applies_(entry)) {
    // Another shard's: recorded by RecordPassedOver, after the round.
    if (on_applied_) {
      on_applied_({.sequence = record.sequence,
                   .entry = &entry,
                   .outcome = engine::UpsertOutcome{},
                   .skipped = true});
    }
    return absl::OkStatus();
  }
  engine::UpsertOptions upsert;
  upsert.write.log_sequence = record.sequence;
  upsert.insert_only_below = entry.insert_only_below;
  upsert.write.unix_micros = entry.unix_micros;
  AppliedEntry applied;
  applied.sequence = record.sequence;
  applied.entry = &entry;
  if (entry.upsert) {
    applied.outcome = collection_.Apply(*entry.upsert, upsert);
  } else if (absl::Status deleted =
                 collection_.Delete(*entry.delete_id, upsert.write);
             deleted.ok()) {
    applied.outcome =
        engine::UpsertOutcome{.written = true, .put = {}, .blocking = {}};
  } else {
    applied.outcome = deleted;
  }
  if (!applied.outcome.ok()) {
    // Decided by what was stored: the store records the sequence of an
    // entry it applied without a change (a delete of an absent document),
    // alike on every replica. Anything else is tried again.
    ASSIGN_OR_RETURN(const uint64_t recorded, collection_.LogSequence());
    if (recorded < record.sequence) {
      return Prefixed(where, applied.outcome.status());
    }
    ++refused_;
    recorded_ = recorded;
  } else if (applied.outcome->written) {
    recorded_ = record.sequence;  // in the write's batch
  }
  if (on_applied_) on_applied_(applied);
  return absl::OkStatus();
}

}  // namespace neardup::cluster
