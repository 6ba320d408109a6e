// ClusterNode's log trimming (docs/cluster.md): every node reports, for each
// replica it holds, the last entry of the log that replica no longer needs
// (kReplicasBucket, each report kept report_ttl); a node trims a
// collection's log before the lowest report, less trim_keep_entries. A
// replica gone longer than the TTL stops holding the log back and loads a
// peer's snapshot when it comes back.

#include <algorithm>
#include <charconv>
#include <chrono>
#include <limits>

#include "absl/strings/str_cat.h"
#include "hosted.h"
#include "neardup/base/status_macros.h"
#include "neardup/cluster/cluster_node.h"

namespace neardup::cluster {

std::string ReportKeyOf(std::string_view collection, std::string_view node_id) {
  // Keys are [-/_=.A-Za-z0-9]: anything else in a node id is escaped as
  // =XX, so that two ids never share a key. Stream names have no '.'.
  std::string key = absl::StrCat(StreamOf(collection), ".");
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

absl::Status ClusterNode::Report(Hosted& hosted) {
  const uint64_t needed =
      std::min(hosted.needs_after.load(), HeldBySnapshots(hosted.name));
  return log_->PutKey(kReplicasBucket,
                      ReportKeyOf(hosted.name, options_.node_id),
                      absl::StrCat(needed));
}

absl::Status ClusterNode::TrimLog(Hosted& hosted) {
  const std::string own = ReportKeyOf(hosted.name, options_.node_id);
  const std::string prefix = ReportKeyOf(hosted.name, "");
  ASSIGN_OR_RETURN(const std::vector<std::string> keys,
                   log_->Keys(kReplicasBucket, prefix));
  // Not before this node's own report is in: it may be the slowest.
  if (std::find(keys.begin(), keys.end(), own) == keys.end()) {
    return absl::OkStatus();
  }
  uint64_t lowest = std::numeric_limits<uint64_t>::max();
  for (const std::string& key : keys) {
    ASSIGN_OR_RETURN(const std::optional<std::string> value,
                     log_->GetKey(kReplicasBucket, key));
    if (!value.has_value()) continue;  // gone past its TTL meanwhile
    uint64_t needed = 0;
    const auto [end, error] =
        std::from_chars(value->data(), value->data() + value->size(), needed);
    if (error != std::errc() || end != value->data() + value->size()) {
      return absl::DataLossError(absl::StrCat(
          "report ", key, " of what a replica needs is not a number"));
    }
    lowest = std::min(lowest, needed);
  }
  if (lowest <= options_.trim_keep_entries) return absl::OkStatus();
  // Every replica reading on needs the entries after `lowest`.
  const uint64_t trim_before = lowest + 1 - options_.trim_keep_entries;
  ASSIGN_OR_RETURN(const JetStreamLog::Bounds bounds,
                   log_->BoundsOf(StreamOf(hosted.name)));
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
