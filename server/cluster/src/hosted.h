#ifndef NEARDUP_CLUSTER_SRC_HOSTED_H_
#define NEARDUP_CLUSTER_SRC_HOSTED_H_

// A collection a ClusterNode hosts (cluster_node*.cc): its local replica of
// one shard, the applier of its log and the thread running it.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/time/time.h"
#include "neardup/base/sync.h"
#include "neardup/cluster/cluster_node.h"
#include "neardup/cluster/shard_applier.h"

namespace neardup::cluster {

struct ClusterNode::Hosted {
  std::string name;
  int shards = 1;
  int shard = 0;            // the one this node holds
  CollectionConfig config;  // the cluster's
  // The local replica (made anew when a snapshot replaces it).
  std::shared_ptr<engine::Collection> local() const {
    MutexLock lock(&local_mu);
    return local_collection;
  }
  void set_local(std::shared_ptr<engine::Collection> collection) {
    MutexLock lock(&local_mu);
    local_collection = std::move(collection);
  }
  mutable Mutex local_mu;
  std::shared_ptr<engine::Collection> local_collection
      ABSL_GUARDED_BY(local_mu);
  // The apply thread's only; made once the replica starts from the log
  // (after a snapshot, when it needs or wants one).
  std::unique_ptr<ShardApplier> applier;
  // The apply thread's only: the log's end as CaughtUp last saw it while the
  // replica did not answer for its shard yet (0: not asked since).
  uint64_t join_target = 0;
  // The last entry this replica no longer needs from the log, reported to
  // the cluster (kReplicasBucket) so that trimming keeps what comes after:
  // what its store recorded, or the sequence of the snapshot it loads.
  std::atomic<uint64_t> needs_after{0};
  std::atomic<bool> stop{false};
  Mutex mu;
  CondVar applied_cv;
  // Every entry through this one is applied here or passed over (another
  // shard's).
  uint64_t applied ABSL_GUARDED_BY(mu) = 0;
  uint64_t pending ABSL_GUARDED_BY(mu) = 0;  // as the applier last saw it
  absl::Status failure ABSL_GUARDED_BY(mu);  // the applier's last error
  // Since when the applier fails (none while it applies).
  std::optional<absl::Time> stalled_since ABSL_GUARDED_BY(mu);
  // Snapshots of a peer this replica loaded since the node started.
  uint64_t snapshots_loaded ABSL_GUARDED_BY(mu) = 0;
  // Requests for this shard from other nodes, once caught up (a
  // collection of several shards).
  std::unique_ptr<Subscription> served ABSL_GUARDED_BY(mu);
  // Of a collection of several shards: the documents of the latest upserts
  // of every shard (text left out), by sequence, for dedup-on-write to
  // compare with what was written since its check. Every upsert after
  // `recent_after` is here.
  std::deque<std::pair<uint64_t, engine::PreparedDocument>> recent
      ABSL_GUARDED_BY(mu);
  uint64_t recent_after ABSL_GUARDED_BY(mu) = 0;
  // The outcomes this replica sent writers holding another shard, the
  // latest kToldOutcomes, for a writer that missed the message to ask
  // again (by append id; `told_order` says which goes first).
  // (Encoded as sent: messages.WriteOutcome.)
  std::map<std::string, std::string, std::less<>> told ABSL_GUARDED_BY(mu);
  std::deque<std::string> told_order ABSL_GUARDED_BY(mu);
  // Requests from other nodes for a log sequence not applied here yet, by
  // that sequence: they wait without a thread (one held per waiting request
  // would keep the requests that need no wait from being answered), and
  // are served once it is applied, their time is up or the node stops.
  struct ParkedRequest {
    absl::Time deadline;
    std::string reply_to;
    std::string data;  // the messages.ShardRequest
  };
  std::multimap<uint64_t, ParkedRequest> parked ABSL_GUARDED_BY(mu);
  size_t parked_bytes ABSL_GUARDED_BY(mu) = 0;  // of their data
  // Forgets the parked requests out of time, unanswered: each asker
  // stopped waiting at the same deadline.
  void DropExpiredParked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    for (auto it = parked.begin(); it != parked.end();) {
      if (it->second.deadline <= now) {
        parked_bytes -= it->second.data.size();
        it = parked.erase(it);
      } else {
        ++it;
      }
    }
  }
  std::thread thread;
};

// A steady-clock time for `deadline`, at most a day away (an infinite one
// would overflow).
inline std::chrono::steady_clock::time_point SteadyUntil(absl::Time deadline) {
  const absl::Duration left =
      std::clamp(deadline - absl::Now(), absl::ZeroDuration(), absl::Hours(24));
  return std::chrono::steady_clock::now() + absl::ToChronoMilliseconds(left);
}

// Where the nodes report what each replica still needs of a collection's
// log (key ReportKeyOf, value: the sequence in decimal), each key kept
// ClusterNodeOptions::report_ttl after it was last written.
inline constexpr std::string_view kReplicasBucket = "neardup-replicas";
// "<stream>.s<shard>.<node id, escaped>"; with an empty node id, the prefix
// of the shard's keys.
std::string ReportKeyOf(std::string_view collection, int shard,
                        std::string_view node_id);
// What each shard's replicas last needed, as trimming last saw them
// (key "<stream>.s<shard>", kept without a TTL): a shard whose replicas
// are all gone a while keeps the log it will need when one comes back.
inline constexpr std::string_view kShardFloorsBucket = "neardup-shard-floors";

// Upserts a node keeps of a collection of several shards (Hosted::recent).
inline constexpr size_t kRecentUpserts = 4096;
inline constexpr size_t kToldOutcomes = 16384;
// Requests a replica keeps waiting for its log (Hosted::parked), and their
// bytes (a dedup-on-write check carries its document); more are refused
// (RESOURCE_EXHAUSTED).
inline constexpr size_t kMaxParkedRequests = 4096;
inline constexpr size_t kMaxParkedBytes = size_t{64} << 20;

// The subject a shard's replicas answer requests on, in one queue group.
std::string ShardSubjectOf(std::string_view collection, int shard);
inline constexpr char kReplicasQueue[] = "replicas";

// The external id an entry writes.
inline const std::string& IdOf(const LogEntry& entry) {
  return entry.upsert ? entry.upsert->external_id : *entry.delete_id;
}

}  // namespace neardup::cluster

#endif  // NEARDUP_CLUSTER_SRC_HOSTED_H_
