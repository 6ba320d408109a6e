#include "neardup/cluster/jetstream_log.h"

#include <nats/nats.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/base/sync.h"

namespace neardup::cluster {

namespace {

// A wait for the next record this long that got nothing counts as idle.
constexpr absl::Duration kIdleWait = absl::Milliseconds(100);
// How long making a reader's consumer waits at first (see Subscribe).
constexpr absl::Duration kFirstSubscribeWait = absl::Seconds(1);
// How often a quiet consumer sends a heartbeat.
constexpr absl::Duration kHeartbeat = absl::Seconds(1);
// Records (and bytes) the client holds delivered but unread.
constexpr int kPendingRecords = 8192;
constexpr int kPendingBytes = 64 << 20;

template <typename T, void (*Destroy)(T*)>
struct Deleter {
  void operator()(T* p) const {
    if (p != nullptr) Destroy(p);
  }
};
using Options =
    std::unique_ptr<natsOptions, Deleter<natsOptions, natsOptions_Destroy>>;
using Connection =
    std::unique_ptr<natsConnection,
                    Deleter<natsConnection, natsConnection_Destroy>>;
using Context = std::unique_ptr<jsCtx, Deleter<jsCtx, jsCtx_Destroy>>;
using Message = std::unique_ptr<natsMsg, Deleter<natsMsg, natsMsg_Destroy>>;

int64_t Millis(absl::Duration d) { return absl::ToInt64Milliseconds(d); }

// The library's error, mapped once: the ways a request finds no quorum or
// no server are UNAVAILABLE (retry), a missing stream NOT_FOUND.
absl::Status FromNats(natsStatus status, jsErrCode js_error,
                      std::string_view what) {
  if (status == NATS_OK) return absl::OkStatus();
  std::string text =
      absl::StrCat(AbslView(what), ": ", natsStatus_GetText(status));
  // The thread's last error text is stale after some codes; it adds the
  // server's words when JetStream answered.
  if (js_error != 0) {
    absl::StrAppend(&text, " (JetStream error ", static_cast<int>(js_error),
                    ": ", nats_GetLastError(nullptr), ")");
  }
  switch (js_error) {
    case JSStreamWrongLastSequenceErr:
      return absl::FailedPreconditionError(text);
    case JSStreamNotFoundErr:
      return absl::NotFoundError(text);
    case JSClusterNotAvailErr:
    case JSClusterNoPeersErr:
    case JSInsufficientResourcesErr:
    case JSStreamOfflineErr:
    case JSNotEnabledErr:  // what a server without a stream leader says
      return absl::UnavailableError(text);
    default:
      break;
  }
  switch (status) {
    case NATS_TIMEOUT:
    case NATS_NO_RESPONDERS:
    case NATS_NO_SERVER:
    case NATS_CONNECTION_CLOSED:
    case NATS_CONNECTION_DISCONNECTED:
    case NATS_STALE_CONNECTION:
    case NATS_MISSED_HEARTBEAT:
    case NATS_INSUFFICIENT_BUFFER:  // the reconnect buffer is full
    case NATS_IO_ERROR:  // a publish sent at once to a socket just lost
      return absl::UnavailableError(text);
    case NATS_MAX_PAYLOAD:
      return absl::InvalidArgumentError(
          absl::StrCat(text, " (over the NATS servers' max_payload)"));
    case NATS_NOT_FOUND:
      return absl::NotFoundError(text);
    default:
      return absl::InternalError(text);
  }
}

// nats.c 3.4.1 (Debian 12's) finds a message's subscription in its read
// loop, lets go of the connection's lock, then locks the subscription: one
// freed in between by another thread is used after free (nats.c #637, fixed
// in later releases), which wedges or crashes the connection. So
// subscriptions are unsubscribed first and freed a while later, on a thread
// of their own (unsubscribing a JetStream one deletes its consumer, a
// request that may wait).
class Graveyard {
 public:
  Graveyard() : thread_([this] { Run(); }) {}
  // Frees what is left: the connection is closed by then.
  ~Graveyard() {
    {
      MutexLock lock(&mu_);
      stopping_ = true;
      cv_.SignalAll();
    }
    thread_.join();
    for (const Grave& grave : graves_) natsSubscription_Destroy(grave.sub);
  }

  // `sub` is not read from again. `unsubscribed`: the caller unsubscribed
  // it (and waited for its handler); otherwise that happens here first.
  void Bury(natsSubscription* sub, bool unsubscribed) {
    MutexLock lock(&mu_);
    graves_.push_back(
        {sub, unsubscribed, std::chrono::steady_clock::now() + kDelay});
    cv_.SignalAll();
  }

 private:
  // Far longer than the read loop holds a subscription it found.
  static constexpr auto kDelay = std::chrono::seconds(2);
  struct Grave {
    natsSubscription* sub;
    bool unsubscribed;
    std::chrono::steady_clock::time_point free_at;
  };

  void Run() {
    MutexLock lock(&mu_);
    while (!stopping_) {
      if (graves_.empty()) {
        cv_.Wait(&mu_);
        continue;
      }
      Grave& first = graves_.front();
      if (!first.unsubscribed) {
        natsSubscription* sub = first.sub;
        mu_.Unlock();
        natsSubscription_Unsubscribe(sub);
        mu_.Lock();
        // Still the front: only this thread takes graves.
        graves_.front().unsubscribed = true;
        graves_.front().free_at = std::chrono::steady_clock::now() + kDelay;
        continue;
      }
      if (std::chrono::steady_clock::now() < first.free_at) {
        cv_.WaitUntil(&mu_, first.free_at);
        continue;
      }
      natsSubscription* sub = first.sub;
      graves_.pop_front();
      mu_.Unlock();
      natsSubscription_Destroy(sub);
      mu_.Lock();
    }
  }

  Mutex mu_;
  CondVar cv_;
  std::deque<Grave> graves_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

class JetStreamReader final : public LogReader {
 public:
  JetStreamReader(jsCtx* js, Graveyard* graveyard, std::string stream,
                  std::string subject, uint64_t next, bool every_record,
                  absl::Duration request_timeout)
      : js_(js),
        graveyard_(graveyard),
        request_timeout_(request_timeout),
        stream_(std::move(stream)),
        subject_(std::move(subject)),
        every_record_(every_record),
        next_(next) {}

  ~JetStreamReader() override { Drop(); }

