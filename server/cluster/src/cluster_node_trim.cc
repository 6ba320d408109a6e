// ClusterNode's log trimming (docs/cluster.md): every node reports, for each
// replica it holds, the last entry of the log that replica no longer needs
// (kReplicasBucket, each report kept report_ttl); a node trims a
// collection's log before the lowest need of every shard, less
// trim_keep_entries. A replica gone longer than the TTL stops holding the
// log back and loads a peer's snapshot when it comes back; a shard whose
// replicas are all gone holds it where they were (kShardFloorsBucket).

#include <algorithm>
#include <charconv>
#include <chrono>
#include <limits>

#include "absl/strings/str_cat.h"
#include "hosted.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/cluster/cluster_node.h"

namespace neardup::cluster {

namespace {

// The decimal sequence of a report or floor.
absl::StatusOr<uint64_t> SequenceOf(std::string_view key,
                                    const std::string& value) {
  uint64_t sequence = 0;
  const auto [end, error] =
      std::from_chars(value.data(), value.data() + value.size(), sequence);
  if (error != std::errc() || end != value.data() + value.size()) {
    return absl::DataLossError(
        absl::StrCat("cluster key ", AbslView(key), " holds no log sequence"));
  }
  return sequence;
}

}  // namespace

std::string ReportKeyOf(std::string_view collection, int shard,
                        std::string_view node_id) {
  // Keys are [-/_=.A-Za-z0-9]: anything else in a node id is escaped as
  // =XX, so that two ids never share a key. Stream names have no '.'.
  std::string key = absl::StrCat(StreamOf(collection), ".s", shard, ".");
  for (const char c : node_id) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                       (c >= '0' && c <= '9') || c == '-' || c == '_';
    if (plain) {
      key += c;
    } else {
      absl::StrAppend(
          &key, "=", absl::Hex(static_cast<unsigned char>(c), absl::kZeroPad2));
    }
  }
  return key;
}

uint64_t ClusterNode::NeededHere(Hosted& hosted) {
  return std::min(hosted.needs_after.load(), HeldBySnapshots(hosted.name));
}

absl::Status ClusterNode::Report(Hosted& hosted) {
  return log_->PutKey(kReplicasBucket,
                      ReportKeyOf(hosted.name, hosted.shard, options_.node_id),
                      absl::StrCat(NeededHere(hosted)));
}

absl::Status ClusterNode::TrimLog(Hosted& hosted) {
  ASSIGN_OR_RETURN(const JetStreamLog::Bounds bounds,
                   log_->BoundsOf(StreamOf(hosted.name)));
  // What each shard's live replicas need: the lowest of their reports
  // (this replica's own known here, whatever its key reads). A replica
  // the log was trimmed past needs a snapshot, not what is gone: it holds
  // no more than the log's start.
  std::vector<std::optional<uint64_t>> live(static_cast<size_t>(hosted.shards));
  live[static_cast<size_t>(hosted.shard)] =
      std::max(NeededHere(hosted), bounds.first - 1);
  for (int shard = 0; shard < hosted.shards; ++shard) {
    const std::string prefix = ReportKeyOf(hosted.name, shard, "");
    ASSIGN_OR_RETURN(const std::vector<std::string> keys,
                     log_->Keys(kReplicasBucket, prefix));
    std::optional<uint64_t>& needed = live[static_cast<size_t>(shard)];
    for (const std::string& key : keys) {
      ASSIGN_OR_RETURN(const std::optional<std::string> value,
                       log_->GetKey(kReplicasBucket, key));
      if (!value.has_value()) continue;  // gone past its TTL meanwhile
      ASSIGN_OR_RETURN(uint64_t sequence, SequenceOf(key, *value));
      sequence = std::max(sequence, bounds.first - 1);
      needed = std::min(needed.value_or(sequence), sequence);
    }
  }
  // A shard without a live replica: what its replicas last needed. One
  // that never reported holds the whole log.
  uint64_t lowest = std::numeric_limits<uint64_t>::max();
  for (int shard = 0; shard < hosted.shards; ++shard) {
    const std::string key = absl::StrCat(StreamOf(hosted.name), ".s", shard);
    ASSIGN_OR_RETURN(const std::optional<std::string> stored,
                     log_->GetKey(kShardFloorsBucket, key));
    std::optional<uint64_t> floor;
    if (stored.has_value()) {
      ASSIGN_OR_RETURN(floor, SequenceOf(key, *stored));
      floor = std::max(*floor, bounds.first - 1);
    }
    const std::optional<uint64_t>& needed = live[static_cast<size_t>(shard)];
    if (needed.has_value()) {
      if (!floor.has_value() || *needed > *floor) {
        RETURN_IF_ERROR(
            log_->PutKey(kShardFloorsBucket, key, absl::StrCat(*needed)));
      }
      lowest = std::min(lowest, *needed);
    } else if (floor.has_value()) {
      lowest = std::min(lowest, *floor);
    } else {
      return absl::OkStatus();
    }
  }
  if (lowest > bounds.last) {
    // A need past the log's end: the stream was made anew under replicas
    // (or floors) of an older one. Nothing is trimmed until they agree.
    return absl::FailedPreconditionError(absl::StrCat(
        "a replica needs the log after ", lowest, ", past its end ",
        bounds.last, " (the stream was made anew?): not trimmed"));
  }
  if (lowest <= options_.trim_keep_entries) return absl::OkStatus();
  // Every replica reading on needs the entries after `lowest`.
  const uint64_t trim_before = lowest + 1 - options_.trim_keep_entries;
  if (trim_before <= bounds.first) return absl::OkStatus();
  return log_->Trim(StreamOf(hosted.name), trim_before);
}

void ClusterNode::Maintain() {
  absl::Time last_trim = absl::Now();
  while (true) {
    {
      MutexLock lock(&mu_);
      const auto until = std::chrono::steady_clock::now() +
                         absl::ToChronoMilliseconds(options_.report_every);
      while (!stopping_ && stop_cv_.WaitUntil(&mu_, until)) {
      }
      if (stopping_) return;
    }
    std::vector<Hosted*> all;
    {
      MutexLock lock(&mu_);
      for (const auto& [name, one] : hosted_) all.push_back(one.get());
    }
    const bool trim = options_.trim_every > absl::ZeroDuration() &&
                      absl::Now() - last_trim >= options_.trim_every;
    if (trim) last_trim = absl::Now();
    for (Hosted* hosted : all) {
      // Errors pass (the log may be down a while): the next round retries.
      if (!Report(*hosted).ok() || !trim) continue;
      if (absl::Status trimmed = TrimLog(*hosted);
          !trimmed.ok() && options_.on_warning) {
        options_.on_warning(
            absl::StrCat("collection \"", hosted->name,
                         "\": cannot trim its log: ", trimmed.ToString()));
      }
    }
  }
}

}  // namespace neardup::cluster
