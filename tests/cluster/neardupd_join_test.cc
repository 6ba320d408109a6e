// A replica joins a live collection (docs/cluster.md): two real neardupd
// nodes over a real 3-server JetStream cluster take a steady BulkUpsert
// load while their log is trimmed behind them; a third neardupd started on
// an empty disk copies a peer's snapshot, reads the log after it, reports
// SERVING only once it caught up, and then holds what its peers hold.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

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
using ::neardup::testing::NatsCluster;
using ::neardup::testing::NeardupdNodes;
using ::neardup::testing::ServerProcess;
using ::neardup::testing::WaitUntil;

constexpr auto kStartup = neardup::testing::kClusterStartup;
constexpr char kName[] = "joined";

// Trimmed as soon as every replica applied an entry; a joiner copies a
// snapshot whatever the log's length.
const std::vector<std::string> kFlags = {
    "--cluster-log-keep-entries=0", "--cluster-trim-seconds=0.3",
    "--cluster-join-snapshot-entries=1", "--default-deadline=20"};

// What a node's replica holds: id -> the document, serialized.
absl::StatusOr<std::map<std::string, std::string>> Holdings(
    const ServerProcess& node) {
  ASSIGN_OR_RETURN(const auto held, neardup::testing::Holdings(node, kName));
  std::map<std::string, std::string> out;
  for (const auto& [id, doc] : held) out[id] = doc.SerializeAsString();
  return out;
}

// A number a node's metrics show for the collection (nullopt: none).
std::optional<uint64_t> MetricOf(const ServerProcess& node,
                                 const std::string& name) {
  const std::string metrics =
      neardup::testing::HttpGet(node.metrics_port(), "/metrics");
  const std::string line = absl::StrCat(name, "{collection=\"", kName, "\"} ");
  const size_t at = metrics.find(line);
  if (at == std::string::npos) return std::nullopt;
  return std::stoull(metrics.substr(at + line.size()));
}

class NeardupdJoinTest : public ::testing::Test {
 protected:
  void SetUp() override {
    nats_.StartAll();
    ASSERT_TRUE(nats_.WaitHealthy(kStartup)) << nats_.Logs();
    ASSERT_OK_AND_ASSIGN(log_, neardup::testing::ConnectWhenReady(nats_));
    ASSERT_TRUE(peers_.StartAll(nats_, kFlags)) << peers_.Logs();
    v1::CreateCollectionRequest create;
    create.set_name(kName);
    create.mutable_config()->set_store_text(true);
    ASSERT_OK(Connect(peers_[0]).CreateCollection(create).status());
  }
  void TearDown() override {
    stop_ = true;
    if (writer_.joinable()) writer_.join();
  }

  // Writes documents "w<k>" through the peers in turn, in BulkUpsert
  // streams of 100, until stopped; records the last acknowledged sequence.
  void Write() {
    int next = 0;
    for (int stream = 0; !stop_.load(); ++stream) {
      client::Client client = Connect(peers_[stream % 2]);
      std::vector<std::string> sent;
      int in_stream = 0;
      client
          .BulkUpsert(
              [&](v1::UpsertRequest* request) {
                if (stop_.load() || in_stream++ == 100) return false;
                request->set_collection(kName);
                request->set_id(absl::StrCat("w", next));
                request->set_text(GeneratedText(70000 + next, 40));
                ++next;
                return true;
              },
              [&](const v1::BulkUpsertResult& result) {
                if (result.code() != 0) return;
                ++acked_;
                last_acked_ = std::max(last_acked_.load(),
                                       result.response().log_sequence());
              },
              {.max_items = 10, .max_bytes = size_t{1} << 20})
          .IgnoreError();
      absl::SleepFor(absl::Milliseconds(20));  // a steady, modest load
    }
  }

  uint64_t FirstSequence() {
    auto bounds = log_->BoundsOf(cluster::StreamOf(kName));
    return bounds.ok() ? bounds->first : 0;
  }

