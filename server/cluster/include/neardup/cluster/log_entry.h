#ifndef NEARDUP_CLUSTER_LOG_ENTRY_H_
#define NEARDUP_CLUSTER_LOG_ENTRY_H_

// A write as the cluster's log carries it (server/cluster/proto/
// log_entry.proto): the collection and a prepared document to upsert, or an
// external id to delete. The same entry gives the same bytes on every node.

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "neardup/engine/collection.h"

namespace neardup::cluster {

struct LogEntry {
  std::string collection;
  // Exactly one of the two.
  std::optional<engine::PreparedDocument> upsert;
  std::optional<std::string> delete_id;
  // Who wrote it (the append's id); empty in entries written without one.
  std::string append_id;
  // Of an upsert: dedup-on-write, decided where it is applied.
  std::optional<double> insert_only_below;
  // Of an upsert: when it was prepared (Unix microseconds); 0: unknown.
  int64_t unix_micros = 0;
  // Where the entry's shard sends what applying it did, for a writer that
  // holds another shard (messages.WriteOutcome); empty: none.
  std::string outcome_subject;

  bool operator==(const LogEntry&) const = default;
};

// INVALID_ARGUMENT when the entry is not exactly one operation, or a delete
// carries insert_only_below.
absl::StatusOr<std::string> EncodeLogEntry(const LogEntry& entry);
// DATA_LOSS for bytes that are no entry (not protobuf, no operation, a
// signature or shingle set that does not decode).
absl::StatusOr<LogEntry> DecodeLogEntry(std::string_view bytes);

}  // namespace neardup::cluster

#endif  // NEARDUP_CLUSTER_LOG_ENTRY_H_
