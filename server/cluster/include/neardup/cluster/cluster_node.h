#ifndef NEARDUP_CLUSTER_CLUSTER_NODE_H_
#define NEARDUP_CLUSTER_CLUSTER_NODE_H_

// One node of a cluster (docs/cluster.md), without gRPC: it hosts a
// replica of one shard of each collection (shard_index mod the collection's
// shard count), applies the collection's log on a thread of its own, and
// turns writes into log entries, prepared here once and sent to the shard
// of their document. It answers requests for its shards from other nodes
// (through ShardService), and asks other shards' replicas for its own
// callers; a write's sequence lets a read wait for it (read your writes, on
// any node). Thread-safe.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "neardup/base/sync.h"
#include "neardup/cluster/jetstream_log.h"
#include "neardup/cluster/log_entry.h"
#include "neardup/cluster/shard_applier.h"
#include "neardup/core/collection_config.h"
#include "neardup/engine/database.h"

namespace neardup::cluster {

// A request another node sends a shard this node holds, once the
// collection here applied the log through the request's sequence.
enum class ShardCallKind {
  kQuery,
  kGet,
  kCollection,
  kBlocking,  // dedup-on-write's check: answered by the node, not the service
  kOutcome,   // a write's outcome, asked again: answered by the node
  kSnapshot,  // a copy of the shard for a joining replica: by the node
};
struct ShardCall {
  ShardCallKind kind = ShardCallKind::kQuery;
  std::string collection;
  std::string body;  // the request, as the server encodes it
  absl::Time deadline = absl::InfiniteFuture();
  // The answer must fit one NATS message.
  size_t max_answer_bytes = 0;
};
// The answer's bytes, or why not (sent back as the status).
using ShardService =
    std::function<absl::StatusOr<std::string>(const ShardCall& call)>;

// A request this node sent every shard of a collection (or one), as it
// ended: how long until the last answer, and the shards none of whose
// replicas answered at all in time (none listening, or none replying; not
// a replica's own error).
struct FanOut {
  ShardCallKind kind = ShardCallKind::kQuery;
  std::string_view collection;
  absl::Duration took;
  std::vector<int> unanswered;
};
// A name for metrics: "query", "get", "collection", "blocking", "outcome",
// "snapshot".
const char* ShardCallKindName(ShardCallKind kind);

struct ClusterNodeOptions {
  LogOptions log;
  int log_replicas = 3;  // NATS servers holding each entry
  // Names this node's appends (with a random per-start part and a
  // counter), so a retried append is stored once. Unique per node.
  std::string node_id;
  // How long an applier waits for the log before it looks at stop.
  absl::Duration apply_poll = absl::Milliseconds(200);
  // How often the registry is read for collections other nodes created;
  // zero: only when HostRegistered is called.
  absl::Duration registry_poll = absl::ZeroDuration();
  // Told of each append attempt: how long it took, and whether the log
  // stored it (metrics).
  std::function<void(absl::Duration took, bool stored)> on_append = nullptr;
  // Told of each request sent to shards (metrics).
  std::function<void(const FanOut&)> on_fan_out = nullptr;
  // Told what an operator should hear of: an applier that starts failing
  // (and once it recovers), appends the log refuses (the first after a
  // success). For the server's log.
  std::function<void(const std::string& what)> on_warning = nullptr;
  // This node holds shard `shard_index mod S` of a collection of S shards
  // (>= 0; a StatefulSet's ordinal: shard and replica in one number).
  int shard_index = 0;
  // Answers the requests other nodes send this node's shards (but the
  // checks of dedup-on-write, answered here): the server's handlers.
  ShardService shard_service = nullptr;
  // Runs a request for a shard off NATS's threads (a pool: a request may
  // wait for the log); false when it cannot take it now (the request is
  // answered RESOURCE_EXHAUSTED). Null: a thread per request.
  std::function<bool(std::function<void()>)> run = nullptr;
  // An empty replica joins from a peer's snapshot (then reads the log after
  // it) when the log holds at least this many entries, and replays a
  // shorter log; zero: always replays. A replica the log was trimmed past
  // always loads a snapshot.
  uint64_t join_snapshot_entries = 10000;
  // How often the node reports what each replica here still needs of its
  // collection's log; zero: never (and it never trims).
  absl::Duration report_every = absl::Seconds(5);
  // How long a report counts after it was written: a replica silent that
  // long (a node gone) no longer holds the log back, and loads a snapshot
  // when it comes back. Set by the first node (the bucket's TTL).
  absl::Duration report_ttl = absl::Minutes(10);
  // How often the node trims the logs of its collections: every entry that
  // each reporting replica no longer needs, but the last
  // trim_keep_entries of them. Zero: never.
  absl::Duration trim_every = absl::Minutes(1);
  uint64_t trim_keep_entries = 10000;
  // Takes the connected log and returns the one the node uses: tests put a
  // log between the node and NATS with it (one that loses answers). Null:
  // the connected log.
  std::function<std::unique_ptr<JetStreamLog>(std::unique_ptr<JetStreamLog>)>
      wrap_log = nullptr;
};

// What this node is of one collection's replicas, for metrics and health.
struct ReplicaState {
  std::string collection;
  uint64_t applied_sequence = 0;
  // Entries of the log not applied here yet, as the log last counted.
  uint64_t pending_entries = 0;
  // The applier's last attempt failed (the store refused, or an entry
  // this replica cannot apply): it retries, and falls behind meanwhile.
  bool stalled = false;
  // Snapshots of a peer loaded here since the node started.
  uint64_t snapshots_loaded = 0;
  int shards = 1;  // the collection's
};

// The cluster's collections: name -> config and shard count
// (messages.RegisteredCollection; a config alone, from builds before shards,
// is one shard), in a JetStream key-value bucket of this name.
inline constexpr std::string_view kRegistryBucket = "neardup-collections";

// The stream of a collection, and the subject of its shard: the name made
// safe for JetStream ('.' and '_' escaped), one-to-one.
std::string StreamOf(std::string_view collection);
std::string SubjectOf(std::string_view collection, int shard);
// The shard of a document: xxh3 of its external id, mod `shards`.
int ShardOf(std::string_view external_id, int shards);

// A write once this node applied it: its place in the log and what it did
// (as a single node's write would say).
struct LoggedWrite {
  uint64_t sequence = 0;
  engine::UpsertOutcome outcome = {};
  // The external ids of the first kBlockingNamed of outcome.blocking, named
  // as the entry was applied ("" for one deleted by then).
  std::vector<std::string> blocking_ids = {};
  absl::Status failure = {};  // what the replica refused (a delete: NOT_FOUND)
  // Documents blocking it (outcome.blocking may list only the first
  // kBlockingNamed, without internal ids when another shard named them).
  size_t blocking_count = 0;
};
inline constexpr size_t kBlockingNamed = 100;

// One upsert of a batch: a document prepared here, and dedup-on-write.
struct UpsertItem {
  const engine::PreparedDocument* doc = nullptr;
  std::optional<double> insert_only_below = std::nullopt;
};

struct NamedBlocking;

class ClusterNode {
 public:
  // `db` must outlive the node.
  static absl::StatusOr<std::unique_ptr<ClusterNode>> Start(
      engine::Database& db, const ClusterNodeOptions& options);
  ~ClusterNode();

