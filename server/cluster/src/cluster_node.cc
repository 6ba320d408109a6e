#include "neardup/cluster/cluster_node.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hosted.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/cluster/log_entry.h"
#include "neardup/cluster/node_messages.pb.h"
#include "neardup/cluster/shard_applier.h"
#include "neardup/core/hash.h"
#include "neardup/storage/config_codec.h"
#include "neardup/storage/validation.h"
#include "outcome_codec.h"

namespace neardup::cluster {

namespace {

namespace pb = ::neardup::cluster::messages;

// Entries one ApplyAvailable call applies at most, so stop is looked at
// during a long catch-up too.
constexpr size_t kApplyRound = 512;
// How long an applier fails before its replica stops answering for its
// shard: longer than a log failover, during which reads go on.
constexpr absl::Duration kStalledLeave = absl::Seconds(30);
// Shards a collection may have.
constexpr int kMaxShards = 1024;

std::string EncodeRegistered(const CollectionConfig& config, int shards) {
  pb::RegisteredCollection registered;
  registered.set_config(storage::EncodeCollectionConfig(config));
  registered.set_shards(static_cast<uint32_t>(shards));
  std::string out;
  registered.SerializeToString(&out);
  return out;
}

struct Registered {
  CollectionConfig config;
  int shards = 1;
};

absl::StatusOr<Registered> DecodeRegistered(std::string_view name,
                                            std::string_view bytes) {
  const std::string where =
      absl::StrCat("registered collection \"", AbslView(name), "\"");
  pb::RegisteredCollection registered;
  if (!registered.ParseFromArray(bytes.data(),
                                 static_cast<int>(bytes.size())) ||
      registered.shards() < 1 || registered.shards() > kMaxShards) {
    // Registered by a build before shards: the config alone, one shard.
    absl::StatusOr<CollectionConfig> config =
        storage::DecodeCollectionConfig(bytes);
    if (config.ok()) return Registered{*std::move(config), 1};
    return absl::DataLossError(
        absl::StrCat(where, ": not a registry entry of this build"));
  }
  ASSIGN_OR_RETURN(
      CollectionConfig config,
      Prefixed(where, storage::DecodeCollectionConfig(registered.config())));
  return Registered{std::move(config), static_cast<int>(registered.shards())};
}

}  // namespace

std::string StreamOf(std::string_view collection) {
  // Collection names are [A-Za-z0-9_.-]; stream names may not hold '.'.
  std::string out = "neardup-c-";
  for (char c : collection) {
    if (c == '_') {
      out += "__";
    } else if (c == '.') {
      out += "_d";
    } else {
      out += c;
    }
  }
  return out;
}

std::string SubjectOf(std::string_view collection, int shard) {
  return absl::StrCat(StreamOf(collection), ".s", shard);
}

std::string ShardSubjectOf(std::string_view collection, int shard) {
  return absl::StrCat("neardup.shard.", StreamOf(collection), ".s", shard);
}

int ShardOf(std::string_view external_id, int shards) {
  return static_cast<int>(Xxh3Hash64(external_id) %
                          static_cast<uint64_t>(std::max(shards, 1)));
}

ClusterNode::ClusterNode(engine::Database& db, ClusterNodeOptions options,
                         std::unique_ptr<JetStreamLog> log)
    : db_(db),
      options_(std::move(options)),
      log_(std::move(log)),
      // Append ids stay unique across restarts within the dedup window.
      incarnation_(absl::StrCat(absl::Hex(std::random_device()()),
                                absl::Hex(std::random_device()()))),
      outcome_subject_(absl::StrCat("neardup.outcome.", incarnation_)),
      snapshot_subject_(absl::StrCat("neardup.snapshot.", incarnation_)) {}

absl::StatusOr<std::unique_ptr<ClusterNode>> ClusterNode::Start(
    engine::Database& db, const ClusterNodeOptions& options) {
  if (options.node_id.empty()) {
    return absl::InvalidArgumentError("a cluster node needs a node_id");
  }
  LogOptions log_options = options.log;
  if (!log_options.on_connection && options.on_warning) {
    log_options.on_connection = options.on_warning;
  }
  ASSIGN_OR_RETURN(std::unique_ptr<JetStreamLog> log,
                   JetStreamLog::Connect(log_options));
  if (options.wrap_log) log = options.wrap_log(std::move(log));
  RETURN_IF_ERROR(log->EnsureBucket(kRegistryBucket, options.log_replicas));
  if (options.report_every > absl::ZeroDuration() &&
      options.report_ttl < 2 * options.report_every) {
    return absl::InvalidArgumentError(
        "report_ttl must be at least twice report_every (a report must not "
        "expire between two)");
  }
  RETURN_IF_ERROR(log->EnsureBucket(kReplicasBucket, options.log_replicas,
                                    options.report_ttl));
  RETURN_IF_ERROR(log->EnsureBucket(kShardFloorsBucket, options.log_replicas));
  if (options.shard_index < 0) {
    return absl::InvalidArgumentError("shard_index must be at least 0");
  }
  std::unique_ptr<ClusterNode> node(
      new ClusterNode(db, options, std::move(log)));
  ASSIGN_OR_RETURN(node->outcomes_,
                   node->log_->Subscribe(node->outcome_subject_, "",
                                         [n = node.get()](std::string_view data,
                                                          const std::string&) {
                                           n->OnOutcome(data);
                                         }));
  ASSIGN_OR_RETURN(
      node->snapshot_requests_,
      node->log_->Subscribe(
          node->snapshot_subject_, "",
          [n = node.get()](std::string_view data, const std::string& reply_to) {
            n->Serve(nullptr, reply_to, [n, data = std::string(data)] {
              return n->NextChunk(data);
            });
          }));
  if (options.registry_poll > absl::ZeroDuration()) {
    node->registry_watcher_ =
        std::thread([n = node.get()] { n->WatchRegistry(); });
  }
  if (options.report_every > absl::ZeroDuration()) {
    node->maintainer_ = std::thread([n = node.get()] { n->Maintain(); });
  }
  return node;
}

ClusterNode::~ClusterNode() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;  // nothing is hosted from now on
    stop_cv_.SignalAll();
  }
  if (registry_watcher_.joinable()) registry_watcher_.join();
  if (maintainer_.joinable()) maintainer_.join();
  std::vector<Hosted*> all;
  {
    MutexLock lock(&mu_);
    for (const auto& [name, one] : hosted_) all.push_back(one.get());
  }
  // First no new request for a shard, and the ones waiting for the log
  // give up; then the appliers stop.
  for (Hosted* one : all) {
    std::unique_ptr<Subscription> served;
    {
      MutexLock lock(&one->mu);
      served = std::move(one->served);
      one->stop = true;
      one->applied_cv.SignalAll();
    }
    served.reset();
    ReleaseParked(*one, /*drop_expired=*/true);  // told the replica stops
  }
  outcomes_.reset();
  snapshot_requests_.reset();
  // The appliers first: one may be letting go of its subscription (while
  // stalled) and a request arriving on it meanwhile is refused below.
  for (Hosted* one : all) {
    if (one->thread.joinable()) one->thread.join();
  }
  {
    MutexLock lock(&requests_mu_);
    requests_closed_ = true;
    while (requests_running_ > 0) requests_cv_.Wait(&requests_mu_);
  }
  {
    MutexLock lock(&snapshots_mu_);
    snapshots_.clear();  // before the database
  }
  std::map<std::string, std::unique_ptr<Hosted>, std::less<>> hosted;
  MutexLock lock(&mu_);
  hosted.swap(hosted_);
}

