// ClusterNode's snapshots (docs/cluster.md): a replica that joins with an
// empty disk, or one the log was trimmed past, copies a caught-up peer of
// its shard, chunk by chunk over NATS, from one RocksDB snapshot of the
// peer; then it reads the log after the snapshot's sequence.

#include <atomic>
#include <deque>
#include <future>
#include <limits>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "hosted.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/cluster/cluster_node.h"
#include "neardup/cluster/log_entry.h"
#include "neardup/cluster/node_messages.pb.h"

namespace neardup::cluster {
namespace {

namespace pb = ::neardup::cluster::messages;

// Snapshots a node serves at once: each pins RocksDB's old versions.
constexpr size_t kMaxSnapshots = 4;
// A snapshot nobody asked for a chunk of this long is closed; one whose
// last chunk was sent, sooner (its reader may still ask it again).
constexpr absl::Duration kSnapshotIdle = absl::Minutes(1);
constexpr absl::Duration kSnapshotDoneLinger = absl::Seconds(10);
// Room kept in a NATS message for the reply's envelope.
constexpr size_t kChunkSlackBytes = 4096;
// How long a reader waits for a chunk before it asks again, and how often
// it asks (a busy replica: after a pause, twice as long each time).
constexpr absl::Duration kChunkWait = absl::Seconds(5);
constexpr int kChunkTries = 5;
constexpr absl::Duration kBusyPause = absl::Milliseconds(200);
// How long a replica asks its shard for a snapshot.
constexpr absl::Duration kOpenWait = absl::Seconds(10);
// Documents read from the peer's store at a time.
constexpr size_t kReadBatch = 64;

// The document as its log entry would carry it, with what the store holds.
engine::PreparedDocument CopyOf(storage::StoredDocument stored,
                                const storage::CollectionRecord& record) {
  engine::PreparedDocument doc;
  doc.external_id = std::move(stored.external_id);
  doc.metadata = std::move(stored.metadata);
  doc.text = std::move(stored.text);
  doc.minhash = std::move(stored.minhash);
  doc.minhash_config_hash = record.minhash_config_hash;
  doc.simhash = stored.simhash;
  if (doc.simhash) doc.simhash_config_hash = record.simhash_config_hash;
  doc.shingles = std::move(stored.shingles);
  if (doc.shingles) doc.evidence_bits = EvidenceBitsOf(record.config);
  doc.kept = std::move(stored.kept);
  doc.embedding = std::move(stored.embedding);
  if (doc.embedding) doc.embedding_model_id = record.config.embedding.model_id;
  return doc;
}

}  // namespace

struct ClusterNode::SnapshotSession {
  std::string collection;
  std::string request;  // the asker's: asked again, the same session
  std::string opened;   // the answer (messages.SnapshotOpened)
  uint64_t log_sequence = 0;
  // When a request last used it, and whether its last chunk went out
  // (under snapshots_mu_).
  absl::Time used = absl::Now();
  bool sent_last = false;
  Mutex mu;  // one chunk at a time
  // Keeps the collection's store state alive while the cursor reads it.
  std::shared_ptr<engine::Collection> local ABSL_GUARDED_BY(mu);
  std::unique_ptr<storage::DocumentCursor> cursor ABSL_GUARDED_BY(mu);
  std::deque<storage::StoredDocument> ahead ABSL_GUARDED_BY(mu);
  bool read_all ABSL_GUARDED_BY(mu) = false;
  uint64_t next_chunk ABSL_GUARDED_BY(mu) = 0;
  std::string last_answer ABSL_GUARDED_BY(mu);  // chunk next_chunk - 1
};

void ClusterNode::DropIdleSnapshots() {
  const absl::Time now = absl::Now();
  for (auto it = snapshots_.begin(); it != snapshots_.end();) {
    const SnapshotSession& session = *it->second;
    const absl::Duration idle = now - session.used;
    if (idle > kSnapshotIdle ||
        (session.sent_last && idle > kSnapshotDoneLinger)) {
      it = snapshots_.erase(it);
    } else {
      ++it;
    }
  }
}

absl::StatusOr<std::string> ClusterNode::OpenSnapshot(
    Hosted& hosted, const std::string& request) {
  {
    // Only a replica that answers for its shard (caught up, not loading a
    // snapshot itself) is copied.
    MutexLock lock(&hosted.mu);
    if (hosted.served == nullptr) {
      return absl::UnavailableError(
          "this replica is not caught up: another one is asked");
    }
  }
  auto session = std::make_shared<SnapshotSession>();
  session->collection = hosted.name;
  session->request = request;
  std::string id;
  {
    MutexLock lock(&snapshots_mu_);
    DropIdleSnapshots();
    for (const auto& [open_id, open] : snapshots_) {
      if (!request.empty() && open->request == request &&
          !open->opened.empty()) {
        open->used = absl::Now();
        return open->opened;  // its answer was lost
      }
    }
    if (snapshots_.size() >= kMaxSnapshots) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "this replica serves ", snapshots_.size(),
          " snapshots already; another replica may take it, or retry"));
    }
    id = absl::StrCat(incarnation_, "-", next_session_++);
    // Listed before it is read, so the log after it is held from now on:
    // what this replica reported it needs comes no later than the
    // snapshot's sequence (HeldBySnapshots).
    session->log_sequence = hosted.needs_after.load();
    snapshots_.emplace(id, session);
  }
  uint64_t sequence = 0;
  {
    MutexLock lock(&session->mu);
    session->local = hosted.local();
    absl::StatusOr<std::unique_ptr<storage::DocumentCursor>> cursor =
        db_.store().OpenDocumentCursor(session->local->record(),
                                       /*with_evidence=*/true);
    absl::StatusOr<uint64_t> at =
        cursor.ok() ? (*cursor)->LogSequence() : cursor.status();
    if (!at.ok()) {
      MutexLock sessions_lock(&snapshots_mu_);
      snapshots_.erase(id);
      return at.status();
    }
    session->cursor = *std::move(cursor);
    sequence = *at;
  }
  pb::SnapshotOpened opened;
  opened.set_session(id);
  opened.set_subject(snapshot_subject_);
  opened.set_log_sequence(sequence);
  MutexLock lock(&snapshots_mu_);
  session->log_sequence = sequence;
  session->opened = opened.SerializeAsString();
  return session->opened;
}