  absl::StatusOr<std::optional<LogRecord>> Next(absl::Duration wait) override {
    // `wait` counts from when the consumer exists: making one (a replicated
    // one elects its own leader) is bounded by the request timeout.
    absl::Time deadline = absl::Now() + wait;
    bool made_one = false;
    while (true) {
      if (sub_ == nullptr) {
        // One consumer made per call: a call that keeps losing them still
        // returns, so its caller looks at stop and says it is behind.
        if (made_one) return std::nullopt;
        if (absl::Status made = Subscribe(); !made.ok()) {
          if (!absl::IsUnavailable(made)) return made;
          // No leader yet: try again on the next call.
          absl::SleepFor(std::min(absl::Milliseconds(50), wait));
          return std::nullopt;
        }
        made_one = true;
        deadline = std::max(deadline, absl::Now() + wait);
      }
      const absl::Duration left =
          std::max(deadline - absl::Now(), absl::Milliseconds(1));
      natsMsg* msg = nullptr;
      const natsStatus next =
          natsSubscription_NextMsg(&msg, sub_, Millis(left));
      if (next == NATS_OK) {
        Message owned(msg);
        idle_waits_ = 0;
        ASSIGN_OR_RETURN(std::optional<LogRecord> record, Take(msg));
        if (record.has_value()) return record;
      } else if (next == NATS_TIMEOUT) {
        // A consumer lost with its server (or expired) may also look like
        // this: twice idle while the subject has records past ours, and
        // the consumer is made anew from where this reader is. Only waits
        // long enough to have seen a record count: a short one (a caller
        // taking what is there already) often ends before the record does
        // arrive.
        if (left >= kIdleWait && ++idle_waits_ >= 2 && Behind()) Drop();
      } else {
        // A slow consumer that dropped records, a consumer sequence the
        // server's heartbeat says we missed (NATS_MISMATCH), a closed
        // subscription: made anew.
        Drop();
        absl::SleepFor(
            std::min(absl::Milliseconds(50),
                     std::max(deadline - absl::Now(), absl::ZeroDuration())));
      }
      if (absl::Now() >= deadline) return std::nullopt;
    }
  }

 private:
  absl::Status Subscribe() {
    RETURN_IF_ERROR(CheckPosition());
    jsSubOptions options;
    jsSubOptions_Init(&options);
    options.Stream = stream_.c_str();
    options.Config.DeliverPolicy = js_DeliverByStartSequence;
    options.Config.OptStartSeq = next_;
    options.Config.AckPolicy = js_AckNone;
    // Pushed in windows the server sizes (flow control). Idle heartbeats
    // tell of records missed at the tail (NextMsg: NATS_MISMATCH) and
    // unstick a lost flow-control reply. A consumer lost with its server is
    // noticed by the idle check in Next, not by heartbeats: nats.c 3.4.1
    // reports those only to a connection's error handler.
    options.Config.FlowControl = true;
    options.Config.Heartbeat = absl::ToInt64Nanoseconds(kHeartbeat);
    // One server's, in memory: the reader keeps its own position and makes
    // a consumer anew when one is lost (its server died, a record went
    // missing on the way), so replicating it would buy nothing. Kept while
    // a quiet subject leaves it idle longer than the default 5 s.
    options.Config.Replicas = 1;
    options.Config.MemoryStorage = true;
    options.Config.InactiveThreshold =
        absl::ToInt64Nanoseconds(absl::Minutes(1));
    // nats-server 2.9 places a consumer of one replica on any server of the
    // stream, a dead one too (until 2.11), and a consumer placed there never
    // answers its creation: the first tries wait briefly, so that a server's
    // death costs the reader a second or two, not the request timeout each
    // time. (A consumer made after its try gave up goes by its inactivity.)
    jsOptions wait;
    jsOptions_Init(&wait);
    wait.Wait = Millis(
        std::min(request_timeout_,
                 kFirstSubscribeWait *
                     (int64_t{1} << std::min(failed_subscribes_ / 4, 8))));
    natsSubscription* sub = nullptr;
    jsErrCode js_error = static_cast<jsErrCode>(0);
    const natsStatus status = js_SubscribeSync(&sub, js_, subject_.c_str(),
                                               &wait, &options, &js_error);
    if (status != NATS_OK) ++failed_subscribes_;
    RETURN_IF_ERROR(FromNats(status, js_error,
                             absl::StrCat("read ", subject_, " of ", stream_)));
    failed_subscribes_ = 0;
    sub_ = sub;
    // What the client may hold unread: a stalled applier (a full disk)
    // lets windows pile up until these drop records, and the gap makes the
    // consumer anew; no record is lost, the memory stays bounded.
    natsSubscription_SetPendingLimits(sub, kPendingRecords, kPendingBytes);
    idle_waits_ = 0;
    delivered_ = 0;
    return absl::OkStatus();
  }

  // The record of a delivered message, unless one this reader has passed
  // (a consumer made anew may start over). A gap in the consumer's own
  // count means a record was lost on the way (a server died with it in a
  // buffer): the consumer is dropped, and made anew from next_.
  // A reader of every record fails on a record missing in between (the
  // stream was trimmed while it read: a consumer goes on from the new
  // first record without a word).
  absl::StatusOr<std::optional<LogRecord>> Take(natsMsg* msg) {
    jsMsgMetaData* meta = nullptr;
    if (natsMsg_GetMetaData(&meta, msg) != NATS_OK) {
      Drop();
      return std::nullopt;
    }
    const uint64_t sequence = meta->Sequence.Stream;
    const uint64_t delivered = meta->Sequence.Consumer;
    const uint64_t pending = meta->NumPending;
    jsMsgMetaData_Destroy(meta);
    if (delivered != delivered_ + 1) {
      Drop();
      return std::nullopt;
    }
    delivered_ = delivered;
    if (sequence < next_) return std::nullopt;
    if (every_record_ && sequence > next_) {
      Drop();
      return absl::FailedPreconditionError(absl::StrCat(
          "stream ", stream_, " skips from ", next_ - 1, " to ", sequence,
          ": what came between is gone (trimmed); restore a checkpoint"));
    }
    next_ = sequence + 1;
    return LogRecord{
        .sequence = sequence,
        .data = std::string(natsMsg_GetData(msg), natsMsg_GetDataLength(msg)),
        .pending = pending};
  }

