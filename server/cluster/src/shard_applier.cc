#include "neardup/cluster/shard_applier.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"
#include "neardup/cluster/log_entry.h"

namespace neardup::cluster {
namespace {

// What a collection refuses for the entry itself, alike on every replica:
// the entry counts as applied. Anything else is the store's failure.
bool RefusedForWhatItHolds(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kNotFound:  // a delete of an absent document
      return true;
    default:
      return false;
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<ShardApplier>> ShardApplier::Create(
    JetStreamLog& log, engine::Collection& collection, std::string stream,
    std::string subject) {
  ASSIGN_OR_RETURN(const uint64_t applied, collection.LogSequence());
  ASSIGN_OR_RETURN(std::unique_ptr<LogReader> reader,
                   log.Read(stream, subject, applied + 1));
  return std::unique_ptr<ShardApplier>(
      new ShardApplier(collection, std::move(reader), applied));
}

absl::StatusOr<size_t> ShardApplier::ApplyAvailable(absl::Duration wait) {
  size_t applied = 0;
  absl::Duration next_wait = wait;
  while (true) {
    if (!pending_.has_value()) {
      ASSIGN_OR_RETURN(std::optional<LogRecord> record,
                       reader_->Next(next_wait));
      if (!record.has_value()) return applied;
      pending_ = std::move(record);
    }
    RETURN_IF_ERROR(Apply(*pending_));
    applied_ = pending_->sequence;
    pending_.reset();
    ++applied;
    // What is there already, without waiting again.
    next_wait = absl::Milliseconds(1);
  }
}

absl::Status ShardApplier::Apply(const LogRecord& record) {
  absl::StatusOr<LogEntry> entry = DecodeLogEntry(record.data);
  absl::Status outcome;
  if (!entry.ok()) {
    outcome = entry.status();
  } else if (entry->collection != collection_.record().name) {
    outcome = absl::FailedPreconditionError(
        absl::StrCat("entry of collection \"", entry->collection,
                     "\" in the log of \"", collection_.record().name, "\""));
  } else {
    engine::UpsertOptions upsert;
    upsert.write.log_sequence = record.sequence;
    outcome = entry->upsert
                  ? collection_.Apply(*entry->upsert, upsert).status()
                  : collection_.Delete(*entry->delete_id, upsert.write);
  }
  if (outcome.ok()) return outcome;
  if (!entry.ok() || RefusedForWhatItHolds(outcome)) {
    // Nothing of it is stored: the sequence still has to be, or a restart
    // would read the entry again (harmless, but never-ending for a bad one).
    ++refused_;
    return collection_.RecordLogSequence(record.sequence);
  }
  return Prefixed(absl::StrCat("apply log entry ", record.sequence), outcome);
}

}  // namespace neardup::cluster