  // Registers the collection in the cluster and hosts it here. The first
  // config registered wins: ALREADY_EXISTS when it was registered before
  // (the same config is hosted here all the same).
  absl::Status CreateCollection(std::string_view name,
                                const CollectionConfig& config, int shards = 1);
  // Hosts every collection registered in the cluster (at start, and when
  // another node created one). One it cannot host (another config on this
  // disk, documents written outside the cluster) does not keep it from the
  // others: the first such error is returned.
  absl::Status HostRegistered();
  // Hosts the registered collection `name`; NOT_FOUND when there is none.
  absl::Status HostNamed(std::string_view name);
  // HostNamed for a request naming a collection not hosted here, one at a
  // time: while another one looks, this one waits for it (a second at
  // most, NOT_FOUND then), then looks itself unless that one hosted it.
  absl::Status LookUpUnhosted(std::string_view name);

  // Creates the collection's replica of this node's shard here (or opens
  // it, when this disk has it) and its log (the same config and shard
  // count on every node), and starts applying the log.
  absl::Status HostCollection(std::string_view name,
                              const CollectionConfig& config, int shards = 1);

  // The collection's shard count, and the shard this node holds.
  struct Placement {
    int shards = 1;
    int shard = 0;
  };
  absl::StatusOr<Placement> PlacementOf(std::string_view collection);
  // The same for a collection hosted here, without looking up the registry
  // (nullopt for one not hosted).
  std::optional<Placement> PlacementIfHosted(std::string_view collection);
  // Sends `body` to one replica of every shard (each answering once it
  // applied `log_sequence`) and gathers their answers, by shard.
  std::vector<absl::StatusOr<std::string>> AskEveryShard(
      std::string_view collection, ShardCallKind kind, std::string_view body,
      uint64_t log_sequence, absl::Time deadline);
  // The same, to the shard holding `external_id`.
  absl::StatusOr<std::string> AskShardOf(std::string_view collection,
                                         std::string_view external_id,
                                         ShardCallKind kind,
                                         std::string_view body,
                                         uint64_t log_sequence,
                                         absl::Time deadline);