 public:
  // FAILED_PRECONDITION when the stream no longer holds what comes after
  // this reader's position (trimmed past it), or never held this reader's
  // past (a stream made anew): reading on would skip records silently.
  absl::Status CheckPosition() {
    ASSIGN_OR_RETURN(const auto bounds, Bounds());
    const auto [first, last] = bounds;
    if (next_ < first && first > 1) {
      return absl::FailedPreconditionError(absl::StrCat(
          "stream ", stream_, " now starts at ", first, ", after ", next_,
          ": what came between is gone; restore a checkpoint"));
    }
    if (next_ > last + 1) {
      return absl::FailedPreconditionError(absl::StrCat(
          "stream ", stream_, " ends at ", last, ", before ", next_ - 1,
          " that this reader had: the stream was made anew"));
    }
    return absl::OkStatus();
  }

 private:
  // The stream's first and last sequences.
  absl::StatusOr<std::pair<uint64_t, uint64_t>> Bounds() {
    jsStreamInfo* info = nullptr;
    jsErrCode js_error = static_cast<jsErrCode>(0);
    const natsStatus status =
        js_GetStreamInfo(&info, js_, stream_.c_str(), nullptr, &js_error);
    if (status != NATS_OK) {
      if (info != nullptr) jsStreamInfo_Destroy(info);
      return FromNats(status, js_error, absl::StrCat("stream ", stream_));
    }
    const std::pair<uint64_t, uint64_t> bounds = {info->State.FirstSeq,
                                                  info->State.LastSeq};
    jsStreamInfo_Destroy(info);
    return bounds;
  }

  // Whether the subject holds a record at or after next_.
  bool Behind() {
    if (subject_.find_first_of("*>") != std::string::npos) {
      // Every subject (or many): the stream's last record tells.
      const absl::StatusOr<std::pair<uint64_t, uint64_t>> bounds = Bounds();
      return !bounds.ok() || bounds->second >= next_;
    }
    natsMsg* last = nullptr;
    jsErrCode js_error = static_cast<jsErrCode>(0);
    const natsStatus status = js_GetLastMsg(
        &last, js_, stream_.c_str(), subject_.c_str(), nullptr, &js_error);
    if (status != NATS_OK) return status != NATS_NOT_FOUND;
    Message owned(last);
    return natsMsg_GetSequence(last) >= next_;
  }

  // Lets go of the consumer: deleted on the server (a request that waits
  // up to the request timeout when its server is gone) by the graveyard's
  // thread, not this one; one that cannot be deleted goes by its
  // inactivity threshold.
  void Drop() {
    if (sub_ == nullptr) return;
    graveyard_->Bury(sub_, /*unsubscribed=*/false);
    sub_ = nullptr;
  }

  jsCtx* const js_;
  Graveyard* const graveyard_;
  const absl::Duration request_timeout_;
  const std::string stream_;
  const std::string subject_;
  const bool every_record_;
  uint64_t next_;
  natsSubscription* sub_ = nullptr;
  int idle_waits_ = 0;
  uint64_t delivered_ = 0;     // the consumer's count of its last record
  int failed_subscribes_ = 0;  // since the last consumer made
};

// A handler subscribed to a subject; its destructor returns once the
// handler can no longer be called.
struct HandlerSubscription final : public cluster::Subscription {
  MessageHandler handler;
  natsSubscription* sub = nullptr;
  Graveyard* graveyard = nullptr;
  Mutex mu;
  CondVar done_cv;
  bool done ABSL_GUARDED_BY(mu) = false;

  ~HandlerSubscription() override {
    if (sub == nullptr) return;
    natsSubscription_Unsubscribe(sub);
    {
      MutexLock lock(&mu);
      while (!done) done_cv.Wait(&mu);
    }
    graveyard->Bury(sub, /*unsubscribed=*/true);
  }

  static void OnMessage(natsConnection*, natsSubscription*, natsMsg* msg,
                        void* closure) {
    Message owned(msg);
    const char* reply = natsMsg_GetReply(msg);
    static_cast<HandlerSubscription*>(closure)->handler(
        std::string_view(natsMsg_GetData(msg), natsMsg_GetDataLength(msg)),
        reply != nullptr ? std::string(reply) : std::string());
  }
  // After the subscription is closed and its handler returned.
  static void OnComplete(void* closure) {
    auto* self = static_cast<HandlerSubscription*>(closure);
    MutexLock lock(&self->mu);
    self->done = true;
    self->done_cv.SignalAll();
  }
};

constexpr absl::string_view kNoResponders = "no responders";

// What one request of many gathers (RequestEach, AppendMany), answer i of
// request i (ReplyMux).
struct Answers {
  Mutex mu;
  CondVar cv;
  std::vector<std::optional<absl::StatusOr<std::string>>> answers
      ABSL_GUARDED_BY(mu);

  size_t missing() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    return static_cast<size_t>(
        std::count(answers.begin(), answers.end(), std::nullopt));
  }
  void Set(size_t i, absl::StatusOr<std::string> answer) {
    MutexLock lock(&mu);
    if (i >= answers.size() || answers[i].has_value()) return;
    answers[i] = std::move(answer);
    cv.SignalAll();
  }
};

// The answers of every RequestEach of a log, on one subscription made once
// (<prefix>.<request>.<i>): a subscription per request would cost a round
// trip to the server and a delivery thread each time. An answer to a
// request no longer waited for is dropped.
struct ReplyMux {
  std::string prefix;
  Mutex mu;
  CondVar cv;
  std::map<uint64_t, Answers*> waiting ABSL_GUARDED_BY(mu);
  uint64_t next ABSL_GUARDED_BY(mu) = 0;
  bool done ABSL_GUARDED_BY(mu) = false;  // no callback runs any more

