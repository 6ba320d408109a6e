#include "neardup/cluster/cluster_node.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/cluster/log_entry.h"
#include "neardup/cluster/shard_applier.h"
#include "neardup/storage/config_codec.h"
#include "neardup/storage/validation.h"

namespace neardup::cluster {

// A collection this node hosts: its local replica, the applier of its log
// and the thread running it.
struct ClusterNode::Hosted {
  std::string name;
  std::shared_ptr<engine::Collection> collection;
  std::unique_ptr<ShardApplier> applier;  // the apply thread's only
  std::atomic<bool> stop{false};
  Mutex mu;
  CondVar applied_cv;
  uint64_t applied ABSL_GUARDED_BY(mu) = 0;
  uint64_t pending ABSL_GUARDED_BY(mu) = 0;  // as the applier last saw it
  absl::Status failure ABSL_GUARDED_BY(mu);  // the applier's last error
  // This node's writes waiting to be applied here, by append id: empty
  // until the applier says what the entry did.
  std::map<std::string, std::optional<LoggedWrite>, std::less<>> waiting
      ABSL_GUARDED_BY(mu);
  std::thread thread;

  // On the apply thread, after each entry is stored: reads may wait no
  // longer, and the writer of the entry, if it waits here, learns what it
  // did.
  void OnApplied(const AppliedEntry& one) {
    std::optional<LoggedWrite> outcome;
    {
      MutexLock lock(&mu);
      applied = std::max(applied, one.sequence);
      applied_cv.SignalAll();
      if (!waiting.contains(one.entry->append_id)) return;
    }
    LoggedWrite written;
    written.sequence = one.sequence;
    if (!one.outcome.ok()) {
      written.failure = one.outcome.status();
    } else {
      written.outcome = *one.outcome;
      // Named now: a later entry may reuse the internal id.
      for (const engine::MinHashMatch& match : written.outcome.blocking) {
        if (written.blocking_ids.size() >= kBlockingNamed) break;
        absl::StatusOr<storage::StoredDocument> stored =
            collection->GetByInternalId(match.internal_id,
                                        storage::DocumentParts::kRecordOnly);
        written.blocking_ids.push_back(stored.ok() ? stored->external_id
                                                   : std::string());
      }
    }
    MutexLock lock(&mu);
    auto it = waiting.find(one.entry->append_id);
    if (it == waiting.end()) return;  // its writer gave up meanwhile
    it->second = std::move(written);
    applied_cv.SignalAll();
  }
};

namespace {

// A steady-clock time for `deadline`, at most a day away (an infinite one
// would overflow).
std::chrono::steady_clock::time_point SteadyUntil(absl::Time deadline) {
  const absl::Duration left =
      std::clamp(deadline - absl::Now(), absl::ZeroDuration(), absl::Hours(24));
  return std::chrono::steady_clock::now() + absl::ToChronoMilliseconds(left);
}

// Entries one ApplyAvailable call applies at most, so stop is looked at
// during a long catch-up too.
constexpr size_t kApplyRound = 512;

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

ClusterNode::ClusterNode(engine::Database& db, ClusterNodeOptions options,
                         std::unique_ptr<JetStreamLog> log)
    : db_(db),
      options_(std::move(options)),
      log_(std::move(log)),
      // Append ids stay unique across restarts within the dedup window.
      incarnation_(absl::StrCat(absl::Hex(std::random_device()()),
                                absl::Hex(std::random_device()()))) {}

absl::StatusOr<std::unique_ptr<ClusterNode>> ClusterNode::Start(
    engine::Database& db, const ClusterNodeOptions& options) {
  if (options.node_id.empty()) {
    return absl::InvalidArgumentError("a cluster node needs a node_id");
  }
  ASSIGN_OR_RETURN(std::unique_ptr<JetStreamLog> log,
                   JetStreamLog::Connect(options.log));
  RETURN_IF_ERROR(log->EnsureBucket(kRegistryBucket, options.log_replicas));
  std::unique_ptr<ClusterNode> node(
      new ClusterNode(db, options, std::move(log)));
  if (options.registry_poll > absl::ZeroDuration()) {
    node->registry_watcher_ =
        std::thread([n = node.get()] { n->WatchRegistry(); });
  }
  return node;
}

ClusterNode::~ClusterNode() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
    stop_cv_.SignalAll();
  }
  if (registry_watcher_.joinable()) registry_watcher_.join();
  std::map<std::string, std::unique_ptr<Hosted>, std::less<>> hosted;
  {
    MutexLock lock(&mu_);
    hosted.swap(hosted_);
  }
  for (auto& [name, one] : hosted) one->stop = true;
  for (auto& [name, one] : hosted) {
    if (one->thread.joinable()) one->thread.join();
  }
}