  // Appends a document prepared here (Collection::Prepare) to the
  // collection's log and waits until this node applied it: its sequence and
  // outcome. With `insert_only_below`, every replica decides dedup-on-write
  // alike, in log order; with several shards, this node first asks every
  // shard at the log's last sequence N and appends only while the log is
  // still at N (else it asks again). UNAVAILABLE when no quorum of NATS servers
  // stored it by `deadline` (not acknowledged; retried within, it is stored
  // once); DEADLINE_EXCEEDED when it is in the log but not yet applied here.
  absl::StatusOr<LoggedWrite> Upsert(std::string_view collection,
                                     const engine::PreparedDocument& doc,
                                     std::optional<double> insert_only_below,
                                     absl::Time deadline);
  // Upserts in order, each as Upsert would: appended in order, then waited
  // for together (a run whose order among itself changes nothing, plain
  // writes of distinct documents, is sent at once). Once an append fails
  // (but for an entry refused for itself, INVALID_ARGUMENT) the entries
  // after its run are not tried (UNAVAILABLE) and `*stopped` is set, so
  // what is written keeps the order a retry of the rest can follow.
  std::vector<absl::StatusOr<LoggedWrite>> UpsertMany(
      std::string_view collection, std::span<const UpsertItem> items,
      absl::Time deadline, bool* stopped = nullptr);
  // Prepares `input` here, then as the first Upsert.
  absl::StatusOr<LoggedWrite> Upsert(std::string_view collection,
                                     const engine::DocumentInput& input,
                                     absl::Time deadline);
  // As Upsert; NOT_FOUND when there was no such document (the entry is in
  // the log all the same).
  absl::StatusOr<LoggedWrite> Delete(std::string_view collection,
                                     std::string_view external_id,
                                     absl::Time deadline);

  // Waits until this node applied every collection's log through where it
  // ends now (a node starting, before it serves reads).
  absl::Status CatchUp(absl::Time deadline);

  // Waits until this node applied `sequence` of the collection;
  // DEADLINE_EXCEEDED after `deadline`.
  absl::Status WaitApplied(std::string_view collection, uint64_t sequence,
                           absl::Time deadline);
  // The collection's last applied sequence here.
  absl::StatusOr<uint64_t> AppliedSequence(std::string_view collection);
  // Requests from other nodes waiting here for the collection's log to
  // reach their sequence (0 when it is not hosted here).
  size_t ParkedRequests(std::string_view collection);
  // Each hosted collection's state, by name.
  std::vector<ReplicaState> ReplicaStates();

 private:
  struct Hosted;