absl::Status ClusterNode::CreateCollection(std::string_view name,
                                           const CollectionConfig& config,
                                           int shards) {
  // Before the registry holds it.
  RETURN_IF_ERROR(storage::ValidateCollectionName(name));
  if (shards < 1 || shards > kMaxShards) {
    return absl::InvalidArgumentError(
        absl::StrCat("shards must be in [1, ", kMaxShards, "], got ", shards));
  }
  ASSIGN_OR_RETURN(const CollectionConfig normalized,
                   NormalizeCollectionConfig(config));
  const std::string encoded = EncodeRegistered(normalized, shards);
  absl::Status created = log_->CreateKey(kRegistryBucket, name, encoded);
  if (absl::IsAlreadyExists(created)) {
    ASSIGN_OR_RETURN(const std::optional<std::string> bytes,
                     log_->GetKey(kRegistryBucket, name));
    if (!bytes.has_value()) return created;  // dropped meanwhile
    ASSIGN_OR_RETURN(const Registered registered,
                     DecodeRegistered(name, *bytes));
    // A request that leaves the evidence width to the default asks for the
    // collection as it is, even one registered before widths (64).
    CollectionConfig asked = normalized;
    if (config.evidence_bits == 0) {
      asked.evidence_bits = registered.config.evidence_bits;
    }
    if (registered.config != asked || registered.shards != shards) {
      return absl::AlreadyExistsError(absl::StrCat(
          "collection \"", AbslView(name), "\" exists in the cluster with ",
          registered.config != asked
              ? std::string("another config")
              : absl::StrCat(registered.shards, " shards")));
    }
    // Hosted here all the same (its creator may have died before), and
    // said as a single node says it.
    RETURN_IF_ERROR(HostCollection(name, asked, shards));
    return absl::AlreadyExistsError(
        absl::StrCat("collection \"", AbslView(name), "\" already exists"));
  }
  RETURN_IF_ERROR(created);
  return HostCollection(name, normalized, shards);
}

