// Faults under load, with real processes over a 3-server JetStream cluster,
// a BulkUpsert writer and a querier running throughout: a collection of one
// shard on two neardupd, and one of two shards on four (two replicas of
// each). One replica of each shard is SIGKILLed, then the NATS server
// leading the collection's stream; the replicas restart and catch up. No
// acknowledged write is lost, the live replicas answer every query
// meanwhile, with two NATS servers down writes are refused (UNAVAILABLE)
// while reads go on, and in the end the replicas of each shard hold the
// same documents and signatures, and every node answers queries as a
// single neardupd holding the same documents does.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cluster/cluster_test_util.h"
#include "cluster/nats_cluster.h"
#include "cluster/neardupd_nodes.h"
#include "cluster/replica_export.h"
#include "neardup/base/status_macros.h"
#include "neardup/client/client.h"
#include "neardup/cluster/cluster_node.h"
#include "support/corpus.h"
#include "support/net.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace neardup {
namespace {

using ::neardup::testing::Connect;
using ::neardup::testing::GeneratedText;
using ::neardup::testing::Holdings;
using ::neardup::testing::NatsCluster;
using ::neardup::testing::NeardupdNodes;
using ::neardup::testing::ServerProcess;
using ::neardup::testing::StatusIs;
using ::neardup::testing::WaitUntil;

constexpr auto kStartup = neardup::testing::kClusterStartup;
constexpr char kName[] = "load";

// A match as compared with a single node's: its id and similarity.
std::vector<std::string> Matches(const v1::QueryResponse& response) {
  std::vector<std::string> out;
  for (const v1::Match& match : response.matches()) {
    out.push_back(absl::StrCat(match.id(), " ", match.similarity()));
  }
  return out;
}

struct Layout {
  int nodes;
  int shards;
};

std::vector<std::string> NodeIds(int nodes) {
  std::vector<std::string> ids;
  for (int i = 0; i < nodes; ++i) ids.push_back(absl::StrCat("n", i));
  return ids;
}

class NeardupdFaultTest : public ::testing::TestWithParam<Layout> {
 protected:
  void SetUp() override {
    nats_.StartAll();
    ASSERT_TRUE(nats_.WaitHealthy(kStartup)) << nats_.Logs();
    ASSERT_TRUE(nodes_.StartAll(nats_, {"--default-deadline=20"}))
        << nodes_.Logs() << nats_.Logs();
    v1::CreateCollectionRequest create;
    create.set_name(kName);
    create.mutable_config()->set_store_text(true);
    create.set_cluster_shards(static_cast<uint32_t>(shards()));
    ASSERT_OK(Connect(nodes_[0]).CreateCollection(create).status());
  }

  int shards() const { return GetParam().shards; }
  int size() const { return GetParam().nodes; }
  // Node i holds shard i mod shards; the last `shards` nodes are the ones
  // killed (one replica of each shard).
  bool Killed(int node) const { return node >= size() - shards(); }

  // Its last lines: CI keeps only the start of a failing test's output.
  std::string Log(size_t node) const {
    const std::string log = nodes_.Log(node);
    size_t from = log.size();
    for (int lines = 0; lines < 40 && from > 0; ++lines) {
      from = log.rfind('\n', from - 1);
      if (from == std::string::npos) return log;
    }
    return log.substr(from);
  }
  std::string Logs() const { return nodes_.Logs(); }
  // What a failure says first: the phases' start times, the writes
  // acknowledged, what each node applied, the nodes' and the NATS servers'
  // latest warnings.
  std::string Summary() {
    std::string out =
        absl::StrCat(Acked(), " writes acknowledged, ",
                     queries_answered_.load(), " queries answered;");
    for (int node = 0; node < size(); ++node) {
      absl::StrAppend(&out, " n", node, " applied ",
                      down_[node].load() ? std::string("(down)")
                                         : absl::StrCat(Applied(node)));
    }
    absl::StrAppend(&out, "\n");
    {
      std::lock_guard lock(phases_mu_);
      for (const auto& [phase, at] : phase_starts_) {
        absl::StrAppend(&out, kPhases[phase], " from ",
                        absl::FormatTime("%H:%M:%E3S", at, absl::UTCTimeZone()),
                        "; ");
      }
    }
    return absl::StrCat(out, "\n", nodes_.Warnings(), nats_.Warnings());
  }
  void EnterPhase(int phase) {
    phase_ = phase;
    std::lock_guard lock(phases_mu_);
    phase_starts_.emplace_back(phase, absl::Now());
  }