  ClusterNode(engine::Database& db, ClusterNodeOptions options,
              std::unique_ptr<JetStreamLog> log);
  absl::StatusOr<Hosted*> Find(std::string_view collection);
  // Appends `entry` (given an append id here) and waits for this node to
  // apply it.
  absl::StatusOr<LoggedWrite> Write(Hosted& hosted, LogEntry entry,
                                    absl::Time deadline);
  // A write's place in the log, or (dedup-on-write across shards) what
  // blocked it without an append.
  struct Appending {
    absl::StatusOr<uint64_t> sequence = absl::UnknownError("not appended");
    std::optional<LoggedWrite> blocked;
  };
  Appending AppendChecked(Hosted& hosted, const LogEntry& entry,
                          const std::string& bytes, absl::Time deadline);
  // The end of the run from `begin` of entries that may be appended
  // together (AppendRun): none asks for dedup-on-write, each writes another
  // document (so their order among themselves changes nothing).
  static size_t PlainRunEnd(const std::vector<LogEntry>& entries,
                            const std::vector<bool>& encoded, size_t begin);
  // Appends the encoded entries of [begin, end) at once; those that got no
  // acknowledgement are sent again together, under their append ids, until
  // acknowledged or out of time.
  void AppendRun(Hosted& hosted, const std::vector<LogEntry>& entries,
                 const std::vector<std::string>& bytes,
                 const std::vector<bool>& encoded, size_t begin, size_t end,
                 absl::Time deadline, std::vector<Appending>& appends);
  // Dedup-on-write's check on every shard, each at `sequence`.
  absl::StatusOr<NamedBlocking> CheckShards(Hosted& hosted,
                                            const std::string& bytes,
                                            double threshold, uint64_t sequence,
                                            absl::Time deadline);
  // Whether no upsert in the log after `after` through `through` might
  // block `entry`'s document.
  absl::StatusOr<bool> NoneMayBlock(Hosted& hosted, const LogEntry& entry,
                                    uint64_t after, uint64_t through,
                                    absl::Time deadline);
  std::vector<absl::StatusOr<LoggedWrite>> WriteMany(
      Hosted& hosted, std::vector<LogEntry> entries, absl::Time deadline,
      bool* stopped);
  absl::StatusOr<uint64_t> AppendUntil(
      std::string_view collection, const std::string& subject,
      const std::string& bytes, const std::string& append_id,
      absl::Time deadline,
      std::optional<uint64_t> expected_last_sequence = std::nullopt);
  // WaitApplied on a hosted collection; UNAVAILABLE once the node stops.
  absl::Status WaitAppliedOn(Hosted& hosted, uint64_t sequence,
                             absl::Time deadline);
  void ApplyLoop(Hosted* hosted);
  // Before the first entry: loads a peer's snapshot when the replica needs
  // one (the log was trimmed past it, a load broke off) or wants one (empty,
  // a long log), then starts reading the log where the replica is.
  absl::Status StartApplying(Hosted& hosted);
  // Copies a caught-up peer of the shard into the local replica (made anew
  // when it holds anything). `*opened` says whether a peer opened one (a
  // failure before leaves the replica as it was).
  absl::Status LoadSnapshot(Hosted& hosted, bool* opened);
  // A peer's side: a snapshot of this replica (messages.SnapshotOpened),
  // and its chunks, asked on snapshot_subject_.
  struct SnapshotSession;
  // `request` names the asker's request: asked again, the same snapshot.
  absl::StatusOr<std::string> OpenSnapshot(Hosted& hosted,
                                           const std::string& request);
  absl::StatusOr<std::string> NextChunk(std::string_view data);
  void DropIdleSnapshots() ABSL_EXCLUSIVE_LOCKS_REQUIRED(snapshots_mu_);
  // The lowest sequence of the collection's snapshots open here (UINT64_MAX
  // for none): the log after it is still needed by their readers.
  uint64_t HeldBySnapshots(std::string_view collection);
  // Reports what each replica here needs of its log, and now and then
  // trims the logs.
  void Maintain();
  // What the replica here needs of its log: after its applied entries, and
  // after the snapshots open here.
  uint64_t NeededHere(Hosted& hosted);
  absl::Status Report(Hosted& hosted);
  absl::Status TrimLog(Hosted& hosted);
  // Runs a request from another node (`work`, on options_.run) and sends
  // its answer (a messages.ShardReply, with `hosted`'s applied sequence).
  // When options_.run has no room: answers RESOURCE_EXHAUSTED, or, unless
  // `answer_when_busy`, returns false having done nothing.
  bool Serve(Hosted* hosted, const std::string& reply_to,
             std::function<absl::StatusOr<std::string>()> work,
             bool answer_when_busy = true);
  // Whether the replica may answer for its shard: it applied the whole log
  // as it ends now, or as it ended when last asked (under a steady load the
  // log's end moves on while it is read; the replica is then a round behind,
  // as any replica is).
  bool CaughtUp(Hosted& hosted);
  void WatchRegistry();
  // On the apply thread, after each entry: reads may wait no longer, and
  // the entry's writer learns what it did (here, or by a message).
  void OnApplied(Hosted& hosted, const AppliedEntry& one);
  // A write's outcome for its writer (filled at most once).
  void Deliver(const std::string& append_id, LoggedWrite written);
  void OnOutcome(std::string_view data);
  // A request for one of this node's shards, from another node: served at
  // once, or parked until the replica applied the log sequence it asks for.
  void OnShardRequest(Hosted* hosted, std::string_view data,
                      const std::string& reply_to);
  // Serves the parked requests whose sequence is applied (all of them once
  // the node stops); `drop_expired`: first forgets those out of time.
  void ReleaseParked(Hosted& hosted, bool drop_expired);
  // Serves a request that needs no more waiting (answered by
  // AnswerShardRequest, by `deadline`); see Serve for `answer_when_busy`.
  bool ServeRequest(Hosted* hosted, const std::string& reply_to,
                    std::string data, absl::Time deadline,
                    bool answer_when_busy = true);
  absl::StatusOr<std::string> AnswerShardRequest(Hosted& hosted,
                                                 std::string_view data,
                                                 absl::Time deadline);
  std::vector<absl::StatusOr<std::string>> Ask(
      Hosted& hosted, std::span<const int> shards, ShardCallKind kind,
      std::string_view body, uint64_t log_sequence, absl::Time deadline);

