// Faults under load, with real processes: two neardupd replicas of a
// collection over a 3-server JetStream cluster, a BulkUpsert writer and a
// querier running throughout. One replica is SIGKILLed, then a NATS server;
// the replica restarts and catches up. No acknowledged write is lost, the
// live replica answers every query meanwhile, with two NATS servers down
// writes are refused (UNAVAILABLE) while reads go on, and in the end both
// replicas hold the same documents and signatures.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "cluster/cluster_test_util.h"
#include "cluster/nats_cluster.h"
#include "cluster/neardupd_nodes.h"
#include "neardup/base/status_macros.h"
#include "neardup/client/client.h"
#include "support/corpus.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace neardup {
namespace {

using ::neardup::testing::GeneratedText;
using ::neardup::testing::NatsCluster;
using ::neardup::testing::NeardupdNodes;
using ::neardup::testing::ServerProcess;
using ::neardup::testing::StatusIs;
using ::neardup::testing::WaitUntil;

constexpr auto kStartup = neardup::testing::kClusterStartup;
constexpr char kName[] = "load";

client::Client Connect(
    const ServerProcess& node,
    std::chrono::milliseconds timeout = std::chrono::seconds(20),
    int attempts = 5) {
  client::ClientOptions options;
  options.target = node.Address();
  options.timeout = timeout;
  options.max_attempts = attempts;
  return client::Client(options);
}

// What a replica holds, as an export with signatures shows it: one line
// per document (id, signatures, text, metadata), in id order.
absl::StatusOr<std::map<std::string, std::string>> Holdings(
    const ServerProcess& node) {
  std::map<std::string, std::string> out;
  v1::ExportRequest request;
  request.set_collection(kName);
  request.set_with_signatures(true);
  RETURN_IF_ERROR(
      Connect(node).Export(request, [&](const v1::ExportResponse& message) {
        for (const v1::Document& doc : message.documents()) {
          const std::string id = doc.id();
          out[id] = doc.ShortDebugString();
        }
        return absl::OkStatus();
      }));
  return out;
}

class NeardupdFaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    nats_.StartAll();
    ASSERT_TRUE(nats_.WaitHealthy(kStartup)) << nats_.Logs();
    ASSERT_TRUE(nodes_.StartAll(nats_, {"--default-deadline=20"}))
        << nodes_.Logs() << nats_.Logs();
    v1::CreateCollectionRequest create;
    create.set_name(kName);
    create.mutable_config()->set_store_text(true);
    ASSERT_OK(Connect(nodes_[0]).CreateCollection(create).status());
  }

  std::string Log(size_t node) const { return nodes_.Log(node); }

  // Writes documents "w<k>" through whichever node is up, in BulkUpsert
  // streams of 100 items, until stopped; records what was acknowledged.
  // At most kWriteRate documents a second: a steady load, whose log fits
  // the test's NATS servers however fast appends get.
  void Write() {
    constexpr int kWriteRate = 1500;
    const absl::Time start = absl::Now();
    int next = 0;
    for (int stream = 0; !stop_.load(); ++stream) {
      const absl::Time due = start + absl::Seconds(next) / kWriteRate;
      if (absl::Now() < due) absl::SleepFor(due - absl::Now());
      int node = stream % 2;
      if (down_[node].load()) node = 1 - node;
      client::Client client = Connect(nodes_[node]);
      std::vector<std::string> sent;
      int in_stream = 0;
      const absl::Status status = client.BulkUpsert(
          [&](v1::UpsertRequest* request) {
            if (stop_.load() || in_stream++ == 100) return false;
            const std::string id = absl::StrCat("w", next);
            request->set_collection(kName);
            request->set_id(id);
            request->set_text(GeneratedText(90000 + next, 40));
            sent.push_back(id);
            ++next;
            return true;
          },
          [&](const v1::BulkUpsertResult& result) {
            if (result.code() != 0) return;
            std::lock_guard lock(acked_mu_);
            acked_[sent[result.index()]] = result.response().log_sequence();
          },
          {.max_items = 10, .max_bytes = size_t{1} << 20});
      if (!status.ok()) ++failed_streams_;
    }
  }

  // Queries the nodes that are up, all the time; a failure on one of them
  // is a failure of the test.
  void Query() {
    for (int i = 0; !stop_.load(); ++i) {
      std::shared_lock lock(kill_mu_);
      const int node = i % 2;
      if (down_[node].load()) continue;
      v1::QueryRequest query;
      query.set_collection(kName);
      query.set_text(GeneratedText(90000 + i % 50, 40));
      absl::StatusOr<v1::QueryResponse> answer =
          Connect(nodes_[node], std::chrono::seconds(5), 1).Query(query);
      if (answer.ok()) {
        ++queries_answered_;
      } else {
        ++queries_failed_;
        ADD_FAILURE() << "node " << node << ": " << answer.status();
      }
    }
  }

  size_t Acked() {
    std::lock_guard lock(acked_mu_);
    return acked_.size();
  }
  // Until `more` writes beyond now are acknowledged.
  bool WaitAcked(size_t more) {
    const size_t target = Acked() + more;
    return WaitUntil([&] { return Acked() >= target; }, kStartup);
  }
  void KillNode(int node) {
    std::unique_lock lock(kill_mu_);
    down_[node] = true;
    nodes_[node].Stop(SIGKILL);
  }

  neardup::testing::TempDir temp_;
  NatsCluster nats_{temp_.path() + "/nats", 3};
  NeardupdNodes nodes_{temp_.path(), {"a", "b"}};
  std::atomic<bool> stop_{false};
  std::atomic<bool> down_[2] = {false, false};
  std::shared_mutex kill_mu_;  // a query never runs on a node being killed
  std::mutex acked_mu_;
  std::map<std::string, uint64_t> acked_;  // id -> its log sequence
  std::atomic<int> failed_streams_{0};
  std::atomic<int> queries_answered_{0};
  std::atomic<int> queries_failed_{0};
};