absl::Status ClusterNode::HostRegistered() {
  ASSIGN_OR_RETURN(const std::vector<std::string> names,
                   log_->Keys(kRegistryBucket, ""));
  // One collection this node cannot host does not keep it from the others;
  // the first such error is returned.
  absl::Status first;
  for (const std::string& name : names) {
    absl::Status hosted = HostNamed(name);
    if (absl::IsNotFound(hosted)) continue;  // deleted meanwhile
    if (first.ok()) first = hosted;
  }
  return first;
}

absl::Status ClusterNode::LookUpUnhosted(std::string_view name) {
  // One lookup at a time: requests naming collections that do not exist
  // cannot hold many threads on the registry (seconds each while the log
  // is down). Requests naming one created elsewhere a moment ago (many at
  // once: a bulk write's items) wait for the lookup under way.
  {
    MutexLock lock(&lookup_mu_);
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (looking_up_) {
      if (!lookup_cv_.WaitUntil(&lookup_mu_, until) && looking_up_) {
        return absl::UnavailableError(absl::StrCat(
            "collection \"", AbslView(name),
            "\" is not hosted here and the cluster's registry is slow to "
            "answer; retry"));
      }
    }
    {
      MutexLock hosted_lock(&mu_);
      if (hosted_.contains(name)) return absl::OkStatus();
    }
    looking_up_ = true;
  }
  absl::Status hosted = HostNamed(name);
  MutexLock lock(&lookup_mu_);
  looking_up_ = false;
  lookup_cv_.SignalAll();
  return hosted;
}