  // Writes documents "w<k>" through the nodes that are up in turn, in
  // BulkUpsert streams of 100 items, until stopped; records what was
  // acknowledged. At most kWriteRate documents a second, and no burst after
  // a stall (at most a second's worth): a steady load, whose log fits the
  // test's NATS servers however fast appends get, and which a restarted
  // replica (instrumented, sharing two cores with the suite) applies faster
  // than it grows. (A replica slower than the writes never catches up.)
  void Write() {
    constexpr int kWriteRate = 600;
    absl::Time due = absl::Now();
    int next = 0;
    for (int stream = 0; !stop_.load(); ++stream) {
      if (absl::Now() < due) absl::SleepFor(due - absl::Now());
      const int first = next;
      const absl::Cleanup pace = [&] {
        due = std::max(due, absl::Now() - absl::Seconds(1)) +
              absl::Seconds(next - first) / kWriteRate;
      };
      int node = stream % size();
      while (down_[node].load()) node = (node + 1) % size();
      client::Client client = Connect(nodes_[node]);
      int in_stream = 0;
      const absl::Status status = client.BulkUpsert(
          [&](v1::UpsertRequest* request) {
            if (stop_.load() || in_stream++ == 100) return false;
            const std::string id = absl::StrCat("w", next);
            request->set_collection(kName);
            request->set_id(id);
            request->set_text(GeneratedText(90000 + next, 40));
            ++next;
            return true;
          },
          // (On the reading thread while `next` runs on the sending one:
          // the id comes from the item's index, not from shared state.)
          [&](const v1::BulkUpsertResult& result) {
            if (result.code() != 0) return;
            const std::string id = absl::StrCat("w", first + result.index());
            std::lock_guard lock(acked_mu_);
            acked_[id] = result.response().log_sequence();
          },
          {.max_items = 10, .max_bytes = size_t{1} << 20});
      if (!status.ok()) ++failed_streams_;
    }
  }

  // Queries the nodes that are up, all the time, each within 10 s (a NATS
  // server's death may stall one for a few: an answer lost on the way is
  // asked again); a failure on one of them is a failure of the test.
  void Query() {
    for (int i = 0; !stop_.load(); ++i) {
      std::shared_lock lock(kill_mu_);
      const int node = i % size();
      if (down_[node].load()) continue;
      v1::QueryRequest query;
      query.set_collection(kName);
      query.set_text(GeneratedText(90000 + i % 50, 40));
      const absl::Time asked = absl::Now();
      absl::StatusOr<v1::QueryResponse> answer =
          Connect(nodes_[node], std::chrono::seconds(10), 1).Query(query);
      const int64_t took = absl::ToInt64Milliseconds(absl::Now() - asked);
      if (took > longest_query_ms_.load()) longest_query_ms_ = took;
      lock.unlock();  // a failure's summary asks every node
      if (answer.ok()) {
        ++queries_answered_;
      } else {
        // The first failure says what the nodes said (CI keeps only the
        // start of a failing test's output).
        ADD_FAILURE() << "node " << node << " (" << kPhases[phase_.load()]
                      << ", at " << absl::FormatTime(absl::Now())
                      << "): " << answer.status()
                      << (queries_failed_++ == 0 ? "\n" + Summary() : "");
      }
    }
  }

  // The log sequence node `node` applied, as its metrics say (0: unknown).
  uint64_t Applied(int node) {
    const std::string metrics =
        neardup::testing::HttpGet(nodes_[node].metrics_port(), "/metrics");
    const std::string line =
        "neardup_cluster_applied_sequence{collection=\"load\"} ";
    const size_t at = metrics.find(line);
    if (at == std::string::npos) return 0;
    const size_t from = at + line.size();
    uint64_t applied = 0;
    return absl::SimpleAtoi(
               metrics.substr(from, metrics.find('\n', from) - from), &applied)
               ? applied
               : 0;
  }

  size_t Acked() {
    std::lock_guard lock(acked_mu_);
    return acked_.size();
  }
  // Until `more` writes beyond now are acknowledged and `queries` more
  // queries answered: each phase sees both loads, however slow the machine
  // (a count over the whole run would depend on its speed).
  bool WaitLoad(size_t more, int queries = 10) {
    const size_t target = Acked() + more;
    const int answered = queries_answered_.load() + queries;
    return WaitUntil(
        [&] {
          return Acked() >= target && queries_answered_.load() >= answered;
        },
        kStartup);
  }
  void KillNode(int node) {
    std::unique_lock lock(kill_mu_);
    down_[node] = true;
    nodes_[node].Stop(SIGKILL);
  }

