// ClusterNode between shards: a replica answers requests for its shard
// (subject ShardSubjectOf, one queue group per shard, so NATS hands each
// request to one live replica), and a node asks every shard for its callers.

#include <algorithm>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hosted.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/cluster/cluster_node.h"
#include "neardup/cluster/log_entry.h"
#include "neardup/cluster/node_messages.pb.h"
#include "outcome_codec.h"

namespace neardup::cluster {
namespace {

namespace pb = ::neardup::cluster::messages;

// Room kept in a NATS message for the reply's envelope.
constexpr size_t kReplySlackBytes = 4096;
// How long a shard without a replica answering is asked again, and how
// often.
constexpr absl::Duration kNoReplicaGrace = absl::Seconds(2);
constexpr absl::Duration kNoReplicaRetry = absl::Milliseconds(50);
// How long a shard's first answer is waited for before it is asked again.
constexpr absl::Duration kFirstAnswerWait = absl::Seconds(1);
// A request's deadline when its asker sent none, and the longest one.
constexpr absl::Duration kDefaultShardDeadline = absl::Seconds(30);

pb::ShardRequest::Kind KindToProto(ShardCallKind kind) {
  switch (kind) {
    case ShardCallKind::kQuery:
      return pb::ShardRequest::KIND_QUERY;
    case ShardCallKind::kGet:
      return pb::ShardRequest::KIND_GET;
    case ShardCallKind::kCollection:
      return pb::ShardRequest::KIND_COLLECTION;
    case ShardCallKind::kBlocking:
      return pb::ShardRequest::KIND_BLOCKING;
    case ShardCallKind::kOutcome:
      return pb::ShardRequest::KIND_OUTCOME;
    case ShardCallKind::kSnapshot:
      return pb::ShardRequest::KIND_SNAPSHOT;
  }
  return pb::ShardRequest::KIND_UNSPECIFIED;
}

absl::StatusOr<ShardCallKind> KindFromProto(pb::ShardRequest::Kind kind) {
  switch (kind) {
    case pb::ShardRequest::KIND_QUERY:
      return ShardCallKind::kQuery;
    case pb::ShardRequest::KIND_GET:
      return ShardCallKind::kGet;
    case pb::ShardRequest::KIND_COLLECTION:
      return ShardCallKind::kCollection;
    case pb::ShardRequest::KIND_BLOCKING:
      return ShardCallKind::kBlocking;
    case pb::ShardRequest::KIND_OUTCOME:
      return ShardCallKind::kOutcome;
    case pb::ShardRequest::KIND_SNAPSHOT:
      return ShardCallKind::kSnapshot;
    default:
      return absl::UnimplementedError(absl::StrCat("a shard request of kind ",
                                                   static_cast<int>(kind),
                                                   " (a newer build's)"));
  }
}

}  // namespace

const char* ShardCallKindName(ShardCallKind kind) {
  switch (kind) {
    case ShardCallKind::kQuery:
      return "query";
    case ShardCallKind::kGet:
      return "get";
    case ShardCallKind::kCollection:
      return "collection";
    case ShardCallKind::kBlocking:
      return "blocking";
    case ShardCallKind::kOutcome:
      return "outcome";
    case ShardCallKind::kSnapshot:
      return "snapshot";
  }
  return "unknown";
}

void ClusterNode::OnShardRequest(Hosted* hosted, std::string_view data,
                                 const std::string& reply_to) {
  // Its deadline counts from its arrival, parked or not. (One that does not
  // parse, or of a kind this build does not know, is answered so at once by
  // AnswerShardRequest.)
  pb::ShardRequest request;
  uint64_t sequence = 0;
  absl::Duration timeout = kDefaultShardDeadline;
  if (request.ParseFromArray(data.data(), static_cast<int>(data.size())) &&
      KindFromProto(request.kind()).ok()) {
    sequence = request.log_sequence();
    if (request.timeout_micros() > 0) {
      timeout = std::min(absl::Microseconds(request.timeout_micros()),
                         kDefaultShardDeadline);
    }
  }
  const absl::Time deadline = absl::Now() + timeout;
  bool full = false;
  if (sequence > 0) {
    MutexLock lock(&hosted->mu);
    // Not applied yet; or applied, but released requests wait for room in
    // the pool: this one waits behind them rather than be refused.
    const bool behind = !hosted->parked.empty() &&
                        hosted->parked.begin()->first <= hosted->applied;
    if ((hosted->applied < sequence || behind) && !hosted->stop) {
      if (hosted->parked.size() >= kMaxParkedRequests ||
          hosted->parked_bytes + data.size() > kMaxParkedBytes) {
        hosted->DropExpiredParked(absl::Now());
      }
      full = hosted->parked.size() >= kMaxParkedRequests ||
             hosted->parked_bytes + data.size() > kMaxParkedBytes;
      if (!full) {
        hosted->parked_bytes += data.size();
        hosted->parked.emplace(
            sequence, Hosted::ParkedRequest{.deadline = deadline,
                                            .reply_to = reply_to,
                                            .data = std::string(data)});
        return;
      }
    }
  }
  if (full) {
    Serve(hosted, reply_to, [] {
      return absl::StatusOr<std::string>(absl::ResourceExhaustedError(
          "this replica has as many requests waiting for its log as it "
          "keeps"));
    });
    return;
  }
  ServeRequest(hosted, reply_to, std::string(data), deadline);
}

bool ClusterNode::ServeRequest(Hosted* hosted, const std::string& reply_to,
                               std::string data, absl::Time deadline,
                               bool answer_when_busy) {
  return Serve(
      hosted, reply_to,
      [this, hosted, data = std::move(data), deadline] {
        return AnswerShardRequest(*hosted, data, deadline);
      },
      answer_when_busy);
}

void ClusterNode::ReleaseParked(Hosted& hosted, bool drop_expired) {
  std::vector<std::pair<uint64_t, Hosted::ParkedRequest>> ready;
  bool stopping = false;
  {
    MutexLock lock(&hosted.mu);
    if (hosted.parked.empty()) return;
    if (drop_expired) hosted.DropExpiredParked(absl::Now());
    stopping = hosted.stop;
    // By sequence: the applied ones come first (all once stopping).
    while (!hosted.parked.empty() &&
           (stopping || hosted.parked.begin()->first <= hosted.applied)) {
      auto first = hosted.parked.begin();
      hosted.parked_bytes -= first->second.data.size();
      ready.emplace_back(first->first, std::move(first->second));
      hosted.parked.erase(first);
    }
  }
  for (size_t i = 0; i < ready.size(); ++i) {
    Hosted::ParkedRequest& request = ready[i].second;
    // Each answers at once (applied, or stopping: see WaitAppliedOn). When
    // the pool has no room, the rest wait for the next release rather than
    // be refused: their askers still wait for them. (A stopping node
    // refuses what does not fit; the askers try another replica.)
    if (ServeRequest(&hosted, request.reply_to, request.data, request.deadline,
                     /*answer_when_busy=*/stopping)) {
      continue;
    }
    MutexLock lock(&hosted.mu);
    for (size_t j = i; j < ready.size(); ++j) {
      hosted.parked_bytes += ready[j].second.data.size();
      hosted.parked.emplace(ready[j].first, std::move(ready[j].second));
    }
    break;
  }
}

bool ClusterNode::Serve(Hosted* hosted, const std::string& reply_to,
                        std::function<absl::StatusOr<std::string>()> work,
                        bool answer_when_busy) {
  {
    MutexLock lock(&requests_mu_);
    // The node is going: nothing may use its collections any more (and the
    // asker tries another replica).
    if (requests_closed_) {
      if (!reply_to.empty()) {
        pb::ShardReply reply;
        reply.set_code(static_cast<int>(absl::StatusCode::kUnavailable));
        reply.set_message("this replica is stopping");
        log_->Publish(reply_to, reply.SerializeAsString()).IgnoreError();
      }
      return true;
    }
    ++requests_running_;
  }
  auto answer_with = [this, hosted,
                      reply_to](absl::StatusOr<std::string> answer) {
    pb::ShardReply reply;
    if (answer.ok()) {
      reply.set_body(*std::move(answer));
    } else {
      reply.set_code(static_cast<int>(answer.status().code()));
      reply.set_message(std::string(answer.status().message()));
    }
    if (hosted != nullptr) {
      MutexLock lock(&hosted->mu);
      reply.set_applied_sequence(hosted->applied);
    }
    if (!reply_to.empty()) {
      std::string bytes = reply.SerializeAsString();
      if (bytes.size() > log_->MaxMessageBytes()) {
        reply.Clear();
        reply.set_code(static_cast<int>(absl::StatusCode::kResourceExhausted));
        reply.set_message("the shard's answer outgrew a NATS message");
        bytes = reply.SerializeAsString();
      }
      log_->Publish(reply_to, bytes).IgnoreError();
    }
    MutexLock lock(&requests_mu_);
    --requests_running_;
    requests_cv_.SignalAll();
  };
  auto run = [answer_with, work = std::move(work)] { answer_with(work()); };
  if (!options_.run) {
    std::thread(std::move(run)).detach();
    return true;
  }
  if (options_.run(run)) return true;
  if (answer_when_busy) {
    answer_with(absl::ResourceExhaustedError(
        "this replica is busy (its queue of shard requests is full)"));
    return true;
  }
  MutexLock lock(&requests_mu_);
  --requests_running_;
  requests_cv_.SignalAll();
  return false;
}

absl::StatusOr<std::string> ClusterNode::AnswerShardRequest(
    Hosted& hosted, std::string_view data, absl::Time deadline) {
  pb::ShardRequest request;
  if (!request.ParseFromArray(data.data(), static_cast<int>(data.size()))) {
    return absl::InvalidArgumentError("not a shard request");
  }
  ASSIGN_OR_RETURN(const ShardCallKind kind, KindFromProto(request.kind()));
  RETURN_IF_ERROR(WaitAppliedOn(hosted, request.log_sequence(), deadline));
  if (kind == ShardCallKind::kOutcome) {
    MutexLock lock(&hosted.mu);
    auto it = hosted.told.find(request.body());
    if (it == hosted.told.end()) {
      return absl::NotFoundError(
          "this replica keeps no outcome of that write (not applied here, "
          "or long ago)");
    }
    return it->second;
  }
  if (kind == ShardCallKind::kSnapshot) {
    return OpenSnapshot(hosted, request.body());
  }
  if (kind == ShardCallKind::kBlocking) {
    pb::BlockingCheck check;
    if (!check.ParseFromString(request.body())) {
      return absl::InvalidArgumentError("not a dedup-on-write check");
    }
    ASSIGN_OR_RETURN(const LogEntry entry, DecodeLogEntry(check.entry()));
    if (!entry.upsert) {
      return absl::InvalidArgumentError("a dedup-on-write check of a delete");
    }
    const std::shared_ptr<engine::Collection> local = hosted.local();
    ASSIGN_OR_RETURN(const std::vector<engine::MinHashMatch> matches,
                     local->Blocking(*entry.upsert, check.threshold()));
    NamedBlocking found;
    found.count = matches.size();
    for (const engine::MinHashMatch& match : matches) {
      if (found.ids.size() >= kBlockingNamed) break;
      absl::StatusOr<storage::StoredDocument> stored = local->GetByInternalId(
          match.internal_id, storage::DocumentParts::kRecordOnly);
      if (!stored.ok()) continue;
      found.matches.push_back(match);
      found.ids.push_back(stored->external_id);
    }
    return EncodeBlocking(found);
  }
  if (!options_.shard_service) {
    return absl::UnimplementedError("this node answers no shard requests");
  }
  const size_t max = log_->MaxMessageBytes();
  return options_.shard_service(
      {.kind = kind,
       .collection = hosted.name,
       .body = request.body(),
       .deadline = deadline,
       .max_answer_bytes =
           max > kReplySlackBytes ? max - kReplySlackBytes : 0});
}

std::vector<absl::StatusOr<std::string>> ClusterNode::Ask(
    Hosted& hosted, std::span<const int> shards, ShardCallKind kind,
    std::string_view body, uint64_t log_sequence, absl::Time deadline) {
  const absl::Time start = absl::Now();
  const absl::Time until = std::min(deadline, start + kDefaultShardDeadline);
  pb::ShardRequest request;
  request.set_kind(KindToProto(kind));
  request.set_body(std::string(body));
  request.set_log_sequence(log_sequence);
  // As time left, not a time: the nodes' clocks may differ.
  // Each ask says the time left then.
  auto bytes_now = [&request, until] {
    request.set_timeout_micros(absl::ToInt64Microseconds(
        std::max(until - absl::Now(), absl::ZeroDuration())));
    return request.SerializeAsString();
  };
  std::vector<std::string> subjects;
  for (int shard : shards) {
    subjects.push_back(ShardSubjectOf(hosted.name, shard));
  }
  // An answer as its shard gave it: the body, or the replica's status.
  auto decode = [&](size_t i, absl::StatusOr<std::string> raw) {
    const std::string where = absl::StrCat(
        "shard ", shards[i], " of collection \"", hosted.name, "\"");
    if (!raw.ok()) {
      return absl::StatusOr<std::string>(absl::Status(
          raw.status().code(),
          absl::StrCat(where, ": ",
                       absl::IsUnavailable(raw.status())
                           ? std::string("no replica answers (none is "
                                         "caught up and reachable)")
                           : std::string(raw.status().message()))));
    }
    pb::ShardReply reply;
    if (!reply.ParseFromString(*raw)) {
      return absl::StatusOr<std::string>(
          absl::DataLossError(absl::StrCat(where, ": not a reply")));
    }
    if (reply.code() != 0) {
      return absl::StatusOr<std::string>(
          absl::Status(static_cast<absl::StatusCode>(reply.code()),
                       absl::StrCat(where, ": ", reply.message())));
    }
    return absl::StatusOr<std::string>(std::move(*reply.mutable_body()));
  };
  // A replica that dies with the request, or an answer lost while a NATS
  // server fails over, leaves it unanswered: each ask waits a while only
  // (1 s, then twice as long each time, so a slow answer still comes), and
  // a shard that did not answer is asked again (its other replica, if the
  // first died) until the time is up. Reads and checks: asking twice is
  // safe.
  std::vector<absl::StatusOr<std::string>> replies(
      subjects.size(), absl::DeadlineExceededError("not asked"));
  // Whether a replica of the shard answered at all (its answer may still
  // be an error of its own): for the fan-out's metrics.
  std::vector<bool> replied(subjects.size(), false);
  std::vector<size_t> late(subjects.size());
  std::iota(late.begin(), late.end(), 0);
  for (absl::Duration wait = kFirstAnswerWait;
       !late.empty() && absl::Now() < until; wait *= 2) {
    std::vector<std::string> asked;
    for (size_t i : late) asked.push_back(subjects[i]);
    std::vector<absl::StatusOr<std::string>> answers = log_->RequestEach(
        asked, bytes_now(), std::min(until, absl::Now() + wait));
    std::vector<size_t> still;
    for (size_t k = 0; k < late.size(); ++k) {
      if (absl::IsDeadlineExceeded(answers[k].status())) {
        still.push_back(late[k]);
      }
      if (answers[k].ok()) replied[late[k]] = true;
      replies[late[k]] = std::move(answers[k]);
    }
    late = std::move(still);
  }
  for (size_t i = 0; i < replies.size(); ++i) {
    replies[i] = decode(i, std::move(replies[i]));
  }
  // A shard nobody answers for, or whose replica is starting or stopping,
  // may be between replicas: asked again for a moment before it is
  // UNAVAILABLE.
  const absl::Time grace = std::min(until, start + kNoReplicaGrace);
  while (true) {
    std::vector<size_t> again;
    for (size_t i = 0; i < replies.size(); ++i) {
      if (absl::IsUnavailable(replies[i].status())) again.push_back(i);
    }
    if (again.empty() || absl::Now() + kNoReplicaRetry >= grace) break;
    absl::SleepFor(kNoReplicaRetry);
    std::vector<std::string> retried;
    for (size_t i : again) retried.push_back(subjects[i]);
    std::vector<absl::StatusOr<std::string>> answers =
        log_->RequestEach(retried, bytes_now(), until);
    for (size_t k = 0; k < again.size(); ++k) {
      if (answers[k].ok()) replied[again[k]] = true;
      replies[again[k]] = decode(again[k], std::move(answers[k]));
    }
  }
  if (options_.on_fan_out) {
    FanOut fan_out{.kind = kind,
                   .collection = hosted.name,
                   .took = absl::Now() - start,
                   .unanswered = {}};
    for (size_t i = 0; i < replies.size(); ++i) {
      if (!replied[i]) fan_out.unanswered.push_back(shards[i]);
    }
    options_.on_fan_out(fan_out);
  }
  return replies;
}

std::optional<ClusterNode::Placement> ClusterNode::PlacementIfHosted(
    std::string_view collection) {
  MutexLock lock(&mu_);
  auto it = hosted_.find(collection);
  if (it == hosted_.end()) return std::nullopt;
  return Placement{.shards = it->second->shards, .shard = it->second->shard};
}

absl::StatusOr<ClusterNode::Placement> ClusterNode::PlacementOf(
    std::string_view collection) {
  ASSIGN_OR_RETURN(Hosted * hosted, Find(collection));
  return Placement{.shards = hosted->shards, .shard = hosted->shard};
}

std::vector<absl::StatusOr<std::string>> ClusterNode::AskEveryShard(
    std::string_view collection, ShardCallKind kind, std::string_view body,
    uint64_t log_sequence, absl::Time deadline) {
  absl::StatusOr<Hosted*> hosted = Find(collection);
  if (!hosted.ok()) return {hosted.status()};
  std::vector<int> every(static_cast<size_t>((*hosted)->shards));
  for (size_t k = 0; k < every.size(); ++k) every[k] = static_cast<int>(k);
  return Ask(**hosted, every, kind, body, log_sequence, deadline);
}

absl::StatusOr<std::string> ClusterNode::AskShardOf(
    std::string_view collection, std::string_view external_id,
    ShardCallKind kind, std::string_view body, uint64_t log_sequence,
    absl::Time deadline) {
  ASSIGN_OR_RETURN(Hosted * hosted, Find(collection));
  const int shard[] = {ShardOf(external_id, hosted->shards)};
  return std::move(
      Ask(*hosted, shard, kind, body, log_sequence, deadline).front());
}

}  // namespace neardup::cluster