absl::Status ClusterNode::HostNamed(std::string_view name) {
  {
    MutexLock lock(&mu_);
    if (hosted_.contains(name)) return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(const std::optional<std::string> encoded,
                   log_->GetKey(kRegistryBucket, name));
  if (!encoded.has_value()) {
    return absl::NotFoundError(absl::StrCat(
        "no collection named \"", AbslView(name), "\" in the cluster"));
  }
  ASSIGN_OR_RETURN(const Registered registered,
                   DecodeRegistered(name, *encoded));
  return HostCollection(name, registered.config, registered.shards);
}

void ClusterNode::WatchRegistry() {
  while (true) {
    {
      MutexLock lock(&mu_);
      const auto until = std::chrono::steady_clock::now() +
                         absl::ToChronoMilliseconds(options_.registry_poll);
      while (!stopping_ && stop_cv_.WaitUntil(&mu_, until)) {
      }
      if (stopping_) return;
    }
    // Errors pass (the log may be down a while); the next round retries.
    HostRegistered().IgnoreError();
  }
}

absl::Status ClusterNode::CatchUp(absl::Time deadline) {
  std::vector<std::string> names;
  {
    MutexLock lock(&mu_);
    for (const auto& [name, hosted] : hosted_) names.push_back(name);
  }
  for (const std::string& name : names) {
    ASSIGN_OR_RETURN(const uint64_t end, log_->LastSequence(StreamOf(name)));
    RETURN_IF_ERROR(WaitApplied(name, end, deadline));
    // And answering for its shard (it starts once its applier found
    // nothing more to read).
    ASSIGN_OR_RETURN(Hosted * hosted, Find(name));
    const auto until = SteadyUntil(deadline);
    MutexLock lock(&hosted->mu);
    while (hosted->served == nullptr) {
      if (!hosted->applied_cv.WaitUntil(&hosted->mu, until) &&
          hosted->served == nullptr) {
        return absl::DeadlineExceededError(absl::StrCat(
            "collection \"", name, "\": not answering for shard ",
            hosted->shard, " yet",
            hosted->failure.ok()
                ? std::string()
                : absl::StrCat(" (", hosted->failure.message(), ")")));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ClusterNode::HostCollection(std::string_view name,
                                         const CollectionConfig& config,
                                         int shards) {
  if (shards < 1 || shards > kMaxShards) {
    return absl::InvalidArgumentError(
        absl::StrCat("shards must be in [1, ", kMaxShards, "], got ", shards));
  }
  const int shard = options_.shard_index % shards;
  // One at a time: a call finding the collection not yet hosted waits for
  // the one hosting it rather than see half of it.
  MutexLock host_lock(&host_mu_);
  {
    MutexLock lock(&mu_);
    if (hosted_.contains(name)) return absl::OkStatus();
    if (stopping_) {
      return absl::UnavailableError("this cluster node is stopping");
    }
  }
  StreamSpec spec{.name = StreamOf(name),
                  .subjects = {},
                  .replicas = options_.log_replicas};
  for (int k = 0; k < shards; ++k) spec.subjects.push_back(SubjectOf(name, k));
  RETURN_IF_ERROR(log_->EnsureStream(spec));
  absl::StatusOr<std::shared_ptr<engine::Collection>> collection =
      db_.GetCollection(name);
  if (absl::IsNotFound(collection.status())) {
    collection = db_.CreateCollection(name, config);
    // Another call hosting it at the same time created it first.
    if (absl::IsAlreadyExists(collection.status())) {
      collection = db_.GetCollection(name);
    }
  }
  RETURN_IF_ERROR(collection.status());
  ASSIGN_OR_RETURN(const CollectionConfig normalized,
                   NormalizeCollectionConfig(config));
  if ((*collection)->record().config != normalized) {
    return absl::FailedPreconditionError(
        absl::StrCat("collection \"", AbslView(name),
                     "\" on this disk has another config than the cluster's"));
  }
  // Documents written outside the cluster (this disk served as a single
  // node) would make this replica differ from its peers.
  ASSIGN_OR_RETURN(const uint64_t recorded, (*collection)->LogSequence());
  // A snapshot whose load broke off is loaded anew (StartApplying).
  ASSIGN_OR_RETURN(const bool loading, (*collection)->SnapshotLoading());
  if (recorded == 0 && !loading && (*collection)->num_documents() > 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "collection \"", AbslView(name), "\" on this disk holds ",
        (*collection)->num_documents(),
        " documents written outside the cluster; move them away (export, "
        "then import through the cluster) before this node hosts it"));
  }
  if (shards > 1 && recorded > 0 && !loading) {
    // A disk that held another shard (the node's shard index changed)
    // would apply this shard's entries on top of another's documents.
    ASSIGN_OR_RETURN(std::unique_ptr<storage::DocumentCursor> cursor,
                     db_.store().OpenDocumentCursor((*collection)->record()));
    ASSIGN_OR_RETURN(const std::vector<storage::StoredDocument> first,
                     cursor->Next(1, 1));
    if (!first.empty() && ShardOf(first[0].external_id, shards) != shard) {
      return absl::FailedPreconditionError(absl::StrCat(
          "collection \"", AbslView(name), "\" on this disk holds shard ",
          ShardOf(first[0].external_id, shards), " of ", shards,
          ", but this node's shard index ", options_.shard_index,
          " picks shard ", shard,
          ": start it with the shard index it had, or on an empty disk"));
    }
  }
  auto hosted = std::make_unique<Hosted>();
  hosted->name = std::string(name);
  hosted->shards = shards;
  hosted->shard = shard;
  hosted->set_local(*collection);
  hosted->config = normalized;
  // The applier starts on the apply thread (after a snapshot, if need be).
  const uint64_t applied = loading ? 0 : recorded;
  hosted->needs_after = applied;
  {
    MutexLock lock(&hosted->mu);
    hosted->applied = applied;
    hosted->recent_after = applied;
  }
  // Said before it reads (then every report_every), so that trimming keeps
  // what this replica needs; best effort.
  if (options_.report_every > absl::ZeroDuration()) {
    Report(*hosted).IgnoreError();
  }
  Hosted* raw = hosted.get();
  MutexLock lock(&mu_);
  if (stopping_) {
    return absl::UnavailableError("this cluster node is stopping");
  }
  hosted_.emplace(std::string(name), std::move(hosted));
  raw->thread = std::thread([this, raw] { ApplyLoop(raw); });
  return absl::OkStatus();
}

absl::Status ClusterNode::StartApplying(Hosted& hosted) {
  const std::string stream = StreamOf(hosted.name);
  // No longer answering for its shard (it is behind, or about to be
  // replaced by a snapshot): its peers answer meanwhile.
  std::unique_ptr<Subscription> served;
  {
    MutexLock lock(&hosted.mu);
    served = std::move(hosted.served);
  }
  served.reset();
  // As the database has it now (a snapshot's load may have dropped it and
  // failed before making it anew).
  absl::StatusOr<std::shared_ptr<engine::Collection>> current =
      db_.GetCollection(hosted.name);
  if (absl::IsNotFound(current.status())) {
    current = db_.CreateCollection(hosted.name, hosted.config);
  }
  RETURN_IF_ERROR(current.status());
  hosted.set_local(*current);
  const std::shared_ptr<engine::Collection> local = *std::move(current);
  ASSIGN_OR_RETURN(const uint64_t recorded, local->LogSequence());
  ASSIGN_OR_RETURN(const bool loading, local->SnapshotLoading());
  ASSIGN_OR_RETURN(const JetStreamLog::Bounds bounds, log_->BoundsOf(stream));
  const bool trimmed_past = recorded + 1 < bounds.first;
  const uint64_t entries =
      bounds.last >= bounds.first ? bounds.last - bounds.first + 1 : 0;
  if (loading || trimmed_past) {
    bool opened = false;
    RETURN_IF_ERROR(LoadSnapshot(hosted, &opened));
  } else if (recorded == 0 && local->num_documents() == 0 &&
             options_.join_snapshot_entries > 0 &&
             entries >= options_.join_snapshot_entries) {
    bool opened = false;
    absl::Status loaded = LoadSnapshot(hosted, &opened);
    // Without a peer to copy, the whole log is there to replay.
    if (!loaded.ok() && opened) return loaded;
    if (!loaded.ok() && options_.on_warning) {
      options_.on_warning(absl::StrCat(
          "collection \"", hosted.name, "\": replaying its log of ", entries,
          " entries (no snapshot: ", loaded.ToString(), ")"));
    }
  }
  // Every replica reads the whole stream and applies its shard's entries:
  // "applied through N" then covers every entry up to N.
  EntryFilter applies = nullptr;
  if (hosted.shards > 1) {
    applies = [shards = hosted.shards,
               shard = hosted.shard](const LogEntry& entry) {
      return ShardOf(IdOf(entry), shards) == shard;
    };
  }
  Hosted* raw = &hosted;
  ASSIGN_OR_RETURN(
      hosted.applier,
      ShardApplier::Create(
          *log_, *hosted.local(), stream,
          hosted.shards > 1 ? absl::StrCat(stream, ".*")
                            : SubjectOf(hosted.name, 0),
          [this, raw](const AppliedEntry& one) { OnApplied(*raw, one); },
          std::move(applies)));
  hosted.needs_after = hosted.applier->recorded_sequence();
  return absl::OkStatus();
}

bool ClusterNode::CaughtUp(Hosted& hosted) {
  if (hosted.applier == nullptr) return false;
  const uint64_t applied = hosted.applier->applied_sequence();
  // Where it ended when last asked: reached, the replica joins even though
  // writes went on meanwhile. (Asking only for the end as it is now, a
  // replica that applies barely faster than the writes come might never
  // see it.)
  if (hosted.join_target != 0 && applied >= hosted.join_target) {
    hosted.join_target = 0;
    return true;
  }
  // The reader's count says 0 also when it could not read at all.
  absl::StatusOr<uint64_t> last = log_->LastSequence(StreamOf(hosted.name));
  if (!last.ok()) return false;
  if (*last <= applied) {
    hosted.join_target = 0;
    return true;
  }
  hosted.join_target = *last;
  return false;
}

void ClusterNode::ApplyLoop(Hosted* hosted) {
  while (!hosted->stop) {
    absl::StatusOr<size_t> applied = size_t{0};
    if (hosted->applier == nullptr) {
      if (absl::Status started = StartApplying(*hosted); !started.ok()) {
        applied = started;
      }
    }
    if (hosted->applier != nullptr) {
      applied =
          hosted->applier->ApplyAvailable(options_.apply_poll, kApplyRound);
      hosted->needs_after = hosted->applier->recorded_sequence();
      if (absl::IsFailedPrecondition(applied.status())) {
        // Trimmed past it (it was silent longer than the reports last):
        // a snapshot next round.
        absl::StatusOr<JetStreamLog::Bounds> bounds =
            log_->BoundsOf(StreamOf(hosted->name));
        if (bounds.ok() &&
            bounds->first > hosted->applier->applied_sequence() + 1) {
          hosted->applier.reset();
        }
      }
    }
    const uint64_t sequence =
        hosted->applier != nullptr ? hosted->applier->applied_sequence() : 0;
    // Whether to leave the shard's queue group (stalled: its other replicas
    // answer meanwhile) or join it (caught up), decided here, done below
    // without the lock (NATS requests).
    bool leave = false;
    bool join = false;
    bool release = false;  // requests are parked: some may be due
    {
      MutexLock lock(&hosted->mu);
      if (options_.on_warning &&
          applied.status().ToString() != hosted->failure.ToString()) {
        options_.on_warning(
            applied.ok()
                ? absl::StrCat("collection \"", hosted->name,
                               "\": applying the log again, at ", sequence)
                : absl::StrCat("collection \"", hosted->name,
                               "\": cannot apply the log after ", sequence,
                               ": ", applied.status().ToString()));
      }
      hosted->failure = applied.status();
      hosted->pending =
          hosted->applier != nullptr ? hosted->applier->pending() : 0;
      if (sequence > hosted->applied) {
        hosted->applied = sequence;
        hosted->applied_cv.SignalAll();
      }
      release = !hosted->parked.empty();
      {
        // Stalled a while (the store fails, or the log longer than a
        // failover): its shard's other replicas answer meanwhile.
        if (applied.ok()) {
          hosted->stalled_since.reset();
        } else if (!hosted->stalled_since.has_value()) {
          hosted->stalled_since = absl::Now();
        }
        leave = hosted->served != nullptr &&
                hosted->stalled_since.has_value() &&
                absl::Now() - *hosted->stalled_since > kStalledLeave;
        // Nothing left to read, or the log's end CaughtUp last saw reached.
        join = hosted->served == nullptr && applied.ok() &&
               (hosted->pending == 0 || hosted->join_target == 0 ||
                sequence >= hosted->join_target);
      }
    }
    // Those whose sequence came; those out of time are forgotten (each
    // round, so also while the log stalls).
    if (release) ReleaseParked(*hosted, /*drop_expired=*/true);
    if (leave) {
      std::unique_ptr<Subscription> served;
      {
        MutexLock lock(&hosted->mu);
        served = std::move(hosted->served);
      }
      served.reset();
    }
    if (join && CaughtUp(*hosted)) {
      absl::StatusOr<std::unique_ptr<Subscription>> served = log_->Subscribe(
          ShardSubjectOf(hosted->name, hosted->shard), kReplicasQueue,
          [this, hosted](std::string_view data, const std::string& reply_to) {
            OnShardRequest(hosted, data, reply_to);
          });
      if (served.ok()) {
        MutexLock lock(&hosted->mu);
        // Not once the node stops (it let go of what it found).
        if (!hosted->stop) {
          hosted->served = *std::move(served);
          hosted->applied_cv.SignalAll();
        }
      } else if (options_.on_warning) {
        options_.on_warning(absl::StrCat(
            "collection \"", hosted->name, "\": cannot answer for shard ",
            hosted->shard, " yet: ", served.status().ToString()));
      }
    }
    if (!applied.ok()) {
      // The store failed (a full disk...): the same entry is tried again,
      // not in a tight loop.
      MutexLock lock(&hosted->mu);
      if (!hosted->stop) {
        hosted->applied_cv.WaitUntil(
            &hosted->mu, SteadyUntil(absl::Now() + options_.apply_poll));
      }
    }
  }
}

absl::StatusOr<ClusterNode::Hosted*> ClusterNode::Find(
    std::string_view collection) {
  {
    MutexLock lock(&mu_);
    auto it = hosted_.find(collection);
    if (it != hosted_.end()) return it->second.get();
    if (stopping_) {
      return absl::UnavailableError("this cluster node is stopping");
    }
  }
  // Registered elsewhere a moment ago, or being hosted by another call.
  RETURN_IF_ERROR(LookUpUnhosted(collection));
  MutexLock lock(&mu_);
  auto it = hosted_.find(collection);
  if (it == hosted_.end()) {
    return absl::NotFoundError(absl::StrCat(
        "collection \"", AbslView(collection), "\" is not hosted here"));
  }
  return it->second.get();
}

void ClusterNode::OnApplied(Hosted& hosted, const AppliedEntry& one) {
  const LogEntry& entry = *one.entry;
  std::optional<engine::PreparedDocument> compared;
  if (hosted.shards > 1 && entry.upsert) {
    // What MayBlock compares: no text, metadata or vector.
    const engine::PreparedDocument& doc = *entry.upsert;
    compared.emplace();
    compared->external_id = doc.external_id;
    compared->minhash = doc.minhash;
    compared->shingles = doc.shingles;
  }
  bool waits_here = false;
  if (!one.skipped) {
    MutexLock lock(&waiting_mu_);
    waits_here = waiting_.contains(entry.append_id);
  }
  // Told elsewhere when its writer holds another shard.
  const bool told = !one.skipped && !entry.outcome_subject.empty() &&
                    entry.outcome_subject != outcome_subject_;
  std::optional<LoggedWrite> written;
  std::string encoded;
  if (waits_here || told) {
    written.emplace();
    written->sequence = one.sequence;
    if (!one.outcome.ok()) {
      // A status of its own (no payloads are used): the writer's thread
      // copies it while this one drops the entry's, and the two must not
      // share a reference count (TSan saw them race).
      written->failure = absl::Status(one.outcome.status().code(),
                                      one.outcome.status().message());
    } else {
      written->outcome = *one.outcome;
      written->blocking_count = written->outcome.blocking.size();
      const std::shared_ptr<engine::Collection> local = hosted.local();
      // Named now: a later entry may reuse the internal id.
      for (const engine::MinHashMatch& match : written->outcome.blocking) {
        if (written->blocking_ids.size() >= kBlockingNamed) break;
        absl::StatusOr<storage::StoredDocument> stored = local->GetByInternalId(
            match.internal_id, storage::DocumentParts::kRecordOnly);
        written->blocking_ids.push_back(stored.ok() ? stored->external_id
                                                    : std::string());
      }
    }
    if (told) encoded = EncodeOutcome(entry.append_id, *written);
  }
  bool release = false;  // a parked request waited for this one
  {
    // Applied, with what a writer may ask of it again: one step, so that
    // a request waiting for this sequence finds the outcome.
    MutexLock lock(&hosted.mu);
    hosted.applied = std::max(hosted.applied, one.sequence);
    if (compared.has_value()) {
      hosted.recent.emplace_back(one.sequence, *std::move(compared));
      if (hosted.recent.size() > kRecentUpserts) {
        hosted.recent_after = hosted.recent.front().first;
        hosted.recent.pop_front();
      }
    }
    if (told && hosted.told.emplace(entry.append_id, encoded).second) {
      hosted.told_order.push_back(entry.append_id);
      if (hosted.told_order.size() > kToldOutcomes) {
        hosted.told.erase(hosted.told_order.front());
        hosted.told_order.pop_front();
      }
    }
    hosted.applied_cv.SignalAll();
    release = !hosted.parked.empty() &&
              hosted.parked.begin()->first <= hosted.applied;
  }
  if (release) ReleaseParked(hosted, /*drop_expired=*/false);
  if (waits_here) {
    Deliver(entry.append_id, *std::move(written));
  } else if (told) {
    // At most once, like any NATS message: a writer that hears nothing
    // asks the shard again (KIND_OUTCOME).
    log_->Publish(entry.outcome_subject, encoded).IgnoreError();
  }
}

absl::Status ClusterNode::WaitApplied(std::string_view collection,
                                      uint64_t sequence, absl::Time deadline) {
  ASSIGN_OR_RETURN(Hosted * hosted, Find(collection));
  return WaitAppliedOn(*hosted, sequence, deadline);
}

absl::Status ClusterNode::WaitAppliedOn(Hosted& hosted, uint64_t sequence,
                                        absl::Time deadline) {
  const auto until = SteadyUntil(deadline);
  MutexLock lock(&hosted.mu);
  while (hosted.applied < sequence) {
    if (hosted.stop) {
      return absl::UnavailableError(absl::StrCat("collection \"", hosted.name,
                                                 "\": this node is stopping"));
    }
    if (!hosted.applied_cv.WaitUntil(&hosted.mu, until) &&
        hosted.applied < sequence) {
      return absl::DeadlineExceededError(absl::StrCat(
          "collection \"", hosted.name, "\" applied ", hosted.applied, " of ",
          sequence, " here",
          hosted.failure.ok()
              ? std::string()
              : absl::StrCat(" (", hosted.failure.message(), ")")));
    }
  }
  return absl::OkStatus();
}

std::vector<ReplicaState> ClusterNode::ReplicaStates() {
  std::vector<Hosted*> all;
  {
    MutexLock lock(&mu_);
    for (const auto& [name, hosted] : hosted_) all.push_back(hosted.get());
  }
  std::vector<ReplicaState> states;
  for (Hosted* hosted : all) {
    MutexLock lock(&hosted->mu);
    states.push_back({.collection = hosted->name,
                      .applied_sequence = hosted->applied,
                      .pending_entries = hosted->pending,
                      .stalled = !hosted->failure.ok(),
                      .snapshots_loaded = hosted->snapshots_loaded,
                      .shards = hosted->shards});
  }
  return states;
}

size_t ClusterNode::ParkedRequests(std::string_view collection) {
  Hosted* hosted = nullptr;
  {
    MutexLock lock(&mu_);
    auto it = hosted_.find(collection);
    if (it == hosted_.end()) return 0;
    hosted = it->second.get();
  }
  MutexLock lock(&hosted->mu);
  return hosted->parked.size();
}

absl::StatusOr<uint64_t> ClusterNode::AppliedSequence(
    std::string_view collection) {
  ASSIGN_OR_RETURN(Hosted * hosted, Find(collection));
  MutexLock lock(&hosted->mu);
  return hosted->applied;
}

}  // namespace neardup::cluster