  neardup::testing::TempDir temp_;
  NatsCluster nats_{temp_.path() + "/nats", 3};
  NeardupdNodes nodes_{temp_.path(), NodeIds(GetParam().nodes)};
  std::atomic<bool> stop_{false};
  // What the test is doing, for the querier's failures.
  static constexpr const char* kPhases[] = {"loading", "replicas killed",
                                            "a NATS server killed",
                                            "replicas restarting", "all back"};
  std::atomic<int> phase_{0};
  std::mutex phases_mu_;
  std::vector<std::pair<int, absl::Time>> phase_starts_;  // for Summary
  std::atomic<bool> down_[4] = {false, false, false, false};
  std::shared_mutex kill_mu_;  // a query never runs on a node being killed
  std::mutex acked_mu_;
  std::map<std::string, uint64_t> acked_;  // id -> its log sequence
  std::atomic<int> failed_streams_{0};
  std::atomic<int> queries_answered_{0};
  std::atomic<int> queries_failed_{0};
  // The longest a query took (a failover's stall, with its connection).
  std::atomic<int64_t> longest_query_ms_{0};
};

TEST_P(NeardupdFaultTest, NoAcknowledgedWriteIsLostAndReplicasConverge) {
  EnterPhase(0);
  std::thread writer([&] { Write(); });
  std::thread querier([&] { Query(); });
  // However the test ends, the load stops first.
  const absl::Cleanup stop_load = [&] {
    stop_ = true;
    if (writer.joinable()) writer.join();
    if (querier.joinable()) querier.join();
  };
  ASSERT_TRUE(WaitLoad(200)) << Summary() << Logs();

  // A replica of each shard dies; writes and queries go on through the
  // others.
  EnterPhase(1);
  for (int node = 0; node < size(); ++node) {
    if (Killed(node)) KillNode(node);
  }
  ASSERT_TRUE(WaitLoad(200)) << Summary() << Logs();
  // A NATS server dies: 2 of 3 keep the quorum. The one that leads the
  // collection's stream, the harder case: appends and new log consumers
  // wait for a new leader (and a consumer may be placed on the dead one).
  EnterPhase(2);
  int leader = -1;
  ASSERT_TRUE(WaitUntil(
      [&] {
        leader = nats_.StreamLeader(cluster::StreamOf(kName));
        return leader >= 0;
      },
      std::chrono::seconds(10)))
      << nats_.Logs();
  nats_.Kill(leader);
  ASSERT_TRUE(WaitLoad(200)) << Summary() << Logs() << nats_.Logs();
  EnterPhase(3);
  // The replicas come back on their disks and catch up before they serve.
  for (int node = 0; node < size(); ++node) {
    if (!Killed(node)) continue;
    nodes_[node].Start();
    ASSERT_TRUE(nodes_[node].WaitServing(std::chrono::seconds(60)))
        << Log(node);
    down_[node] = false;
  }
  nats_.Start(leader);
  EnterPhase(4);
  ASSERT_TRUE(WaitLoad(200)) << Summary() << Logs();
  stop_ = true;
  writer.join();
  querier.join();
  ASSERT_TRUE(nats_.WaitHealthy(kStartup)) << nats_.Logs();
  EXPECT_EQ(queries_failed_.load(), 0) << Logs();
  std::cout << "queries answered: " << queries_answered_.load()
            << ", the longest took " << longest_query_ms_.load() << " ms\n";

  // Every node at the last acknowledged write: every acknowledged document
  // is on its shard, and the replicas of a shard hold the same.
  // (The log's end: writes past the last acknowledged one, unanswered but
  // stored, are in the replicas too.)
  ASSERT_OK_AND_ASSIGN(auto log, neardup::testing::ConnectWhenReady(nats_));
  ASSERT_OK_AND_ASSIGN(const uint64_t end,
                       log->LastSequence(cluster::StreamOf(kName)));
  std::vector<std::map<std::string, v1::Document>> held(size());
  for (int node = 0; node < size(); ++node) {
    // Its own replica, once it applied the end (its metrics say so).
    ASSERT_TRUE(WaitUntil([&] { return Applied(node) >= end; }, kStartup))
        << "node " << node << " applied " << Applied(node) << " of " << end;
    ASSERT_OK_AND_ASSIGN(held[node], Holdings(nodes_[node], kName));
  }
  std::map<std::string, v1::Document> all;
  for (int shard = 0; shard < shards(); ++shard) {
    for (const auto& [id, doc] : held[shard]) all[id] = doc;
  }
  size_t lost = 0;
  for (const auto& [id, sequence] : acked_) lost += !all.contains(id);
  EXPECT_EQ(lost, 0u) << "of " << acked_.size() << " acknowledged";
  for (int node = shards(); node < size(); ++node) {
    const auto& a = held[node % shards()];
    const auto& b = held[node];
    EXPECT_EQ(a.size(), b.size()) << "node " << node;
    for (const auto& [id, doc] : a) {
      auto other = b.find(id);
      ASSERT_TRUE(other != b.end()) << id << " is not on node " << node;
      const std::string x = doc.ShortDebugString();
      const std::string y = other->second.ShortDebugString();
      if (x != y) {
        size_t at = 0;
        while (at < x.size() && x[at] == y[at]) ++at;
        const size_t from = at > 80 ? at - 80 : 0;
        FAIL() << id << " differs from byte " << at << " on node " << node
               << ": " << x.substr(from, 200) << "\n vs "
               << y.substr(from, 200);
      }
    }
  }

  // Every node answers as a single neardupd holding the same documents.
  ServerProcess single(temp_.path() + "/single", temp_.path() + "/single.log");
  single.Start();
  ASSERT_TRUE(single.WaitServing(std::chrono::seconds(60)));
  client::Client reference = Connect(single);
  v1::CreateCollectionRequest create;
  create.set_name(kName);
  create.mutable_config()->set_store_text(true);
  ASSERT_OK(reference.CreateCollection(create).status());
  auto doc = all.begin();
  ASSERT_OK(reference.BulkUpsert(
      [&](v1::UpsertRequest* request) {
        if (doc == all.end()) return false;
        request->set_collection(kName);
        request->set_id(doc->first);
        request->set_text(doc->second.text());
        ++doc;
        return true;
      },
      [](const v1::BulkUpsertResult& result) {
        EXPECT_EQ(result.code(), 0) << result.message();
      }));
  for (const auto& [id, sequence] : acked_) {
    if (sequence % 97 != 0) continue;
    v1::QueryRequest query;
    query.set_collection(kName);
    query.set_text(GeneratedText(90000 + std::stoi(id.substr(1)), 40));
    ASSERT_OK_AND_ASSIGN(const v1::QueryResponse expected,
                         reference.Query(query));
    ASSERT_GE(expected.matches_size(), 1);
    EXPECT_EQ(expected.matches(0).id(), id);
    for (int node = 0; node < size(); ++node) {
      ASSERT_OK_AND_ASSIGN(const v1::QueryResponse found,
                           Connect(nodes_[node]).Query(query));
      EXPECT_EQ(Matches(found), Matches(expected)) << id << " node " << node;
    }
  }

  // Two NATS servers down: a write is refused, never acknowledged; reads go
  // on through every node.
  nats_.Kill(1);
  nats_.Kill(2);
  v1::UpsertRequest refused;
  refused.set_collection(kName);
  refused.set_id("refused");
  refused.set_text(GeneratedText(1, 40));
  EXPECT_THAT(
      Connect(nodes_[0], std::chrono::seconds(4), 1).Upsert(refused).status(),
      StatusIs(absl::StatusCode::kUnavailable, ::testing::_));
  for (int node = 0; node < size(); ++node) {
    // (A node whose NATS server died reconnects to the one left first.)
    absl::Status read;
    EXPECT_TRUE(WaitUntil(
        [&] {
          read = Connect(nodes_[node], std::chrono::seconds(4), 1)
                     .Get(kName, acked_.begin()->first)
                     .status();
          return read.ok();
        },
        std::chrono::seconds(10)))
        << "node " << node << ": " << read;
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, NeardupdFaultTest,
                         ::testing::Values(Layout{.nodes = 2, .shards = 1},
                                           Layout{.nodes = 4, .shards = 2}),
                         [](const ::testing::TestParamInfo<Layout>& info) {
                           return absl::StrCat(
                               info.param.shards, "Shards",
                               info.param.nodes / info.param.shards,
                               "Replicas");
                         });

}  // namespace
}  // namespace neardup
