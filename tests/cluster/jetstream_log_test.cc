// The replicated log against three real nats-server processes with
// JetStream on loopback: order, conditional and idempotent appends, and what
// one and two dead servers do to writers and readers.

#include "neardup/cluster/jetstream_log.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cluster/cluster_test_util.h"
#include "cluster/nats_cluster.h"
#include "neardup/base/absl_compat.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace neardup::cluster {
namespace {

using ::neardup::testing::NatsCluster;
using ::neardup::testing::StatusIs;
using ::neardup::testing::WaitUntil;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr auto kStartup = neardup::testing::kClusterStartup;

class JetStreamLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_.StartAll();
    ASSERT_TRUE(cluster_.WaitHealthy(kStartup)) << cluster_.Logs();
    ASSERT_OK_AND_ASSIGN(log_, neardup::testing::ConnectWhenReady(cluster_));
    ASSERT_OK(log_->EnsureStream(
        {.name = "docs", .subjects = {"docs.s0", "docs.s1"}, .replicas = 3}));
    // Until the new stream has a leader (its info comes from it): a test's
    // first append could otherwise meet "no responders" (UNAVAILABLE) where
    // it expects the stream's own answer (seen under a loaded suite).
    ASSERT_TRUE(
        WaitUntil([&] { return log_->BoundsOf("docs").ok(); }, kStartup));
  }

  // Appends until one succeeds (a leader may be being elected).
  absl::StatusOr<Appended> AppendEventually(const std::string& subject,
                                            const std::string& data,
                                            const std::string& id) {
    absl::StatusOr<Appended> appended;
    WaitUntil(
        [&] {
          appended = log_->Append(subject, data, {.append_id = id});
          return appended.ok() || !absl::IsUnavailable(appended.status());
        },
        kStartup);
    return appended;
  }

  // Every record of `reader` until none comes for `quiet`.
  // The `expected` records the reader should hand out, each waited for as
  // long as a loaded machine may need, then whatever else comes within a
  // quiet period (so extras show up in the comparison).
  static std::vector<std::string> Drain(LogReader& reader, size_t expected) {
    std::vector<std::string> out;
    while (true) {
      const absl::Duration wait =
          out.size() < expected ? absl::Seconds(30) : absl::Milliseconds(300);
      absl::StatusOr<std::optional<LogRecord>> next = reader.Next(wait);
      EXPECT_OK(next);
      if (!next.ok() || !next->has_value()) return out;
      out.push_back((*next)->data);
    }
  }

  neardup::testing::TempDir temp_;
  NatsCluster cluster_{temp_.path(), 3};
  std::unique_ptr<JetStreamLog> log_;
};

// Another process took a server's port before it bound it: the server is
// started again elsewhere and the cluster still forms (CI saw this).
TEST(NatsClusterTest, AServerWhosePortWasTakenStartsAgainOnNewPorts) {
  neardup::testing::TempDir temp;
  NatsCluster cluster(temp.path(), 3);
  const int squatter = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(cluster.route_port(1));
  ASSERT_EQ(bind(squatter, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)),
            0);
  ASSERT_EQ(listen(squatter, 1), 0);
  const int taken = cluster.route_port(1);
  cluster.StartAll();
  ASSERT_TRUE(cluster.WaitHealthy(kStartup)) << cluster.Logs();
  close(squatter);
  EXPECT_NE(cluster.route_port(1), taken);
  EXPECT_THAT(cluster.Logs(),
              ::testing::ContainsRegex("nats n1 \\(pid [0-9]+\\) exited"));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<JetStreamLog> log,
                       neardup::testing::ConnectWhenReady(cluster));
  EXPECT_OK(
      log->EnsureStream({.name = "s", .subjects = {"s.0"}, .replicas = 3}));
}