  static void OnMessage(natsConnection*, natsSubscription*, natsMsg* msg,
                        void* closure) {
    Message owned(msg);
    auto* self = static_cast<ReplyMux*>(closure);
    const std::string_view subject = natsMsg_GetSubject(msg);
    if (subject.size() <= self->prefix.size() + 1) return;
    const std::vector<absl::string_view> parts =
        absl::StrSplit(AbslView(subject.substr(self->prefix.size() + 1)), '.');
    uint64_t request = 0;
    size_t i = 0;
    if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &request) ||
        !absl::SimpleAtoi(parts[1], &i)) {
      return;
    }
    absl::StatusOr<std::string> answer =
        natsMsg_IsNoResponders(msg)
            ? absl::StatusOr<std::string>(absl::UnavailableError(kNoResponders))
            : std::string(natsMsg_GetData(msg), natsMsg_GetDataLength(msg));
    MutexLock lock(&self->mu);  // the request stays registered meanwhile
    auto it = self->waiting.find(request);
    if (it != self->waiting.end()) it->second->Set(i, std::move(answer));
  }
  static void OnComplete(void* closure) {
    auto* self = static_cast<ReplyMux*>(closure);
    MutexLock lock(&self->mu);
    self->done = true;
    self->cv.SignalAll();
  }
};

// Tells the log's owner of the connection dropping and coming back. The
// library calls on its own thread, also after Close returned: the owner
// waits for `closed` (the last call) before freeing this.
struct ConnectionEvents {
  std::function<void(const std::string&)> tell;
  Mutex mu;
  CondVar closed_cv;
  bool closed ABSL_GUARDED_BY(mu) = false;

  void WaitClosed() {
    MutexLock lock(&mu);
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!closed && closed_cv.WaitUntil(&mu, until)) {
    }
  }
};

// A resend of an append whose first send the stream is still storing is
// answered as a duplicate at sequence 0 (nats-server 2.9): not stored yet,
// so asked again.
absl::Status StillBeingStored(std::string_view where) {
  return absl::UnavailableError(
      absl::StrCat(AbslView(where),
                   ": an earlier send of this append is still being stored; "
                   "retry with the same append id"));
}

// An append's answer: the acknowledgement (freed here), or why none.
absl::StatusOr<Appended> AppendedOf(natsStatus status, jsPubAck* ack,
                                    jsErrCode js_error,
                                    std::string_view subject) {
  if (status != NATS_OK) {
    if (ack != nullptr) jsPubAck_Destroy(ack);
    return FromNats(status, js_error,
                    absl::StrCat("append to ", AbslView(subject)));
  }
  const Appended appended{.sequence = ack->Sequence,
                          .duplicate = ack->Duplicate};
  jsPubAck_Destroy(ack);
  if (appended.sequence == 0) {
    return StillBeingStored(absl::StrCat("append to ", AbslView(subject)));
  }
  return appended;
}

// A publish acknowledgement as JetStream sends it (JSON): {"stream": ...,
// "seq": N, "duplicate": true} or {"error": {"code": 503, "err_code": ...,
// "description": ...}}.
absl::StatusOr<Appended> PubAckOfJson(const nlohmann::json& ack,
                                      std::string_view where);
absl::StatusOr<Appended> PubAckOf(std::string_view json,
                                  std::string_view where) {
  const nlohmann::json ack = nlohmann::json::parse(json, nullptr, false);
  // A field of another type throws (anything in the account may publish to
  // the reply subject): an error, never the process's end.
  try {
    return PubAckOfJson(ack, where);
  } catch (const nlohmann::json::exception& e) {
    return absl::InternalError(absl::StrCat(
        AbslView(where), ": not an acknowledgement (", e.what(), ")"));
  }
}
absl::StatusOr<Appended> PubAckOfJson(const nlohmann::json& ack,
                                      std::string_view where) {
  if (ack.is_discarded() || !ack.is_object()) {
    return absl::InternalError(
        absl::StrCat(AbslView(where), ": not an acknowledgement"));
  }
  if (const auto error = ack.find("error"); error != ack.end()) {
    const int code = error->value("code", 0);
    const int js_code = error->value("err_code", 0);
    const std::string text = absl::StrCat(
        AbslView(where), ": ", error->value("description", std::string()),
        " (JetStream error ", js_code, ")");
    if (js_code == JSStreamWrongLastSequenceErr) {
      return absl::FailedPreconditionError(text);
    }
    if (js_code == JSStreamNotFoundErr) return absl::NotFoundError(text);
    // No leader, no quorum, being moved: what a retry outlasts.
    if (code == 503 || js_code == JSClusterNotAvailErr ||
        js_code == JSClusterNoPeersErr || js_code == JSStreamOfflineErr ||
        js_code == JSInsufficientResourcesErr) {
      return absl::UnavailableError(text);
    }
    return absl::InternalError(text);
  }
  const auto sequence = ack.find("seq");
  if (sequence == ack.end() || !sequence->is_number_unsigned()) {
    return absl::InternalError(
        absl::StrCat(AbslView(where), ": an acknowledgement without seq"));
  }
  if (sequence->get<uint64_t>() == 0) return StillBeingStored(where);
  return Appended{.sequence = sequence->get<uint64_t>(),
                  .duplicate = ack.value("duplicate", false)};
}

class JetStreamLogImpl final : public JetStreamLog {
 public:
  JetStreamLogImpl(std::unique_ptr<ConnectionEvents> events, Options options,
                   Connection connection, Context context,
                   absl::Duration timeout)
      : events_(std::move(events)),
        options_(std::move(options)),
        connection_(std::move(connection)),
        js_(std::move(context)),
        timeout_(timeout) {}

  ~JetStreamLogImpl() override {
    js_.reset();  // before the connection it uses
    if (connection_ != nullptr) natsConnection_Close(connection_.get());
    // The library's last calls (disconnected, closed) may still be queued.
    if (events_ != nullptr) events_->WaitClosed();
    MutexLock lock(&replies_mu_);
    if (replies_sub_ != nullptr) {
      {
        MutexLock mux_lock(&replies_.mu);
        while (!replies_.done) replies_.cv.Wait(&replies_.mu);
      }
      natsSubscription_Destroy(replies_sub_);
    }
  }

  absl::Status Ready() override {
    jsAccountInfo* info = nullptr;
    jsErrCode js_error = static_cast<jsErrCode>(0);
    const natsStatus status =
        js_GetAccountInfo(&info, js_.get(), nullptr, &js_error);
    if (info != nullptr) jsAccountInfo_Destroy(info);
    return FromNats(status, js_error, "JetStream account info");
  }