absl::Status ClusterNode::CreateCollection(std::string_view name,
                                           const CollectionConfig& config) {
  // Before the registry holds it.
  RETURN_IF_ERROR(storage::ValidateCollectionName(name));
  ASSIGN_OR_RETURN(const CollectionConfig normalized,
                   NormalizeCollectionConfig(config));
  const std::string encoded = storage::EncodeCollectionConfig(normalized);
  absl::Status created = log_->CreateKey(kRegistryBucket, name, encoded);
  if (absl::IsAlreadyExists(created)) {
    ASSIGN_OR_RETURN(const std::optional<std::string> registered,
                     log_->GetKey(kRegistryBucket, name));
    if (registered != encoded) {
      return absl::AlreadyExistsError(
          absl::StrCat("collection \"", AbslView(name),
                       "\" exists in the cluster with another config"));
    }
    // Hosted here all the same (its creator may have died before), and
    // said as a single node says it.
    RETURN_IF_ERROR(HostCollection(name, normalized));
    return absl::AlreadyExistsError(
        absl::StrCat("collection \"", AbslView(name), "\" already exists"));
  }
  RETURN_IF_ERROR(created);
  return HostCollection(name, normalized);
}

absl::Status ClusterNode::HostRegistered() {
  ASSIGN_OR_RETURN(const std::vector<std::string> names,
                   log_->Keys(kRegistryBucket));
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
  // is down).
  if (!lookup_mu_.TryLock()) {
    return absl::NotFoundError(
        absl::StrCat("collection \"", AbslView(name), "\" is not hosted here"));
  }
  absl::Status hosted = HostNamed(name);
  lookup_mu_.Unlock();
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
  ASSIGN_OR_RETURN(
      const CollectionConfig config,
      Prefixed(absl::StrCat("registered collection \"", AbslView(name), "\""),
               storage::DecodeCollectionConfig(*encoded)));
  return HostCollection(name, config);
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
  }
  return absl::OkStatus();
}

absl::Status ClusterNode::HostCollection(std::string_view name,
                                         const CollectionConfig& config) {
  // One at a time: a call finding the collection not yet hosted waits for
  // the one hosting it rather than see half of it.
  MutexLock host_lock(&host_mu_);
  {
    MutexLock lock(&mu_);
    if (hosted_.contains(name)) return absl::OkStatus();
  }
  RETURN_IF_ERROR(log_->EnsureStream({.name = StreamOf(name),
                                      .subjects = {SubjectOf(name, 0)},
                                      .replicas = options_.log_replicas}));
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
  if (recorded == 0 && (*collection)->num_documents() > 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "collection \"", AbslView(name), "\" on this disk holds ",
        (*collection)->num_documents(),
        " documents written outside the cluster; move them away (export, "
        "then import through the cluster) before this node hosts it"));
  }
  auto hosted = std::make_unique<Hosted>();
  hosted->name = std::string(name);
  hosted->collection = *collection;
  Hosted* raw = hosted.get();
  ASSIGN_OR_RETURN(
      hosted->applier,
      ShardApplier::Create(
          *log_, *hosted->collection, StreamOf(name), SubjectOf(name, 0),
          [raw](const AppliedEntry& one) { raw->OnApplied(one); }));
  {
    MutexLock lock(&hosted->mu);
    hosted->applied = hosted->applier->applied_sequence();
  }
  MutexLock lock(&mu_);
  hosted_.emplace(std::string(name), std::move(hosted));
  raw->thread = std::thread([this, raw] { ApplyLoop(raw); });
  return absl::OkStatus();
}

void ClusterNode::ApplyLoop(Hosted* hosted) {
  while (!hosted->stop) {
    absl::StatusOr<size_t> applied =
        hosted->applier->ApplyAvailable(options_.apply_poll, kApplyRound);
    const uint64_t sequence = hosted->applier->applied_sequence();
    MutexLock lock(&hosted->mu);
    if (options_.on_warning &&
        applied.status().ToString() != hosted->failure.ToString()) {
      options_.on_warning(
          applied.ok()
              ? absl::StrCat("collection \"", hosted->name,
                             "\": applying the log again, at ", sequence)
              : absl::StrCat("collection \"", hosted->name,
                             "\": cannot apply the log after ", sequence, ": ",
                             applied.status().ToString()));
    }
    hosted->failure = applied.status();
    hosted->pending = hosted->applier->pending();
    if (sequence > hosted->applied) {
      hosted->applied = sequence;
      hosted->applied_cv.SignalAll();
    }
    if (!applied.ok()) {
      // The store failed (a full disk...): the same entry is tried again,
      // not in a tight loop.
      hosted->applied_cv.WaitUntil(
          &hosted->mu, SteadyUntil(absl::Now() + options_.apply_poll));
    }
  }
}