absl::StatusOr<std::string> ClusterNode::NextChunk(std::string_view data) {
  pb::SnapshotNext next;
  if (!next.ParseFromArray(data.data(), static_cast<int>(data.size()))) {
    return absl::InvalidArgumentError("not a snapshot chunk request");
  }
  std::shared_ptr<SnapshotSession> session;
  {
    MutexLock lock(&snapshots_mu_);
    DropIdleSnapshots();
    auto it = snapshots_.find(next.session());
    if (it == snapshots_.end()) {
      return absl::NotFoundError(
          "no such snapshot here (closed after a minute unused, or the node "
          "restarted): open another");
    }
    session = it->second;
    session->used = absl::Now();
    if (next.close()) {
      snapshots_.erase(it);
      return std::string();
    }
  }
  MutexLock lock(&session->mu);
  if (next.chunk() + 1 == session->next_chunk) return session->last_answer;
  if (session->read_all && session->ahead.empty() &&
      next.chunk() == session->next_chunk) {
    // The chunk after the last: its reader is done.
    MutexLock sessions_lock(&snapshots_mu_);
    snapshots_.erase(next.session());
    return std::string();
  }
  if (next.chunk() != session->next_chunk) {
    return absl::FailedPreconditionError(
        absl::StrCat("snapshot chunk ", next.chunk(), " asked; the next is ",
                     session->next_chunk));
  }
  const size_t max = log_->MaxMessageBytes();
  const size_t budget =
      max > 2 * kChunkSlackBytes ? max - kChunkSlackBytes : kChunkSlackBytes;
  pb::SnapshotChunk chunk;
  size_t bytes = 0;
  while (true) {
    if (session->ahead.empty() && !session->read_all) {
      ASSIGN_OR_RETURN(std::vector<storage::StoredDocument> read,
                       session->cursor->Next(kReadBatch, budget));
      if (read.empty()) session->read_all = true;
      for (storage::StoredDocument& doc : read) {
        session->ahead.push_back(std::move(doc));
      }
    }
    if (session->ahead.empty()) {
      chunk.set_last(true);
      break;
    }
    const storage::StoredDocument& stored = session->ahead.front();
    pb::SnapshotDocument doc;
    doc.set_created_unix_micros(stored.created_unix_micros);
    doc.set_updated_unix_micros(stored.updated_unix_micros);
    LogEntry entry;
    entry.collection = session->collection;
    entry.upsert = CopyOf(stored, session->local->record());
    ASSIGN_OR_RETURN(*doc.mutable_entry(), EncodeLogEntry(entry));
    // The field's tag and length, and the document.
    const size_t size = doc.ByteSizeLong() + 16;
    if (bytes + size > budget) {
      if (chunk.documents_size() == 0) {
        // Not "busy": asking again would not help.
        return absl::FailedPreconditionError(absl::StrCat(
            "document \"", entry.upsert->external_id, "\" takes ", size,
            " bytes, more than a NATS message holds (", max, ")"));
      }
      break;
    }
    bytes += size;
    *chunk.add_documents() = std::move(doc);
    session->ahead.pop_front();
  }
  session->last_answer = chunk.SerializeAsString();
  ++session->next_chunk;
  if (chunk.last()) {
    MutexLock sessions_lock(&snapshots_mu_);
    session->sent_last = true;
  }
  return session->last_answer;
}