  absl::Status EnsureStream(const StreamSpec& spec) override {
    std::vector<const char*> subjects;
    for (const std::string& subject : spec.subjects) {
      subjects.push_back(subject.c_str());
    }
    jsStreamConfig config;
    jsStreamConfig_Init(&config);
    config.Name = spec.name.c_str();
    config.Subjects = subjects.data();
    config.SubjectsLen = static_cast<int>(subjects.size());
    config.Storage = js_FileStorage;
    config.Replicas = spec.replicas;
    config.Duplicates = absl::ToInt64Nanoseconds(spec.dedup_window);
    jsStreamInfo* info = nullptr;
    jsErrCode js_error = static_cast<jsErrCode>(0);
    const natsStatus status =
        js_AddStream(&info, js_.get(), &config, nullptr, &js_error);
    if (info != nullptr) jsStreamInfo_Destroy(info);
    if (js_error == JSStreamNameExistErr) {
      return absl::FailedPreconditionError(absl::StrCat(
          "stream ", spec.name, " exists with another configuration than ",
          spec.replicas, " replicas of subjects ",
          absl::StrJoin(spec.subjects, ",")));
    }
    return FromNats(status, js_error,
                    absl::StrCat("create stream ", spec.name));
  }

  absl::StatusOr<Appended> Append(std::string_view subject,
                                  std::string_view data,
                                  const AppendOptions& options) override {
    const std::string subject_text(subject);
    jsPubOptions publish;
    jsPubOptions_Init(&publish);
    publish.MaxWait = Millis(options.timeout > absl::ZeroDuration()
                                 ? std::min(options.timeout, timeout_)
                                 : timeout_);
    if (!options.append_id.empty()) publish.MsgId = options.append_id.c_str();
    if (!options.expected_last_sequence.has_value()) {
      jsPubAck* ack = nullptr;
      jsErrCode js_error = static_cast<jsErrCode>(0);
      const natsStatus status =
          js_Publish(&ack, js_.get(), subject_text.c_str(), data.data(),
                     static_cast<int>(data.size()), &publish, &js_error);
      return AppendedOf(status, ack, js_error, subject);
    }
    natsMsg* raw = nullptr;
    RETURN_IF_ERROR(
        FromNats(natsMsg_Create(&raw, subject_text.c_str(), nullptr,
                                data.data(), static_cast<int>(data.size())),
                 static_cast<jsErrCode>(0), "append message"));
    Message msg(raw);
    if (options.expected_last_sequence.has_value()) {
      // Set here rather than through ExpectLastSeq, which cannot say 0
      // (an empty stream): the server checks whatever the header holds.
      const std::string expected =
          absl::StrCat(*options.expected_last_sequence);
      RETURN_IF_ERROR(
          FromNats(natsMsgHeader_Set(msg.get(), "Nats-Expected-Last-Sequence",
                                     expected.c_str()),
                   static_cast<jsErrCode>(0), "append header"));
    }
    jsPubAck* ack = nullptr;
    jsErrCode js_error = static_cast<jsErrCode>(0);
    const natsStatus status =
        js_PublishMsg(&ack, js_.get(), msg.get(), &publish, &js_error);
    return AppendedOf(status, ack, js_error, subject);
  }

  absl::Status EnsureBucket(std::string_view bucket, int replicas,
                            absl::Duration ttl) override {
    const std::string name(bucket);
    kvConfig config;
    kvConfig_Init(&config);
    config.Bucket = name.c_str();
    config.History = 1;
    config.Replicas = replicas;
    config.TTL = absl::ToInt64Nanoseconds(ttl);  // the stream's MaxAge
    config.StorageType = js_FileStorage;
    kvStore* kv = nullptr;
    natsStatus status = js_CreateKeyValue(&kv, js_.get(), &config);
    if (status != NATS_OK) {
      // An existing bucket of another config is refused by create: open it.
      kv = nullptr;
      status = js_KeyValue(&kv, js_.get(), name.c_str());
    }
    if (kv != nullptr) kvStore_Destroy(kv);
    return FromNats(status, static_cast<jsErrCode>(0),
                    absl::StrCat("key-value bucket ", name));
  }

  absl::Status CreateKey(std::string_view bucket, std::string_view key,
                         std::string_view value) override {
    ASSIGN_OR_RETURN(Bucket kv, OpenBucket(bucket));
    const std::string key_text(key);
    uint64_t revision = 0;
    const natsStatus status =
        kvStore_Create(&revision, kv.get(), key_text.c_str(), value.data(),
                       static_cast<int>(value.size()));
    if (status == NATS_ERR) {
      // The library says "wrong last sequence" only in its text; a create
      // fails so when the key has a value.
      const std::string text = nats_GetLastError(nullptr);
      if (text.find("wrong last sequence") != std::string::npos) {
        return absl::AlreadyExistsError(absl::StrCat(
            "key ", key_text, " of ", AbslView(bucket), " has a value"));
      }
    }
    return FromNats(status, static_cast<jsErrCode>(0),
                    absl::StrCat("create key ", key_text));
  }

  absl::Status PutKey(std::string_view bucket, std::string_view key,
                      std::string_view value) override {
    ASSIGN_OR_RETURN(Bucket kv, OpenBucket(bucket));
    const std::string key_text(key);
    uint64_t revision = 0;
    return FromNats(kvStore_Put(&revision, kv.get(), key_text.c_str(),
                                value.data(), static_cast<int>(value.size())),
                    static_cast<jsErrCode>(0),
                    absl::StrCat("put key ", key_text));
  }

  // Read from the bucket stream's leader: kvStore_Get asks for a direct
  // get, which any replica may answer, and one that has not applied a put
  // acknowledged a moment ago answers the value before it.
  absl::StatusOr<std::optional<std::string>> GetKey(
      std::string_view bucket, std::string_view key) override {
    ASSIGN_OR_RETURN(Bucket kv, OpenBucket(bucket));  // a missing bucket
    const std::string stream = absl::StrCat("KV_", AbslView(bucket));
    const std::string subject =
        absl::StrCat("$KV.", AbslView(bucket), ".", AbslView(key));
    natsMsg* last = nullptr;
    jsErrCode js_error = static_cast<jsErrCode>(0);
    const natsStatus status = js_GetLastMsg(
        &last, js_.get(), stream.c_str(), subject.c_str(), nullptr, &js_error);
    if (status == NATS_NOT_FOUND) {
      if (last != nullptr) natsMsg_Destroy(last);
      return std::nullopt;
    }
    if (status != NATS_OK) {
      if (last != nullptr) natsMsg_Destroy(last);
      return FromNats(status, js_error,
                      absl::StrCat("get key ", AbslView(key)));
    }
    Message owned(last);
    // A delete or purge marker: the key has no value.
    const char* operation = nullptr;
    if (natsMsgHeader_Get(last, "KV-Operation", &operation) == NATS_OK) {
      return std::nullopt;
    }
    return std::string(natsMsg_GetData(last), natsMsg_GetDataLength(last));
  }