absl::StatusOr<ClusterNode::Hosted*> ClusterNode::Find(
    std::string_view collection) {
  {
    MutexLock lock(&mu_);
    auto it = hosted_.find(collection);
    if (it != hosted_.end()) return it->second.get();
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

absl::StatusOr<uint64_t> ClusterNode::AppendUntil(std::string_view collection,
                                                  const std::string& bytes,
                                                  const std::string& append_id,
                                                  absl::Time deadline) {
  const std::string subject = SubjectOf(collection, 0);
  while (true) {
    // No attempt outlasts the deadline: the caller answers UNAVAILABLE in
    // time, not its client's deadline first.
    const absl::Time start = absl::Now();
    const absl::Duration left = deadline - start;
    absl::StatusOr<Appended> appended =
        log_->Append(subject, bytes,
                     {.append_id = append_id,
                      .timeout = std::max(left, absl::Milliseconds(1))});
    if (options_.on_append) {
      options_.on_append(absl::Now() - start, appended.ok());
    }
    if (options_.on_warning && !appended.ok() &&
        !append_failing_.exchange(true)) {
      options_.on_warning(absl::StrCat("appending to the log of \"",
                                       AbslView(collection),
                                       "\" fails (retried until the write's "
                                       "deadline): ",
                                       appended.status().ToString()));
    } else if (appended.ok() && append_failing_.exchange(false) &&
               options_.on_warning) {
      options_.on_warning("appending to the log works again");
    }
    if (appended.ok()) return appended->sequence;
    if (!absl::IsUnavailable(appended.status()) ||
        deadline - absl::Now() < absl::Milliseconds(150)) {
      return appended.status();
    }
    absl::SleepFor(absl::Milliseconds(100));  // a leader is being elected
  }
}

absl::StatusOr<LoggedWrite> ClusterNode::Write(Hosted& hosted, LogEntry entry,
                                               absl::Time deadline) {
  std::vector<LogEntry> one;
  one.push_back(std::move(entry));
  return std::move(
      WriteMany(hosted, std::move(one), deadline, nullptr).front());
}

std::vector<absl::StatusOr<LoggedWrite>> ClusterNode::WriteMany(
    Hosted& hosted, std::vector<LogEntry> entries, absl::Time deadline,
    bool* stopped) {
  const size_t n = entries.size();
  std::vector<absl::StatusOr<LoggedWrite>> results(
      n, absl::UnknownError("not written"));
  std::vector<std::string> bytes(n);
  std::vector<bool> encoded(n, false);
  for (size_t i = 0; i < n; ++i) {
    LogEntry& entry = entries[i];
    entry.collection = hosted.name;
    {
      MutexLock lock(&mu_);
      entry.append_id = absl::StrCat(options_.node_id, "-", incarnation_, "-",
                                     next_append_++);
    }
    absl::StatusOr<std::string> encoding = EncodeLogEntry(entry);
    if (!encoding.ok()) {
      results[i] = encoding.status();
      continue;
    }
    bytes[i] = *std::move(encoding);
    encoded[i] = true;
  }
  {
    MutexLock lock(&hosted.mu);
    for (size_t i = 0; i < n; ++i) {
      if (encoded[i])
        hosted.waiting.emplace(entries[i].append_id, std::nullopt);
    }
  }
  // Appended one after another, in order, then waited for together. Once
  // an append fails the rest are not tried: a later one must not land
  // before an earlier one is retried (a retried near-duplicate would then
  // block the wrong one), and with the log unavailable each would wait out
  // the deadline. Only an entry refused for itself (too large) is passed.
  std::vector<absl::StatusOr<uint64_t>> sequences(
      n, absl::UnknownError("not appended"));
  absl::Status stop;
  for (size_t i = 0; i < n; ++i) {
    if (!encoded[i]) continue;
    if (!stop.ok()) {
      sequences[i] = stop;
      continue;
    }
    sequences[i] =
        AppendUntil(hosted.name, bytes[i], entries[i].append_id, deadline);
    const absl::Status& failed = sequences[i].status();
    if (!failed.ok() && !absl::IsInvalidArgument(failed)) {
      stop = absl::UnavailableError(
          absl::StrCat("not written: an earlier write of the batch was not "
                       "appended (",
                       failed.message(), ")"));
      if (stopped != nullptr) *stopped = true;
    }
  }
  const auto until = SteadyUntil(deadline);
  MutexLock lock(&hosted.mu);
  for (size_t i = 0; i < n; ++i) {
    if (!encoded[i]) continue;
    auto it = hosted.waiting.find(entries[i].append_id);
    if (sequences[i].ok()) {
      while (!it->second.has_value() &&
             hosted.applied_cv.WaitUntil(&hosted.mu, until)) {
      }
    }
    std::optional<LoggedWrite> applied = std::move(it->second);
    hosted.waiting.erase(it);
    if (!sequences[i].ok()) {
      results[i] = sequences[i].status();
    } else if (!applied.has_value()) {
      results[i] = absl::DeadlineExceededError(absl::StrCat(
          "the write is in the log of collection \"", hosted.name,
          "\" at sequence ", *sequences[i],
          " but this node has not applied it yet (applied ", hosted.applied,
          ")",
          hosted.failure.ok() ? std::string()
                              : absl::StrCat(": ", hosted.failure.message())));
    } else if (!applied->failure.ok()) {
      results[i] = applied->failure;
    } else {
      results[i] = *std::move(applied);
    }
  }
  return results;
}

std::vector<absl::StatusOr<LoggedWrite>> ClusterNode::UpsertMany(
    std::string_view collection, std::span<const UpsertItem> items,
    absl::Time deadline, bool* stopped) {
  absl::StatusOr<Hosted*> hosted = Find(collection);
  if (!hosted.ok()) {
    return std::vector<absl::StatusOr<LoggedWrite>>(items.size(),
                                                    hosted.status());
  }
  std::vector<absl::StatusOr<LoggedWrite>> results(
      items.size(), absl::UnknownError("not written"));
  std::vector<LogEntry> entries;
  std::vector<size_t> at;
  const int64_t now = absl::ToUnixMicros(absl::Now());
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].insert_only_below) {
      // Checked here: an entry every replica refuses would stop them all.
      absl::Status valid = (*hosted)->collection->CheckThreshold(
          *items[i].insert_only_below, "insert_only_below");
      if (!valid.ok()) {
        results[i] = valid;
        continue;
      }
    }
    LogEntry& entry = entries.emplace_back();
    entry.upsert = *items[i].doc;
    entry.insert_only_below = items[i].insert_only_below;
    entry.unix_micros = now;
    at.push_back(i);
  }
  std::vector<absl::StatusOr<LoggedWrite>> written =
      WriteMany(**hosted, std::move(entries), deadline, stopped);
  for (size_t k = 0; k < at.size(); ++k) results[at[k]] = std::move(written[k]);
  return results;
}