  engine::Database& db_;
  const ClusterNodeOptions options_;
  std::unique_ptr<JetStreamLog> log_;
  const std::string incarnation_;  // random, per start
  // One LookUpUnhosted at a time; the others wait a moment for it.
  Mutex lookup_mu_;  // before host_mu_
  CondVar lookup_cv_;
  bool looking_up_ ABSL_GUARDED_BY(lookup_mu_) = false;
  Mutex host_mu_;  // before mu_: one HostCollection at a time
  Mutex mu_;
  std::map<std::string, std::unique_ptr<Hosted>, std::less<>> hosted_
      ABSL_GUARDED_BY(mu_);
  uint64_t next_append_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  CondVar stop_cv_;
  std::thread registry_watcher_;
  std::atomic<bool> append_failing_{false};  // warned of, not yet recovered
  // Where other shards' replicas send this node's writes' outcomes.
  const std::string outcome_subject_;
  // This node's writes waiting for their outcome, by append id: empty
  // until a replica of the entry's shard (this node or another) says what
  // the entry did.
  Mutex waiting_mu_;
  CondVar waiting_cv_;
  std::map<std::string, std::optional<LoggedWrite>, std::less<>> waiting_
      ABSL_GUARDED_BY(waiting_mu_);
  // Requests for this node's shards under way (the destructor waits).
  Mutex requests_mu_;
  CondVar requests_cv_;
  int requests_running_ ABSL_GUARDED_BY(requests_mu_) = 0;
  bool requests_closed_ ABSL_GUARDED_BY(requests_mu_) = false;
  // Snapshots this node serves, by session.
  Mutex snapshots_mu_;
  std::map<std::string, std::shared_ptr<SnapshotSession>, std::less<>>
      snapshots_ ABSL_GUARDED_BY(snapshots_mu_);
  uint64_t next_session_ ABSL_GUARDED_BY(snapshots_mu_) = 0;
  // Where peers ask this node for the chunks of its snapshots.
  const std::string snapshot_subject_;
  std::thread maintainer_;
  std::unique_ptr<Subscription> snapshot_requests_;
  std::unique_ptr<Subscription> outcomes_;  // last: first to go
};

}  // namespace neardup::cluster

#endif  // NEARDUP_CLUSTER_CLUSTER_NODE_H_