TEST_F(NeardupdFaultTest, NoAcknowledgedWriteIsLostAndReplicasConverge) {
  std::thread writer([&] { Write(); });
  std::thread querier([&] { Query(); });
  // However the test ends, the load stops first.
  const absl::Cleanup stop_load = [&] {
    stop_ = true;
    if (writer.joinable()) writer.join();
    if (querier.joinable()) querier.join();
  };
  ASSERT_TRUE(WaitAcked(200)) << Log(0) << Log(1);

  // A replica dies; writes and queries go on through the other.
  KillNode(1);
  ASSERT_TRUE(WaitAcked(200)) << Log(0);
  // A NATS server dies: 2 of 3 keep the quorum.
  nats_.Kill(0);
  ASSERT_TRUE(WaitAcked(200)) << Log(0) << nats_.Logs();
  // The replica comes back on its disk and catches up before it serves.
  nodes_[1].Start();
  ASSERT_TRUE(nodes_[1].WaitServing(std::chrono::seconds(60))) << Log(1);
  down_[1] = false;
  nats_.Start(0);
  ASSERT_TRUE(WaitAcked(200)) << Log(0) << Log(1);
  stop_ = true;
  writer.join();
  querier.join();
  ASSERT_TRUE(nats_.WaitHealthy(kStartup)) << nats_.Logs();
  EXPECT_EQ(queries_failed_.load(), 0);
  EXPECT_GT(queries_answered_.load(), 50);

  // Both replicas at the last acknowledged write: every acknowledged
  // document is there, and they hold the same.
  uint64_t end = 0;
  for (const auto& [id, sequence] : acked_) end = std::max(end, sequence);
  for (size_t node = 0; node < nodes_.size(); ++node) {
    v1::GetRequest get;
    get.set_collection(kName);
    get.set_id(acked_.begin()->first);
    get.set_log_sequence(end);
    ASSERT_OK(Connect(nodes_[node]).Get(get).status());
  }
  ASSERT_OK_AND_ASSIGN(const auto a, Holdings(nodes_[0]));
  ASSERT_OK_AND_ASSIGN(const auto b, Holdings(nodes_[1]));
  size_t lost = 0;
  for (const auto& [id, sequence] : acked_) lost += !a.contains(id);
  EXPECT_EQ(lost, 0u) << "of " << acked_.size() << " acknowledged";
  EXPECT_EQ(a.size(), b.size());
  for (const auto& [id, held] : a) {
    auto other = b.find(id);
    ASSERT_TRUE(other != b.end()) << id << " is only on the first replica";
    if (held != other->second) {
      size_t at = 0;
      while (at < held.size() && held[at] == other->second[at]) ++at;
      const size_t from = at > 80 ? at - 80 : 0;
      FAIL() << id << " differs from byte " << at << ": "
             << held.substr(from, 200) << "\n vs "
             << other->second.substr(from, 200);
    }
  }
  // A document is found by its own text on both (recall of the replicas).
  for (const auto& [id, sequence] : acked_) {
    if (sequence % 97 != 0) continue;
    const int k = std::stoi(id.substr(1));
    for (size_t node = 0; node < nodes_.size(); ++node) {
      v1::QueryRequest query;
      query.set_collection(kName);
      query.set_text(GeneratedText(90000 + k, 40));
      ASSERT_OK_AND_ASSIGN(const v1::QueryResponse found,
                           Connect(nodes_[node]).Query(query));
      ASSERT_GE(found.matches_size(), 1);
      EXPECT_EQ(found.matches(0).id(), id);
    }
  }

  // Two NATS servers down: a write is refused, never acknowledged; reads go
  // on on both replicas.
  nats_.Kill(1);
  nats_.Kill(2);
  v1::UpsertRequest refused;
  refused.set_collection(kName);
  refused.set_id("refused");
  refused.set_text(GeneratedText(1, 40));
  EXPECT_THAT(
      Connect(nodes_[0], std::chrono::seconds(4), 1).Upsert(refused).status(),
      StatusIs(absl::StatusCode::kUnavailable, ::testing::_));
  for (size_t node = 0; node < nodes_.size(); ++node) {
    EXPECT_OK(Connect(nodes_[node], std::chrono::seconds(4), 1)
                  .Get(kName, acked_.begin()->first)
                  .status());
  }
}

}  // namespace
}  // namespace neardup