uint64_t ClusterNode::HeldBySnapshots(std::string_view collection) {
  MutexLock lock(&snapshots_mu_);
  DropIdleSnapshots();  // a closed one holds nothing
  uint64_t held = std::numeric_limits<uint64_t>::max();
  for (const auto& [id, session] : snapshots_) {
    if (session->collection == collection) {
      held = std::min(held, session->log_sequence);
    }
  }
  return held;
}

absl::Status ClusterNode::LoadSnapshot(Hosted& hosted, bool* opened) {
  *opened = false;
  const std::string where =
      absl::StrCat("collection \"", hosted.name, "\": loading a snapshot of a ",
                   "replica of shard ", hosted.shard);
  const int shard[] = {hosted.shard};
  std::string request;
  {
    MutexLock lock(&mu_);
    request = absl::StrCat(incarnation_, "-", next_append_++);
  }
  absl::StatusOr<std::string> answer =
      std::move(Ask(hosted, shard, ShardCallKind::kSnapshot, request, 0,
                    absl::Now() + kOpenWait)
                    .front());
  RETURN_IF_ERROR(Prefixed(where, answer.status()));
  pb::SnapshotOpened snapshot;
  if (!snapshot.ParseFromString(*answer)) {
    return absl::DataLossError(absl::StrCat(where, ": not a snapshot"));
  }
  // It must join the log: its sequence's next entry is still there.
  ASSIGN_OR_RETURN(const JetStreamLog::Bounds bounds,
                   log_->BoundsOf(StreamOf(hosted.name)));
  if (snapshot.log_sequence() + 1 < bounds.first) {
    return absl::FailedPreconditionError(absl::StrCat(
        where, ": the peer's snapshot ends at ", snapshot.log_sequence(),
        ", before the log's first entry ", bounds.first));
  }
  *opened = true;
  // Trimming keeps the log after the snapshot from now on.
  hosted.needs_after = snapshot.log_sequence();
  Report(hosted).IgnoreError();  // the peer holds it meanwhile

  // The copy goes into an empty collection, marked until it is whole.
  std::shared_ptr<engine::Collection> local = hosted.local();
  ASSIGN_OR_RETURN(const uint64_t recorded, local->LogSequence());
  ASSIGN_OR_RETURN(const bool loading, local->SnapshotLoading());
  if (recorded > 0 || loading || local->num_documents() > 0) {
    const CollectionConfig config = local->record().config;
    RETURN_IF_ERROR(Prefixed(where, db_.DropCollection(hosted.name)));
    ASSIGN_OR_RETURN(local, db_.CreateCollection(hosted.name, config));
    hosted.set_local(local);
  }
  RETURN_IF_ERROR(local->MarkSnapshotLoading());

  const std::string subject[] = {snapshot.subject()};
  pb::SnapshotNext next;
  next.set_session(snapshot.session());
  uint64_t documents = 0;
  // Once this load gives up, a fetch under way stops asking.
  std::atomic<bool> give_up{false};
  // The peer closes the snapshot (and holds the log no more) whatever
  // ends the load.
  const absl::Cleanup close = [&] {
    pb::SnapshotNext done = next;
    done.set_close(true);
    log_->RequestEach(subject, done.SerializeAsString(),
                      absl::Now() + absl::Seconds(1));
  };
  // One chunk: asked again when its answer is late or the peer is busy.
  auto fetch = [&](uint64_t k) -> absl::StatusOr<pb::SnapshotChunk> {
    pb::SnapshotNext ask = next;
    ask.set_chunk(k);
    const std::string chunk_where = absl::StrCat(where, ", chunk ", k);
    absl::Duration pause = kBusyPause;
    absl::Status last = absl::DeadlineExceededError("not asked");
    for (int tries = 0; tries < kChunkTries; ++tries) {
      if (hosted.stop || give_up) {
        return absl::UnavailableError(absl::StrCat(where, ": stopping"));
      }
      absl::StatusOr<std::string> raw =
          std::move(log_->RequestEach(subject, ask.SerializeAsString(),
                                      absl::Now() + kChunkWait)
                        .front());
      if (!raw.ok()) {
        last = raw.status();
        if (absl::IsDeadlineExceeded(last)) continue;
        if (!absl::IsUnavailable(last)) return Prefixed(chunk_where, last);
        absl::SleepFor(pause);  // the peer's subject is between servers
        pause *= 2;
        continue;
      }
      pb::ShardReply reply;
      pb::SnapshotChunk chunk;
      if (!reply.ParseFromString(*raw) ||
          (reply.code() == 0 && !chunk.ParseFromString(reply.body()))) {
        return absl::DataLossError(absl::StrCat(chunk_where, ": not a chunk"));
      }
      if (reply.code() == 0) return chunk;
      last = absl::Status(static_cast<absl::StatusCode>(reply.code()),
                          reply.message());
      if (!absl::IsResourceExhausted(last)) return Prefixed(chunk_where, last);
      absl::SleepFor(pause);  // its queue is full
      pause *= 2;
    }
    return Prefixed(chunk_where, last);
  };
  // The next chunk is asked for while this one is written (the peer reads
  // and encodes it meanwhile).
  std::future<absl::StatusOr<pb::SnapshotChunk>> ahead =
      std::async(std::launch::async, fetch, 0);
  // An early return stops the fetch under way before waiting for it.
  const absl::Cleanup stop_fetching = [&] { give_up = true; };
  for (uint64_t k = 0;; ++k) {
    ASSIGN_OR_RETURN(const pb::SnapshotChunk chunk, ahead.get());
    if (!chunk.last()) ahead = std::async(std::launch::async, fetch, k + 1);
    std::vector<engine::PreparedDocument> docs;
    docs.reserve(static_cast<size_t>(chunk.documents_size()));
    for (const pb::SnapshotDocument& doc : chunk.documents()) {
      ASSIGN_OR_RETURN(LogEntry entry,
                       Prefixed(where, DecodeLogEntry(doc.entry())));
      if (!entry.upsert) {
        return absl::DataLossError(absl::StrCat(where, ": a delete in it"));
      }
      entry.upsert->created_unix_micros = doc.created_unix_micros();
      entry.upsert->updated_unix_micros = doc.updated_unix_micros();
      docs.push_back(*std::move(entry.upsert));
    }
    std::vector<const engine::PreparedDocument*> pointers;
    for (const engine::PreparedDocument& doc : docs) pointers.push_back(&doc);
    for (absl::StatusOr<storage::PutResult>& put :
         local->ApplyMany(pointers, storage::WriteOptions{})) {
      RETURN_IF_ERROR(Prefixed(where, put.status()));
    }
    documents += docs.size();
    if (chunk.last()) break;
  }
  RETURN_IF_ERROR(local->FinishSnapshotLoading(snapshot.log_sequence()));
  {
    MutexLock lock(&hosted.mu);
    hosted.applied = snapshot.log_sequence();
    // Upserts before the snapshot are not compared here (NoneMayBlock asks
    // the shards instead).
    hosted.recent.clear();
    hosted.recent_after = snapshot.log_sequence();
    ++hosted.snapshots_loaded;
    hosted.applied_cv.SignalAll();
  }
  if (options_.on_warning) {
    options_.on_warning(absl::StrCat(
        "collection \"", hosted.name, "\": loaded a snapshot of shard ",
        hosted.shard, " (", documents, " documents, log through ",
        snapshot.log_sequence(), "); reading the log after it"));
  }
  return absl::OkStatus();
}

}  // namespace neardup::cluster