TEST_F(JetStreamLogTest, ReadsOneSubjectInStreamOrderFromASequence) {
  std::vector<uint64_t> s0_sequences;
  for (int i = 0; i < 6; ++i) {
    const std::string subject = i % 2 == 0 ? "docs.s0" : "docs.s1";
    ASSERT_OK_AND_ASSIGN(const Appended appended,
                         log_->Append(subject, absl::StrCat("r", i), {}));
    EXPECT_EQ(appended.sequence, static_cast<uint64_t>(i + 1));
    if (i % 2 == 0) s0_sequences.push_back(appended.sequence);
  }
  ASSERT_OK_AND_ASSIGN(const uint64_t last, log_->LastSequence("docs"));
  EXPECT_EQ(last, 6u);
  ASSERT_OK_AND_ASSIGN(auto all, log_->Read("docs", "docs.s0", 1));
  EXPECT_THAT(Drain(*all, 3), ElementsAre("r0", "r2", "r4"));
  // From the second s0 record's sequence: the rest only.
  ASSERT_OK_AND_ASSIGN(auto rest,
                       log_->Read("docs", "docs.s0", s0_sequences[1]));
  ASSERT_OK_AND_ASSIGN(std::optional<LogRecord> first,
                       rest->Next(absl::Seconds(2)));
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->sequence, s0_sequences[1]);
  EXPECT_EQ(first->data, "r2");
  // A reader waits for what comes later.
  ASSERT_OK(log_->Append("docs.s0", "r6", {}).status());
  EXPECT_THAT(Drain(*rest, 2), ElementsAre("r4", "r6"));
  EXPECT_THAT(log_->Read("nope", "nope.s0", 1).status(),
              StatusIs(absl::StatusCode::kNotFound, ::testing::_));
}

// Every subject at once ("docs.*"): what a replica of one shard reads, so
// that it knows it passed every entry up to a sequence.
TEST_F(JetStreamLogTest, ReadsEverySubjectInStreamOrder) {
  for (int i = 0; i < 5; ++i) {
    ASSERT_OK(log_->Append(i % 2 == 0 ? "docs.s0" : "docs.s1",
                           absl::StrCat("r", i), {})
                  .status());
  }
  ASSERT_OK_AND_ASSIGN(auto all, log_->Read("docs", "docs.*", 2));
  EXPECT_THAT(Drain(*all, 4), ElementsAre("r1", "r2", "r3", "r4"));
}

// Trimming removes the records before a sequence (the stream keeps
// counting): a reader behind it is refused, and a reader of every record
// that is trimmed past while it reads fails rather than skip what it did
// not read.
TEST_F(JetStreamLogTest, TrimmingRemovesTheRecordsBeforeASequence) {
  for (int i = 0; i < 6; ++i) {
    ASSERT_OK(log_->Append(i % 2 == 0 ? "docs.s0" : "docs.s1",
                           absl::StrCat("r", i), {})
                  .status());
  }
  ASSERT_OK_AND_ASSIGN(auto slow, log_->Read("docs", "docs.*", 1,
                                             /*every_record=*/true));
  ASSERT_OK_AND_ASSIGN(std::optional<LogRecord> first,
                       slow->Next(absl::Seconds(2)));
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->sequence, 1u);
  ASSERT_OK(log_->Trim("docs", 4));
  ASSERT_OK_AND_ASSIGN(const JetStreamLog::Bounds bounds,
                       log_->BoundsOf("docs"));
  EXPECT_EQ(bounds.first, 4u);
  EXPECT_EQ(bounds.last, 6u);
  EXPECT_THAT(log_->Read("docs", "docs.*", 2).status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("now starts at 4")));
  ASSERT_OK_AND_ASSIGN(auto after, log_->Read("docs", "docs.*", 4));
  EXPECT_THAT(Drain(*after, 3), ElementsAre("r3", "r4", "r5"));
  // The reader that had read 1 and buffered the rest may still hand out
  // what it holds; it never skips from a record to a later one.
  uint64_t last = 1;
  absl::Status failed;
  for (int i = 0; i < 10; ++i) {
    absl::StatusOr<std::optional<LogRecord>> next =
        slow->Next(absl::Milliseconds(300));
    if (!next.ok()) {
      failed = next.status();
      break;
    }
    if (!next->has_value()) continue;
    EXPECT_EQ((*next)->sequence, last + 1);
    last = (*next)->sequence;
  }
  if (last < 6) {
    EXPECT_THAT(failed,
                StatusIs(absl::StatusCode::kFailedPrecondition, ::testing::_));
  }
  // Emptied whole: it starts after the last record.
  ASSERT_OK(log_->Trim("docs", 7));
  ASSERT_OK_AND_ASSIGN(const JetStreamLog::Bounds empty,
                       log_->BoundsOf("docs"));
  EXPECT_EQ(empty.first, 7u);
  EXPECT_EQ(empty.last, 6u);
}