absl::StatusOr<LoggedWrite> ClusterNode::Upsert(
    std::string_view collection, const engine::PreparedDocument& doc,
    std::optional<double> insert_only_below, absl::Time deadline) {
  const UpsertItem item{.doc = &doc, .insert_only_below = insert_only_below};
  return std::move(UpsertMany(collection, {&item, 1}, deadline).front());
}

absl::StatusOr<LoggedWrite> ClusterNode::Upsert(
    std::string_view collection, const engine::DocumentInput& input,
    absl::Time deadline) {
  ASSIGN_OR_RETURN(Hosted * hosted, Find(collection));
  ASSIGN_OR_RETURN(const engine::PreparedDocument doc,
                   hosted->collection->Prepare(input));
  return Upsert(collection, doc, std::nullopt, deadline);
}

absl::StatusOr<LoggedWrite> ClusterNode::Delete(std::string_view collection,
                                                std::string_view external_id,
                                                absl::Time deadline) {
  ASSIGN_OR_RETURN(Hosted * hosted, Find(collection));
  LogEntry entry;
  entry.delete_id = std::string(external_id);
  return Write(*hosted, std::move(entry), deadline);
}

absl::Status ClusterNode::WaitApplied(std::string_view collection,
                                      uint64_t sequence, absl::Time deadline) {
  ASSIGN_OR_RETURN(Hosted * hosted, Find(collection));
  const auto until = SteadyUntil(deadline);
  MutexLock lock(&hosted->mu);
  while (hosted->applied < sequence) {
    if (!hosted->applied_cv.WaitUntil(&hosted->mu, until) &&
        hosted->applied < sequence) {
      return absl::DeadlineExceededError(absl::StrCat(
          "collection \"", hosted->name, "\" applied ", hosted->applied, " of ",
          sequence, " here",
          hosted->failure.ok()
              ? std::string()
              : absl::StrCat(" (", hosted->failure.message(), ")")));
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
                      .stalled = !hosted->failure.ok()});
  }
  return states;
}

absl::StatusOr<uint64_t> ClusterNode::AppliedSequence(
    std::string_view collection) {
  ASSIGN_OR_RETURN(Hosted * hosted, Find(collection));
  MutexLock lock(&hosted->mu);
  return hosted->applied;
}

}  // namespace neardup::cluster