  neardup::testing::TempDir temp_;
  NatsCluster nats_{temp_.path() + "/nats", 3};
  std::unique_ptr<cluster::JetStreamLog> log_;
  NeardupdNodes peers_{temp_.path(), {"a", "b"}};
  NeardupdNodes joiner_{temp_.path(), {"c"}};
  std::atomic<bool> stop_{false};
  std::atomic<size_t> acked_{0};
  std::atomic<uint64_t> last_acked_{0};
  std::thread writer_;
};

TEST_F(NeardupdJoinTest, AnEmptyNodeJoinsFromASnapshotUnderLoad) {
  writer_ = std::thread([this] { Write(); });
  ASSERT_TRUE(WaitUntil([&] { return acked_.load() >= 2000; },
                        std::chrono::seconds(60)));
  // The log was trimmed behind both peers: replaying it cannot rebuild
  // the collection.
  ASSERT_TRUE(WaitUntil([&] { return FirstSequence() > 1000; },
                        std::chrono::seconds(30)))
      << "first " << FirstSequence() << "\n"
      << peers_.Logs();
  ASSERT_OK_AND_ASSIGN(const cluster::JetStreamLog::Bounds at_start,
                       log_->BoundsOf(cluster::StreamOf(kName)));

  ASSERT_TRUE(joiner_.StartAll(nats_, kFlags)) << joiner_.Logs();
  // SERVING only once caught up: it applied the log through where it
  // ended when the node started, from a snapshot.
  const std::optional<uint64_t> applied =
      MetricOf(joiner_[0], "neardup_cluster_applied_sequence");
  ASSERT_TRUE(applied.has_value()) << joiner_.Logs();
  EXPECT_GE(*applied, at_start.last);
  EXPECT_EQ(MetricOf(joiner_[0], "neardup_cluster_snapshots_loaded_total"),
            std::optional<uint64_t>(1))
      << joiner_.Logs();
  // It asked its shard for the snapshot as a router asks (fan-out metric),
  // and every shard answered.
  const std::string metrics =
      neardup::testing::HttpGet(joiner_[0].metrics_port(), "/metrics");
  const std::string asked =
      "neardup_cluster_fanout_seconds_count{kind=\"snapshot\"} ";
  const size_t at = metrics.find(asked);
  ASSERT_NE(at, std::string::npos) << metrics;
  EXPECT_GE(std::stoull(metrics.substr(at + asked.size())), 1u);
  EXPECT_THAT(metrics,
              ::testing::HasSubstr(absl::StrCat(
                  "neardup_cluster_shard_unanswered_total{collection=\"", kName,
                  "\",shard=\"0\"} 0")));

  // It keeps up under the load, and trimming goes on with it.
  ASSERT_TRUE(WaitUntil([&] { return acked_.load() >= 4000; },
                        std::chrono::seconds(60)));
  stop_ = true;
  writer_.join();
  const uint64_t last = last_acked_.load();
  for (ServerProcess* node : {&peers_[0], &peers_[1], &joiner_[0]}) {
    ASSERT_TRUE(WaitUntil(
        [&] {
          return MetricOf(*node, "neardup_cluster_applied_sequence")
                     .value_or(0) >= last;
        },
        std::chrono::seconds(30)));
  }
  EXPECT_TRUE(WaitUntil([&] { return FirstSequence() > last; },
                        std::chrono::seconds(30)))
      << "first " << FirstSequence() << ", last " << last;
  ASSERT_OK_AND_ASSIGN(const auto expected, Holdings(peers_[0]));
  EXPECT_GE(expected.size(), acked_.load());
  ASSERT_OK_AND_ASSIGN(const auto copied, Holdings(joiner_[0]));
  EXPECT_EQ(copied.size(), expected.size());
  EXPECT_TRUE(copied == expected) << "the joiner differs from its peer";
  ASSERT_OK_AND_ASSIGN(const auto other, Holdings(peers_[1]));
  EXPECT_TRUE(other == expected);
}

}  // namespace
}  // namespace neardup