// A key-value bucket's keys by prefix; put replaces, and a bucket with a
// TTL forgets a key that long after it was last written.
TEST_F(JetStreamLogTest, KeysByPrefixAndExpiringValues) {
  ASSERT_OK(log_->EnsureBucket("b", 3, absl::Seconds(1)));
  ASSERT_OK(log_->PutKey("b", "x.1", "one"));
  ASSERT_OK(log_->PutKey("b", "x.2", "two"));
  ASSERT_OK(log_->PutKey("b", "y.1", "three"));
  ASSERT_OK(log_->PutKey("b", "x.1", "uno"));
  ASSERT_OK_AND_ASSIGN(const std::vector<std::string> x, log_->Keys("b", "x."));
  EXPECT_THAT(x, ElementsAre("x.1", "x.2"));
  ASSERT_OK_AND_ASSIGN(const std::optional<std::string> one,
                       log_->GetKey("b", "x.1"));
  EXPECT_EQ(one, std::optional<std::string>("uno"));
  EXPECT_TRUE(WaitUntil(
      [&] {
        absl::StatusOr<std::vector<std::string>> left = log_->Keys("b", "");
        return left.ok() && left->empty();
      },
      std::chrono::seconds(10)));
}

// Messages between nodes: a queue group hands each request to one of its
// members; a subject nobody listens to is UNAVAILABLE at once, one that
// does not answer DEADLINE_EXCEEDED at the deadline; a handler is not
// called once its subscription is gone.
TEST_F(JetStreamLogTest, RequestsReachOneMemberOfAGroup) {
  std::atomic<int> calls[2] = {0, 0};
  std::vector<std::unique_ptr<Subscription>> members;
  for (int m = 0; m < 2; ++m) {
    ASSERT_OK_AND_ASSIGN(
        members.emplace_back(),
        log_->Subscribe("ask.a", "group",
                        [&, m](std::string_view data, std::string reply_to) {
                          ++calls[m];
                          ASSERT_OK(log_->Publish(
                              reply_to,
                              absl::StrCat(AbslView(data), " from ", m)));
                        }));
  }
  ASSERT_OK_AND_ASSIGN(
      auto silent,
      log_->Subscribe("ask.silent", "", [](std::string_view, std::string) {}));
  const std::vector<std::string> subjects = {"ask.a", "ask.none", "ask.silent"};
  const absl::Time start = absl::Now();
  std::vector<absl::StatusOr<std::string>> answers =
      log_->RequestEach(subjects, "q", absl::Now() + absl::Milliseconds(500));
  ASSERT_EQ(answers.size(), 3u);
  ASSERT_OK(answers[0].status());
  EXPECT_THAT(*answers[0], ::testing::StartsWith("q from "));
  EXPECT_THAT(answers[1].status(),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("ask.none")));
  EXPECT_THAT(answers[2].status(), StatusIs(absl::StatusCode::kDeadlineExceeded,
                                            HasSubstr("ask.silent")));
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(450));
  const std::string one[] = {"ask.a"};
  for (int i = 0; i < 20; ++i) {
    const std::vector<absl::StatusOr<std::string>> answer =
        log_->RequestEach(one, "q", absl::Now() + absl::Seconds(2));
    ASSERT_OK(answer.front().status());
  }
  EXPECT_EQ(calls[0] + calls[1], 21);
  members.clear();
  const std::vector<absl::StatusOr<std::string>> unanswered =
      log_->RequestEach(one, "q", absl::Now() + absl::Seconds(2));
  EXPECT_THAT(unanswered.front().status(),
              StatusIs(absl::StatusCode::kUnavailable, ::testing::_));
  EXPECT_EQ(calls[0] + calls[1], 21);
  EXPECT_GT(log_->MaxMessageBytes(), 0u);
}

