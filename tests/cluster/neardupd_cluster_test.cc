// Two real neardupd processes in cluster mode (--cluster-nats) over a real
// 3-server JetStream cluster, through the unchanged client: a collection
// created on one node is served by both, every write answers its log
// sequence and is read on the other node with it, and dedup-on-write sent
// through both nodes at once keeps exactly one of each near-duplicate pair.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cluster/cluster_test_util.h"
#include "cluster/nats_cluster.h"
#include "cluster/neardupd_nodes.h"
#include "neardup/client/client.h"
#include "support/corpus.h"
#include "support/net.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace neardup {
namespace {

using ::neardup::testing::GeneratedText;
using ::neardup::testing::NatsCluster;
using ::neardup::testing::NeardupdNodes;
using ::neardup::testing::StatusIs;
using ::testing::HasSubstr;

constexpr auto kStartup = neardup::testing::kClusterStartup;
constexpr char kName[] = "news";

class NeardupdClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    nats_.StartAll();
    ASSERT_TRUE(nats_.WaitHealthy(kStartup)) << nats_.Logs();
    ASSERT_TRUE(nodes_.StartAll(nats_)) << nodes_.Logs() << nats_.Logs();
    for (size_t i = 0; i < nodes_.size(); ++i) {
      client::ClientOptions options;
      options.target = nodes_[i].Address();
      options.timeout = std::chrono::seconds(30);
      clients_.push_back(std::make_unique<client::Client>(options));
    }
    v1::CreateCollectionRequest create;
    create.set_name(kName);
    create.mutable_config()->set_store_text(true);
    ASSERT_OK(clients_[0]->CreateCollection(create).status());
  }

  absl::StatusOr<v1::UpsertResponse> Upsert(
      int node, const std::string& id, const std::string& text,
      std::optional<double> insert_only_below = std::nullopt) {
    v1::UpsertRequest request;
    request.set_collection(kName);
    request.set_id(id);
    request.set_text(text);
    if (insert_only_below) request.set_insert_only_below(*insert_only_below);
    return clients_[node]->Upsert(request);
  }
  absl::StatusOr<v1::Document> Get(int node, const std::string& id,
                                   uint64_t log_sequence) {
    v1::GetRequest request;
    request.set_collection(kName);
    request.set_id(id);
    request.set_log_sequence(log_sequence);
    return clients_[node]->Get(request);
  }

  neardup::testing::TempDir temp_;
  NatsCluster nats_{temp_.path() + "/nats", 3};
  NeardupdNodes nodes_{temp_.path(), {"a", "b"}};
  std::vector<std::unique_ptr<client::Client>> clients_;
};