  absl::StatusOr<std::vector<std::string>> Keys(
      std::string_view bucket, std::string_view key_prefix) override {
    // From the bucket's stream's subjects: kvStore_Keys would make and free
    // a watcher subscription each time (see Graveyard).
    const std::string stream = absl::StrCat("KV_", AbslView(bucket));
    const std::string prefix = absl::StrCat("$KV.", AbslView(bucket), ".");
    const std::string filter = prefix + ">";
    const std::string wanted = absl::StrCat(prefix, AbslView(key_prefix));
    jsOptions options;
    jsOptions_Init(&options);
    options.Stream.Info.SubjectsFilter = filter.c_str();
    jsStreamInfo* info = nullptr;
    jsErrCode js_error = static_cast<jsErrCode>(0);
    const natsStatus status =
        js_GetStreamInfo(&info, js_.get(), stream.c_str(), &options, &js_error);
    if (status != NATS_OK) {
      if (info != nullptr) jsStreamInfo_Destroy(info);
      absl::Status failed = FromNats(
          status, js_error, absl::StrCat("keys of ", AbslView(bucket)));
      if (absl::IsNotFound(failed)) return std::vector<std::string>();
      return failed;
    }
    // Every key with a value: the registry never deletes one, and a key
    // past its TTL is gone from the stream.
    std::vector<std::string> keys;
    if (info->State.Subjects != nullptr) {
      for (int i = 0; i < info->State.Subjects->Count; ++i) {
        const std::string_view subject = info->State.Subjects->List[i].Subject;
        if (subject.starts_with(wanted)) {
          keys.emplace_back(subject.substr(prefix.size()));
        }
      }
    }
    jsStreamInfo_Destroy(info);
    std::sort(keys.begin(), keys.end());
    return keys;
  }

  absl::StatusOr<uint64_t> LastSequence(std::string_view stream) override {
    ASSIGN_OR_RETURN(const Bounds bounds, BoundsOf(stream));
    return bounds.last;
  }

  absl::StatusOr<Bounds> BoundsOf(std::string_view stream) override {
    const std::string name(stream);
    jsStreamInfo* info = nullptr;
    jsErrCode js_error = static_cast<jsErrCode>(0);
    const natsStatus status =
        js_GetStreamInfo(&info, js_.get(), name.c_str(), nullptr, &js_error);
    if (status != NATS_OK) {
      if (info != nullptr) jsStreamInfo_Destroy(info);
      return FromNats(status, js_error, absl::StrCat("stream ", name));
    }
    const Bounds bounds{.first = info->State.FirstSeq,
                        .last = info->State.LastSeq};
    jsStreamInfo_Destroy(info);
    // An empty stream says first 0 before its first record.
    return Bounds{.first = std::max(bounds.first, uint64_t{1}),
                  .last = bounds.last};
  }

  absl::Status Trim(std::string_view stream, uint64_t sequence) override {
    const std::string name(stream);
    jsOptions options;
    jsOptions_Init(&options);
    options.Stream.Purge.Sequence = sequence;
    jsErrCode js_error = static_cast<jsErrCode>(0);
    return FromNats(
        js_PurgeStream(js_.get(), name.c_str(), &options, &js_error), js_error,
        absl::StrCat("trim stream ", name));
  }

  absl::StatusOr<std::unique_ptr<cluster::Subscription>> Subscribe(
      std::string_view subject, std::string_view queue_group,
      MessageHandler handler) override {
    auto subscription = std::make_unique<HandlerSubscription>();
    subscription->handler = std::move(handler);
    const std::string subject_text(subject);
    const std::string queue_text(queue_group);
    natsSubscription* sub = nullptr;
    const natsStatus status =
        queue_text.empty()
            ? natsConnection_Subscribe(
                  &sub, connection_.get(), subject_text.c_str(),
                  &HandlerSubscription::OnMessage, subscription.get())
            : natsConnection_QueueSubscribe(
                  &sub, connection_.get(), subject_text.c_str(),
                  queue_text.c_str(), &HandlerSubscription::OnMessage,
                  subscription.get());
    if (status != NATS_OK) {
      if (sub != nullptr) natsSubscription_Destroy(sub);
      return FromNats(status, static_cast<jsErrCode>(0),
                      absl::StrCat("subscribe to ", subject_text));
    }
    const natsStatus completes = natsSubscription_SetOnCompleteCB(
        sub, &HandlerSubscription::OnComplete, subscription.get());
    if (completes != NATS_OK) {
      // Closed already (the connection closed): no handler runs any more.
      graveyard_.Bury(sub, /*unsubscribed=*/false);
      return FromNats(completes, static_cast<jsErrCode>(0),
                      absl::StrCat("subscribe to ", subject_text));
    }
    subscription->sub = sub;
    subscription->graveyard = &graveyard_;
    return subscription;
  }

  absl::Status Publish(std::string_view subject,
                       std::string_view data) override {
    const std::string subject_text(subject);
    return FromNats(
        natsConnection_Publish(connection_.get(), subject_text.c_str(),
                               data.data(), static_cast<int>(data.size())),
        static_cast<jsErrCode>(0), absl::StrCat("publish to ", subject_text));
  }

  std::vector<absl::StatusOr<std::string>> RequestEach(
      std::span<const std::string> subjects, std::string_view data,
      absl::Time deadline) override {
    std::vector<std::optional<absl::StatusOr<std::string>>> answers = Gather(
        subjects.size(),
        [&](size_t i, const std::string& reply) {
          return FromNats(
              natsConnection_PublishRequest(
                  connection_.get(), subjects[i].c_str(), reply.c_str(),
                  data.data(), static_cast<int>(data.size())),
              static_cast<jsErrCode>(0),
              absl::StrCat("request to ", subjects[i]));
        },
        deadline);
    std::vector<absl::StatusOr<std::string>> out;
    for (size_t i = 0; i < subjects.size(); ++i) {
      std::optional<absl::StatusOr<std::string>>& answer = answers[i];
      if (!answer.has_value()) {
        out.push_back(absl::DeadlineExceededError(
            absl::StrCat("no answer from ", subjects[i], " by the deadline")));
      } else if (answer->status().code() == absl::StatusCode::kUnavailable &&
                 answer->status().message() == kNoResponders) {
        out.push_back(absl::UnavailableError(
            absl::StrCat("nobody answers ", subjects[i])));
      } else {
        out.push_back(*std::move(answer));
      }
    }
    return out;
  }

