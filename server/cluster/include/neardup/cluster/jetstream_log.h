#ifndef NEARDUP_CLUSTER_JETSTREAM_LOG_H_
#define NEARDUP_CLUSTER_JETSTREAM_LOG_H_

// The cluster's replicated log, on NATS JetStream (docs/cluster.md): a
// stream per collection, a subject per shard. Append returns once a quorum
// of NATS servers stored the record; a reader delivers one subject's records
// in stream order from a sequence, across server failures. Thread-safe:
// one JetStreamLog serves every thread; a LogReader is one thread's.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace neardup::cluster {

struct LogOptions {
  // nats://host:port of every NATS server; any reachable one will do.
  std::vector<std::string> servers;
  // How long a request (an append, a stream lookup) may wait for its answer
  // before it is UNAVAILABLE.
  absl::Duration request_timeout = absl::Seconds(5);
  // Told when the connection to the NATS servers drops and comes back (on
  // the library's thread; for the server's log). Must outlive the log.
  std::function<void(const std::string& what)> on_connection = nullptr;
};

struct StreamSpec {
  std::string name;  // [A-Za-z0-9_-]
  std::vector<std::string> subjects;
  int replicas = 3;  // NATS servers holding each record: 1, 3 or 5
  // Appends carrying an append_id seen within this window are answered
  // with the first one's sequence instead of being stored again.
  absl::Duration dedup_window = absl::Minutes(2);
};

struct AppendOptions {
  // Stored only while the stream's last sequence (over all its subjects)
  // is this one (0: the stream is empty); FAILED_PRECONDITION otherwise.
  // nullopt: unconditional.
  std::optional<uint64_t> expected_last_sequence = std::nullopt;
  // Names the append, so that retrying it after UNAVAILABLE stores it once
  // (within the stream's dedup_window). Empty: no such protection.
  std::string append_id = {};
  // How long to wait for the quorum's acknowledgement; zero: the log's
  // request_timeout.
  absl::Duration timeout = absl::ZeroDuration();
};

struct Appended {
  uint64_t sequence = 0;
  bool duplicate = false;  // an earlier append with the same append_id
};

// One append of AppendMany.
struct AppendItem {
  std::string_view subject;
  std::string_view data;
  std::string_view append_id;  // as AppendOptions::append_id
};

struct LogRecord {
  uint64_t sequence = 0;
  std::string data;
  // Records of the subject after this one, as the log counted when it
  // delivered it (how far behind the reader is).
  uint64_t pending = 0;
};

class LogReader {
 public:
  virtual ~LogReader() = default;
  // The next record of the subject, in stream order, or nullopt when none
  // arrived within `wait` (counted once its consumer exists). Never a
  // record twice or out of order; a record lost on the way (the NATS
  // server it read from died) shows as a gap in the consumer's count, and
  // the reader starts a consumer anew from its position.
  virtual absl::StatusOr<std::optional<LogRecord>> Next(
      absl::Duration wait) = 0;
};

// While alive, a subscription's handler is called; once destroyed, it is
// not called again (a call under way has returned).
class Subscription {
 public:
  virtual ~Subscription() = default;
};
// A message of a subscription: its bytes, and where to send the answer
// ("" when the sender wants none). Called on a NATS thread: hand anything
// that may wait to another thread.
using MessageHandler =
    std::function<void(std::string_view data, std::string reply_to)>;

class JetStreamLog {
 public:
  // UNAVAILABLE when no server answers within the request timeout.
  static absl::StatusOr<std::unique_ptr<JetStreamLog>> Connect(
      const LogOptions& options);
  virtual ~JetStreamLog() = default;