TEST_F(NeardupdClusterTest, AWriteOnOneNodeIsReadOnTheOtherAtItsSequence) {
  uint64_t last = 0;
  for (int i = 0; i < 10; ++i) {
    const int writer = i % 2;
    const std::string id = absl::StrCat("d", i);
    const std::string text = GeneratedText(100 + i);
    ASSERT_OK_AND_ASSIGN(const v1::UpsertResponse written,
                         Upsert(writer, id, text));
    EXPECT_TRUE(written.written());
    EXPECT_GT(written.log_sequence(), last);
    last = written.log_sequence();
    // The other node, asked with the write's sequence: the document, and a
    // query by its text finds it.
    ASSERT_OK_AND_ASSIGN(const v1::Document doc,
                         Get(1 - writer, id, written.log_sequence()));
    EXPECT_EQ(doc.text(), text);
    v1::QueryRequest query;
    query.set_collection(kName);
    query.set_text(text);
    query.set_log_sequence(written.log_sequence());
    ASSERT_OK_AND_ASSIGN(const v1::QueryResponse found,
                         clients_[1 - writer]->Query(query));
    ASSERT_GE(found.matches_size(), 1);
    EXPECT_EQ(found.matches(0).id(), id);
  }
  // Replaced, and deleted, as a single node says it.
  ASSERT_OK_AND_ASSIGN(const v1::UpsertResponse again,
                       Upsert(1, "d0", GeneratedText(7)));
  EXPECT_TRUE(again.replaced());
  v1::DeleteRequest deletion;
  deletion.set_collection(kName);
  deletion.set_id("d1");
  ASSERT_OK_AND_ASSIGN(const v1::DeleteResponse deleted,
                       clients_[0]->Delete(deletion));
  EXPECT_GT(deleted.log_sequence(), again.log_sequence());
  EXPECT_THAT(Get(1, "d1", deleted.log_sequence()).status(),
              StatusIs(absl::StatusCode::kNotFound, ::testing::_));
  EXPECT_THAT(clients_[1]->Delete(deletion).status(),
              StatusIs(absl::StatusCode::kNotFound, ::testing::_));
  // A sequence the log has not reached: the read waits out its deadline.
  client::ClientOptions impatient;
  impatient.target = nodes_[1].Address();
  impatient.timeout = std::chrono::milliseconds(500);
  v1::GetRequest later;
  later.set_collection(kName);
  later.set_id("d2");
  later.set_log_sequence(deleted.log_sequence() + 1000);
  EXPECT_THAT(client::Client(impatient).Get(later).status(),
              StatusIs(absl::StatusCode::kDeadlineExceeded, ::testing::_));
  // What the nodes tell Prometheus: each applied the log through the
  // delete, neither is stalled, and both appended.
  for (size_t node = 0; node < nodes_.size(); ++node) {
    ASSERT_OK(Get(node, "d2", deleted.log_sequence()).status());
    const std::string metrics =
        neardup::testing::HttpGet(nodes_[node].metrics_port(), "/metrics");
    // (The NOT_FOUND delete above is an entry too.)
    const std::string applied_line =
        "neardup_cluster_applied_sequence{collection=\"news\"} ";
    const size_t at = metrics.find(applied_line);
    ASSERT_NE(at, std::string::npos) << metrics;
    EXPECT_GE(std::stoull(metrics.substr(at + applied_line.size())),
              deleted.log_sequence());
    EXPECT_THAT(
        metrics,
        HasSubstr("neardup_cluster_apply_stalled{collection=\"news\"} 0"));
    EXPECT_THAT(metrics, HasSubstr("neardup_cluster_log_append_seconds_count"));
    EXPECT_THAT(metrics, ::testing::Not(HasSubstr(
                             "neardup_cluster_log_append_seconds_count 0")));
  }
  // Dropping is not there yet in a cluster; it says so.
  EXPECT_THAT(clients_[0]->DropCollection(kName),
              StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("cluster")));
}

// 1,000 near-duplicate pairs, one of each sent with dedup-on-write through
// each node at the same time: exactly one of each pair is stored, the one
// its writer was told, on both nodes.
TEST_F(NeardupdClusterTest, ConcurrentDedupOnWriteKeepsExactlyOneOfEachPair) {
  constexpr int kPairs = 1000;
  std::vector<std::vector<char>> written(2, std::vector<char>(kPairs, 0));
  std::vector<uint64_t> last(2, 0);
  std::vector<std::thread> writers;
  for (int node = 0; node < 2; ++node) {
    writers.emplace_back([&, node] {
      for (int i = 0; i < kPairs; ++i) {
        // The same text but for its last word.
        const std::string text = absl::StrCat(GeneratedText(50000 + i, 40),
                                              node == 0 ? " alpha" : " omega");
        absl::StatusOr<v1::UpsertResponse> one =
            Upsert(node, absl::StrCat("p", i, "-", node), text, 0.8);
        ASSERT_OK(one.status());
        written[node][i] = one->written();
        last[node] = std::max(last[node], one->log_sequence());
      }
    });
  }
  for (std::thread& writer : writers) writer.join();
  const uint64_t end = std::max(last[0], last[1]);
  int kept = 0;
  for (int i = 0; i < kPairs; ++i) {
    EXPECT_NE(written[0][i], written[1][i]) << "pair " << i;
    for (int writer = 0; writer < 2; ++writer) {
      kept += written[writer][i];
      for (int node = 0; node < 2; ++node) {
        EXPECT_EQ(Get(node, absl::StrCat("p", i, "-", writer), end).ok(),
                  written[writer][i] != 0)
            << "pair " << i << " writer " << writer << " node " << node;
      }
    }
  }
  EXPECT_EQ(kept, kPairs);
}

}  // namespace
}  // namespace neardup