// The cluster's two write guards: "only if nothing came in between", and
// "this append once, however often it is retried".
TEST_F(JetStreamLogTest, ConditionalAndIdempotentAppends) {
  // An empty stream can be expected too.
  EXPECT_THAT(
      log_->Append("docs.s0", "x", {.expected_last_sequence = 5}).status(),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               ::testing::HasSubstr("wrong last sequence")));
  ASSERT_OK_AND_ASSIGN(
      const Appended first,
      log_->Append("docs.s0", "a", {.expected_last_sequence = 0}));
  EXPECT_EQ(first.sequence, 1u);
  EXPECT_THAT(
      log_->Append("docs.s0", "y", {.expected_last_sequence = 0}).status(),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               ::testing::HasSubstr("wrong last sequence")));
  ASSERT_OK_AND_ASSIGN(
      const Appended second,
      log_->Append("docs.s1", "b", {.expected_last_sequence = first.sequence}));
  EXPECT_EQ(second.sequence, first.sequence + 1);
  EXPECT_THAT(
      log_->Append("docs.s0", "c", {.expected_last_sequence = first.sequence})
          .status(),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               ::testing::HasSubstr("wrong last sequence")));

  ASSERT_OK_AND_ASSIGN(const Appended once,
                       log_->Append("docs.s0", "d", {.append_id = "w-1"}));
  ASSERT_OK_AND_ASSIGN(const Appended again,
                       log_->Append("docs.s0", "d", {.append_id = "w-1"}));
  EXPECT_FALSE(once.duplicate);
  EXPECT_TRUE(again.duplicate);
  EXPECT_EQ(again.sequence, once.sequence);
  ASSERT_OK_AND_ASSIGN(auto reader, log_->Read("docs", "docs.s0", 1));
  EXPECT_THAT(Drain(*reader, 2), ElementsAre("a", "d"));
}

// Many appends sent at once are acknowledged each, stored in the order
// sent; sent again with the same ids they are duplicates of the first; a
// subject no stream takes is UNAVAILABLE (nobody answers) for its item only.
TEST_F(JetStreamLogTest, AppendManySendsAtOnceAndEachIsAcknowledged) {
  ASSERT_OK(AppendEventually("docs.s0", "first", "w-0").status());
  std::vector<std::string> data, ids;
  for (int i = 0; i < 50; ++i) {
    data.push_back(absl::StrCat("many", i));
    ids.push_back(absl::StrCat("m-", i));
  }
  std::vector<AppendItem> items;
  for (int i = 0; i < 50; ++i) {
    items.push_back({.subject = i % 2 == 0 ? "docs.s0" : "docs.s1",
                     .data = data[i],
                     .append_id = ids[i]});
  }
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  const std::vector<absl::StatusOr<Appended>> appended =
      log_->AppendMany(items, deadline);
  ASSERT_EQ(appended.size(), items.size());
  for (size_t i = 0; i < appended.size(); ++i) {
    ASSERT_TRUE(appended[i].ok()) << i << " " << appended[i].status();
    EXPECT_EQ(appended[i]->sequence, 2 + i);
    EXPECT_FALSE(appended[i]->duplicate);
  }
  const std::vector<absl::StatusOr<Appended>> again =
      log_->AppendMany(items, deadline);
  for (size_t i = 0; i < again.size(); ++i) {
    ASSERT_TRUE(again[i].ok()) << i << " " << again[i].status();
    EXPECT_EQ(again[i]->sequence, 2 + i);
    EXPECT_TRUE(again[i]->duplicate);
  }
  ASSERT_OK_AND_ASSIGN(auto reader, log_->Read("docs", "docs.*", 2));
  EXPECT_EQ(Drain(*reader, data.size()), data);

  const std::vector<AppendItem> mixed = {
      {.subject = "docs.s0", .data = "kept", .append_id = "x-1"},
      {.subject = "elsewhere", .data = "lost", .append_id = "x-2"},
      {.subject = "docs.s1", .data = "kept too", .append_id = "x-3"}};
  const std::vector<absl::StatusOr<Appended>> answers =
      log_->AppendMany(mixed, deadline);
  ASSERT_EQ(answers.size(), 3u);
  ASSERT_OK(answers[0].status());
  EXPECT_EQ(answers[1].status().code(), absl::StatusCode::kUnavailable)
      << answers[1].status();
  ASSERT_OK(answers[2].status());
  EXPECT_EQ(answers[2]->sequence, answers[0]->sequence + 1);
}