  // OK once JetStream has a leader and answers (UNAVAILABLE before).
  virtual absl::Status Ready() = 0;
  // Creates the stream, or checks that an existing one has this spec
  // (FAILED_PRECONDITION naming the difference otherwise).
  virtual absl::Status EnsureStream(const StreamSpec& spec) = 0;
  // UNAVAILABLE when no quorum stored it in time: it may or may not be
  // stored, so retry with the same append_id. FAILED_PRECONDITION when
  // expected_last_sequence no longer holds (message: the stream's last).
  virtual absl::StatusOr<Appended> Append(std::string_view subject,
                                          std::string_view data,
                                          const AppendOptions& options) = 0;
  // Sends every item at once, in order, then waits for their
  // acknowledgements until `deadline` (one round trip for all instead of
  // one each): each answer as Append's, UNAVAILABLE for one unanswered by
  // then. The stream stores them in the order sent, except across a
  // failure: an item may be stored while one before it failed (its leader
  // changed in between), so items whose order matters among themselves
  // must not be sent together.
  virtual std::vector<absl::StatusOr<Appended>> AppendMany(
      std::span<const AppendItem> items, absl::Time deadline) = 0;
  // A key-value bucket (JetStream's), its entries replicated like a
  // stream's. Created, or opened when it exists.
  // With a `ttl`, a key's value is gone that long after it was written
  // (zero: kept). An existing bucket is opened as it is.
  virtual absl::Status EnsureBucket(
      std::string_view bucket, int replicas,
      absl::Duration ttl = absl::ZeroDuration()) = 0;
  // Stores `value` under `key` unless the key has one: ALREADY_EXISTS then
  // (the first writer wins; read it with GetKey). Keys: [-/_=.A-Za-z0-9]+.
  virtual absl::Status CreateKey(std::string_view bucket, std::string_view key,
                                 std::string_view value) = 0;
  // Stores `value` under `key`, replacing any.
  virtual absl::Status PutKey(std::string_view bucket, std::string_view key,
                              std::string_view value) = 0;
  // nullopt for a key without a value. May lag a write made through another
  // server by a moment.
  virtual absl::StatusOr<std::optional<std::string>> GetKey(
      std::string_view bucket, std::string_view key) = 0;
  // Every key with a value that starts with `prefix`, sorted.
  virtual absl::StatusOr<std::vector<std::string>> Keys(
      std::string_view bucket, std::string_view prefix) = 0;

  // The stream's last sequence (0 while empty); NOT_FOUND for no stream.
  virtual absl::StatusOr<uint64_t> LastSequence(std::string_view stream) = 0;
  // The first sequence the stream still holds (after Trim; last + 1 while
  // it holds none) and its last.
  struct Bounds {
    uint64_t first = 0;
    uint64_t last = 0;
  };
  virtual absl::StatusOr<Bounds> BoundsOf(std::string_view stream) = 0;
  // Removes every record before `sequence` (the stream keeps counting):
  // readers positioned before it get FAILED_PRECONDITION.
  virtual absl::Status Trim(std::string_view stream, uint64_t sequence) = 0;
  // Messages between nodes over the log's connection (NATS core: at most
  // once, to whoever listens now). With a `queue_group`, each message goes
  // to one of the group's subscribers.
  virtual absl::StatusOr<std::unique_ptr<Subscription>> Subscribe(
      std::string_view subject, std::string_view queue_group,
      MessageHandler handler) = 0;
  virtual absl::Status Publish(std::string_view subject,
                               std::string_view data) = 0;
  // Sends `data` to each subject as a request, at once, and gathers one
  // answer each: UNAVAILABLE for a subject nobody listens to,
  // DEADLINE_EXCEEDED for one that did not answer by `deadline`.
  virtual std::vector<absl::StatusOr<std::string>> RequestEach(
      std::span<const std::string> subjects, std::string_view data,
      absl::Time deadline) = 0;
  // The largest message the NATS servers take (their max_payload).
  virtual size_t MaxMessageBytes() = 0;

  // Reads `subject` of `stream` from `start_sequence` (>= 1) on (a
  // wildcard, "<stream>.*", reads every subject). The reader must not
  // outlive this log. FAILED_PRECONDITION (now, or from
  // Next) when the stream no longer holds what comes after start_sequence
  // (trimmed past it) or ends before it (made anew).
  // `every_record`: the subject covers every record of the stream (a
  // wildcard over its subjects, or its only one), so a record missing
  // between two read (trimmed while reading) is FAILED_PRECONDITION too.
  virtual absl::StatusOr<std::unique_ptr<LogReader>> Read(
      std::string_view stream, std::string_view subject,
      uint64_t start_sequence, bool every_record) = 0;
  absl::StatusOr<std::unique_ptr<LogReader>> Read(std::string_view stream,
                                                  std::string_view subject,
                                                  uint64_t start_sequence) {
    return Read(stream, subject, start_sequence, /*every_record=*/false);
  }
};

}  // namespace neardup::cluster

#endif  // NEARDUP_CLUSTER_JETSTREAM_LOG_H_