  std::vector<absl::StatusOr<Appended>> AppendMany(
      std::span<const AppendItem> items, absl::Time deadline) override {
    // What js_Publish sends, a request to the subject with the append's id
    // in a header, made by hand: the library's asynchronous publishing
    // would answer through one handler per context.
    std::vector<std::optional<absl::StatusOr<std::string>>> answers = Gather(
        items.size(),
        [&](size_t i, const std::string& reply) -> absl::Status {
          const std::string subject(items[i].subject);
          natsMsg* raw = nullptr;
          RETURN_IF_ERROR(
              FromNats(natsMsg_Create(&raw, subject.c_str(), reply.c_str(),
                                      items[i].data.data(),
                                      static_cast<int>(items[i].data.size())),
                       static_cast<jsErrCode>(0), "append message"));
          Message msg(raw);
          if (!items[i].append_id.empty()) {
            const std::string id(items[i].append_id);
            RETURN_IF_ERROR(FromNats(
                natsMsgHeader_Set(msg.get(), "Nats-Msg-Id", id.c_str()),
                static_cast<jsErrCode>(0), "append header"));
          }
          return FromNats(
              natsConnection_PublishMsg(connection_.get(), msg.get()),
              static_cast<jsErrCode>(0), "send");
        },
        deadline);
    std::vector<absl::StatusOr<Appended>> out;
    for (size_t i = 0; i < items.size(); ++i) {
      const std::string where =
          absl::StrCat("append to ", AbslView(items[i].subject));
      std::optional<absl::StatusOr<std::string>>& answer = answers[i];
      if (!answer.has_value()) {
        out.push_back(absl::UnavailableError(absl::StrCat(
            where,
            ": no acknowledgement by the deadline (it may be stored: "
            "retry with the same append id)")));
      } else if (!answer->ok()) {
        out.push_back(absl::Status(
            answer->status().code(),
            absl::StrCat(where, ": ", answer->status().message())));
      } else {
        out.push_back(PubAckOf(**answer, where));
      }
    }
    return out;
  }

  // Sends `n` requests (`send(i, reply subject)`) whose answers come to
  // this log's reply subscription, and gathers them until `deadline`
  // (nullopt: none came). A send that fails is its request's answer.
  std::vector<std::optional<absl::StatusOr<std::string>>> Gather(
      size_t n,
      const std::function<absl::Status(size_t, const std::string&)>& send,
      absl::Time deadline) {
    // A request sent while reconnecting would only wait out its deadline
    // (and its answer, if any, is lost with the connection).
    if (natsConnection_Status(connection_.get()) !=
        NATS_CONN_STATUS_CONNECTED) {
      return std::vector<std::optional<absl::StatusOr<std::string>>>(
          n, absl::UnavailableError("not connected to a NATS server"));
    }
    Answers answers;
    {
      MutexLock lock(&answers.mu);
      answers.answers.assign(n, std::nullopt);
    }
    absl::StatusOr<uint64_t> request = StartRequest(answers);
    if (!request.ok()) {
      return std::vector<std::optional<absl::StatusOr<std::string>>>(
          n, request.status());
    }
    for (size_t i = 0; i < n; ++i) {
      const std::string reply =
          absl::StrCat(replies_.prefix, ".", *request, ".", i);
      if (absl::Status sent = send(i, reply); !sent.ok()) answers.Set(i, sent);
    }
    {
      MutexLock lock(&answers.mu);
      const auto until =
          std::chrono::steady_clock::now() +
          absl::ToChronoMilliseconds(std::clamp(
              deadline - absl::Now(), absl::ZeroDuration(), absl::Hours(24)));
      while (answers.missing() > 0 &&
             answers.cv.WaitUntil(&answers.mu, until)) {
      }
    }
    {
      // No callback touches `answers` once it is unregistered.
      MutexLock lock(&replies_.mu);
      replies_.waiting.erase(*request);
    }
    MutexLock lock(&answers.mu);
    return std::move(answers.answers);
  }

  // Registers `answers` for the answers of a new request (the shared
  // subscription made on first use): the request's number.
  absl::StatusOr<uint64_t> StartRequest(Answers& answers) {
    {
      MutexLock lock(&replies_mu_);
      if (replies_sub_ == nullptr) {
        natsInbox* inbox = nullptr;
        RETURN_IF_ERROR(FromNats(natsInbox_Create(&inbox),
                                 static_cast<jsErrCode>(0), "inbox"));
        replies_.prefix = inbox;
        natsInbox_Destroy(inbox);
        natsSubscription* sub = nullptr;
        const natsStatus made = natsConnection_Subscribe(
            &sub, connection_.get(), (replies_.prefix + ".>").c_str(),
            &ReplyMux::OnMessage, &replies_);
        if (made != NATS_OK) {
          if (sub != nullptr) natsSubscription_Destroy(sub);
          return FromNats(made, static_cast<jsErrCode>(0),
                          "subscribe to an inbox");
        }
        // Every request's answers pass here: none is dropped for a slow
        // consumer (its request would wait out its deadline).
        natsSubscription_SetPendingLimits(sub, -1, -1);
        if (natsSubscription_SetOnCompleteCB(sub, &ReplyMux::OnComplete,
                                             &replies_) != NATS_OK) {
          // Closed already: nothing more is delivered.
          MutexLock mux_lock(&replies_.mu);
          replies_.done = true;
        }
        replies_sub_ = sub;
      }
    }
    MutexLock lock(&replies_.mu);
    if (replies_.done) {
      return absl::UnavailableError("the NATS connection closed");
    }
    const uint64_t request = replies_.next++;
    replies_.waiting[request] = &answers;
    return request;
  }

  size_t MaxMessageBytes() override {
    const int64_t max = natsConnection_GetMaxPayload(connection_.get());
    return max > 0 ? static_cast<size_t>(max) : size_t{1} << 20;
  }