// One server down: appends go on (after a new leader, if it led) and a
// reader misses nothing. Two down: no quorum, appends are UNAVAILABLE and
// never acknowledged. Back up: everything acknowledged is there, once.
TEST_F(JetStreamLogTest, OneServerDownIsSurvivedTwoDownRefusesWrites) {
  std::vector<std::string> acknowledged;
  ASSERT_OK_AND_ASSIGN(auto reader, log_->Read("docs", "docs.s0", 1));
  for (int i = 0; i < 5; ++i) {
    ASSERT_OK(log_->Append("docs.s0", absl::StrCat("before", i), {}).status());
    acknowledged.push_back(absl::StrCat("before", i));
  }
  std::vector<std::string> read = Drain(*reader, acknowledged.size());
  EXPECT_EQ(read, acknowledged);

  cluster_.Kill(0);
  for (int i = 0; i < 5; ++i) {
    const std::string data = absl::StrCat("one-down", i);
    const absl::StatusOr<Appended> appended =
        AppendEventually("docs.s0", data, data);
    ASSERT_TRUE(appended.ok()) << appended.status() << "\n" << cluster_.Logs();
    acknowledged.push_back(data);
  }

  cluster_.Kill(1);
  const absl::StatusOr<Appended> refused =
      log_->Append("docs.s0", "two-down", {.append_id = "two-down"});
  EXPECT_THAT(refused.status(),
              StatusIs(absl::StatusCode::kUnavailable, ::testing::_));

  cluster_.Start(0);
  cluster_.Start(1);
  ASSERT_TRUE(cluster_.WaitHealthy(kStartup)) << cluster_.Logs();
  const std::string after = "after";
  ASSERT_OK(AppendEventually("docs.s0", after, after).status());
  acknowledged.push_back(after);

  // The reader went on through all of it: each acknowledged record once,
  // in order (the refused one may or may not have been stored: it was
  // never acknowledged, so either is right).
  ASSERT_TRUE(WaitUntil(
      [&] {
        absl::StatusOr<std::optional<LogRecord>> next =
            reader->Next(absl::Milliseconds(200));
        if (next.ok() && next->has_value() && (*next)->data != "two-down") {
          read.push_back((*next)->data);
        }
        return read.size() >= acknowledged.size();
      },
      std::chrono::seconds(60)))
      << read.size() << " of " << acknowledged.size() << "\n"
      << cluster_.Logs();
  EXPECT_EQ(read, acknowledged);
}

// nats-server 2.9 puts a reader's consumer (one replica) on any server of
// the stream, a dead one too, where it is never made: a reader made while a
// server is down reads within seconds, not after a request timeout for each
// unlucky placement (a third of them). With 12 readers, waiting the
// timeout each time passes this test 1 % of the time.
TEST_F(JetStreamLogTest, ReadersMadeWhileAServerIsDownReadPromptly) {
  ASSERT_OK(AppendEventually("docs.s0", "record", "record").status());
  cluster_.Kill(2);
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<JetStreamLog> log,
      JetStreamLog::Connect(
          {.servers = cluster_.Urls(), .request_timeout = absl::Seconds(30)}));
  // How long a new reader takes to hand out the record (at most `limit`).
  auto first_read = [&](absl::Duration limit) {
    const absl::Time start = absl::Now();
    absl::StatusOr<std::unique_ptr<LogReader>> reader;
    while (absl::Now() - start < limit) {
      if (!reader.ok() || *reader == nullptr) {
        reader = log->Read("docs", "docs.s0", 1);
        if (!reader.ok()) absl::SleepFor(absl::Milliseconds(50));
        continue;
      }
      absl::StatusOr<std::optional<LogRecord>> next =
          (*reader)->Next(absl::Milliseconds(200));
      if (next.ok() && next->has_value()) break;
    }
    return absl::Now() - start;
  };
  // Until the dead server's leaderships moved (the stream's, the cluster's),
  // seen through the impatient log of the fixture.
  ASSERT_TRUE(WaitUntil(
      [&] {
        absl::StatusOr<std::unique_ptr<LogReader>> reader =
            log_->Read("docs", "docs.s0", 1);
        if (!reader.ok()) return false;
        absl::StatusOr<std::optional<LogRecord>> next =
            (*reader)->Next(absl::Seconds(3));
        return next.ok() && next->has_value();
      },
      std::chrono::seconds(90)))
      << cluster_.Logs();
  for (int i = 0; i < 12; ++i) {
    const absl::Duration took = first_read(absl::Seconds(60));
    EXPECT_LT(took, absl::Seconds(15)) << "reader " << i;
  }
}

}  // namespace
}  // namespace neardup::cluster