  absl::StatusOr<std::unique_ptr<LogReader>> Read(std::string_view stream,
                                                  std::string_view subject,
                                                  uint64_t start_sequence,
                                                  bool every_record) override {
    if (start_sequence == 0) {
      return absl::InvalidArgumentError("a log is read from sequence 1 on");
    }
    auto reader = std::make_unique<JetStreamReader>(
        js_.get(), &graveyard_, std::string(stream), std::string(subject),
        start_sequence, every_record, timeout_);
    // A missing or trimmed stream is said now, not at the first Next.
    RETURN_IF_ERROR(reader->CheckPosition());
    return reader;
  }

 private:
  using Bucket = std::unique_ptr<kvStore, Deleter<kvStore, kvStore_Destroy>>;
  absl::StatusOr<Bucket> OpenBucket(std::string_view bucket) {
    const std::string name(bucket);
    kvStore* kv = nullptr;
    const natsStatus status = js_KeyValue(&kv, js_.get(), name.c_str());
    if (status != NATS_OK) {
      if (kv != nullptr) kvStore_Destroy(kv);
      return FromNats(status, static_cast<jsErrCode>(0),
                      absl::StrCat("key-value bucket ", name));
    }
    return Bucket(kv);
  }

  // Every RequestEach's answers (made on first use; freed after the
  // connection closed).
  Mutex replies_mu_;
  ReplyMux replies_;
  natsSubscription* replies_sub_ ABSL_GUARDED_BY(replies_mu_) = nullptr;
  std::unique_ptr<ConnectionEvents> events_;  // outlives the connection
  Options options_;
  Connection connection_;
  Context js_;
  const absl::Duration timeout_;
  // After the connection (freed before it), and closed down after it is
  // closed (the destructor's body).
  Graveyard graveyard_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<JetStreamLog>> JetStreamLog::Connect(
    const LogOptions& options) {
  if (options.servers.empty()) {
    return absl::InvalidArgumentError("no NATS server to connect to");
  }
  natsOptions* raw_options = nullptr;
  RETURN_IF_ERROR(FromNats(natsOptions_Create(&raw_options),
                           static_cast<jsErrCode>(0), "NATS options"));
  Options nats_options(raw_options);
  std::vector<const char*> servers;
  for (const std::string& server : options.servers) {
    servers.push_back(server.c_str());
  }
  const jsErrCode none = static_cast<jsErrCode>(0);
  RETURN_IF_ERROR(
      FromNats(natsOptions_SetServers(nats_options.get(), servers.data(),
                                      static_cast<int>(servers.size())),
               none, "NATS servers"));
  // Forever, quickly: a server's death must not end the process's log.
  RETURN_IF_ERROR(FromNats(natsOptions_SetMaxReconnect(nats_options.get(), -1),
                           none, "NATS reconnects"));
  RETURN_IF_ERROR(
      FromNats(natsOptions_SetReconnectWait(nats_options.get(), 250), none,
               "NATS reconnect wait"));
  RETURN_IF_ERROR(
      FromNats(natsOptions_SetTimeout(nats_options.get(),
                                      Millis(options.request_timeout)),
               none, "NATS timeout"));
  // A request in flight when the connection drops fails then instead of
  // waiting out its timeout. (One made while reconnecting is buffered and
  // sent on reconnection: an append that timed out may still be stored.)
  RETURN_IF_ERROR(FromNats(
      natsOptions_SetFailRequestsOnDisconnect(nats_options.get(), true), none,
      "NATS requests on disconnect"));
  // Requests between nodes and their replies go out at once: by default
  // the library holds a publish back for about a millisecond to batch it
  // with others, which a shard's request and its reply each paid (a
  // sharded query took 2 ms on an idle cluster).
  RETURN_IF_ERROR(FromNats(natsOptions_SetSendAsap(nats_options.get(), true),
                           none, "NATS send at once"));
  // Told of the connection dropping and coming back: the callback is
  // copied to the heap and freed with the log, after its connection.
  std::unique_ptr<ConnectionEvents> events;
  if (options.on_connection) {
    events = std::make_unique<ConnectionEvents>();
    events->tell = options.on_connection;
    RETURN_IF_ERROR(
        FromNats(natsOptions_SetDisconnectedCB(
                     nats_options.get(),
                     +[](natsConnection* nc, void* closure) {
                       // Not when this side closed it.
                       if (natsConnection_IsClosed(nc)) return;
                       static_cast<ConnectionEvents*>(closure)->tell(
                           "lost the connection to the NATS servers");
                     },
                     events.get()),
                 none, "NATS disconnect handler"));
    RETURN_IF_ERROR(
        FromNats(natsOptions_SetReconnectedCB(
                     nats_options.get(),
                     +[](natsConnection* nc, void* closure) {
                       char url[256] = {};
                       natsConnection_GetConnectedUrl(nc, url, sizeof(url) - 1);
                       static_cast<ConnectionEvents*>(closure)->tell(
                           absl::StrCat("connected to NATS again, at ", url));
                     },
                     events.get()),
                 none, "NATS reconnect handler"));
    RETURN_IF_ERROR(FromNats(natsOptions_SetClosedCB(
                                 nats_options.get(),
                                 +[](natsConnection*, void* closure) {
                                   auto* self =
                                       static_cast<ConnectionEvents*>(closure);
                                   MutexLock lock(&self->mu);
                                   self->closed = true;
                                   self->closed_cv.SignalAll();
                                 },
                                 events.get()),
                             none, "NATS close handler"));
  }
  natsConnection* raw_connection = nullptr;
  RETURN_IF_ERROR(FromNats(
      natsConnection_Connect(&raw_connection, nats_options.get()), none,
      absl::StrCat("connect to NATS (", absl::StrJoin(options.servers, ","),
                   ")")));
  Connection connection(raw_connection);
  jsOptions js_options;
  jsOptions_Init(&js_options);
  js_options.Wait = Millis(options.request_timeout);
  jsCtx* raw_js = nullptr;
  if (absl::Status made = FromNats(
          natsConnection_JetStream(&raw_js, connection.get(), &js_options),
          none, "JetStream context");
      !made.ok()) {
    natsConnection_Close(connection.get());
    if (events != nullptr) events->WaitClosed();
    return made;
  }
  return std::make_unique<JetStreamLogImpl>(
      std::move(events), std::move(nats_options), std::move(connection),
      Context(raw_js), options.request_timeout);
}

}  // namespace neardup::cluster
