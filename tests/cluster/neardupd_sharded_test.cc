// A collection of two shards on four real neardupd processes (shard index
// 0..3: two replicas of each shard) over a real 3-server JetStream cluster,
// next to a single neardupd with the same documents, through the unchanged
// client: every node answers every query as the single node does (the same
// matches, found on both shards), reads and counts span the shards, the
// replicas of a shard hold the same documents, and dedup-on-write spans the
// shards.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cluster/cluster_test_util.h"
#include "cluster/nats_cluster.h"
#include "cluster/neardupd_nodes.h"
#include "neardup/client/client.h"
#include "neardup/cluster/cluster_node.h"
#include "server/server_process.h"
#include "support/corpus.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace neardup {
namespace {

using ::neardup::testing::GeneratedText;
using ::neardup::testing::NatsCluster;
using ::neardup::testing::NearCopy;
using ::neardup::testing::NeardupdNodes;
using ::neardup::testing::StatusIs;
using ::testing::HasSubstr;

constexpr auto kStartup = neardup::testing::kClusterStartup;
constexpr char kName[] = "web";
constexpr int kBases = 150;  // each with two near copies

std::unique_ptr<client::Client> ClientOf(const std::string& address) {
  client::ClientOptions options;
  options.target = address;
  options.timeout = std::chrono::seconds(30);
  return std::make_unique<client::Client>(options);
}

// A match as compared: its id and similarity.
std::vector<std::string> Matches(const v1::QueryResponse& response) {
  std::vector<std::string> out;
  for (const v1::Match& match : response.matches()) {
    out.push_back(absl::StrCat(match.id(), " ", match.similarity()));
  }
  return out;
}

class NeardupdShardedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    nats_.StartAll();
    ASSERT_TRUE(nats_.WaitHealthy(kStartup)) << nats_.Logs();
    ASSERT_TRUE(nodes_.StartAll(nats_)) << nodes_.Logs() << nats_.Logs();
    single_.Start();
    ASSERT_TRUE(single_.WaitServing(std::chrono::seconds(60)));
    for (size_t i = 0; i < nodes_.size(); ++i) {
      clients_.push_back(ClientOf(nodes_[i].Address()));
    }
    single_client_ = ClientOf(single_.Address());
    v1::CreateCollectionRequest create;
    create.set_name(kName);
    create.mutable_config()->set_store_text(true);
    create.mutable_config()->set_min_threshold(0.5);
    ASSERT_OK(single_client_->CreateCollection(create).status());
    create.set_cluster_shards(2);
    ASSERT_OK_AND_ASSIGN(const v1::Collection created,
                         clients_[1]->CreateCollection(create));
    EXPECT_EQ(created.cluster_shards(), 2u);
  }

  // Every document through BulkUpsert, to `client`; the last sequence.
  uint64_t Load(client::Client& client) {
    int next = 0;
    uint64_t last = 0;
    EXPECT_OK(client.BulkUpsert(
        [&](v1::UpsertRequest* request) {
          if (next == 3 * kBases) return false;
          const int base = next / 3;
          const int copy = next % 3;
          request->set_collection(kName);
          request->set_id(absl::StrCat("b", base, "-", copy));
          std::string text = GeneratedText(3000 + base);
          for (int c = 0; c < copy; ++c) text = NearCopy(text, 30 + c);
          request->set_text(text);
          ++next;
          return true;
        },
        [&](const v1::BulkUpsertResult& result) {
          EXPECT_EQ(result.code(), 0) << result.message();
          last = std::max(last, result.response().log_sequence());
        },
        {.max_items = 50, .max_bytes = size_t{1} << 20}));
    return last;
  }

  std::set<std::string> Exported(client::Client& client, bool replica_only) {
    v1::ExportRequest request;
    request.set_collection(kName);
    request.set_replica_only(replica_only);
    request.set_with_signatures(true);
    std::set<std::string> lines;
    EXPECT_OK(client.Export(request, [&](const v1::ExportResponse& message) {
      for (const v1::Document& doc : message.documents()) {
        lines.insert(absl::StrCat(doc.id(), " ", doc.text(), " ",
                                  doc.signatures().ShortDebugString()));
      }
      return absl::OkStatus();
    }));
    return lines;
  }

  neardup::testing::TempDir temp_;
  NatsCluster nats_{temp_.path() + "/nats", 3};
  NeardupdNodes nodes_{temp_.path(), {"n0", "n1", "n2", "n3"}};
  neardup::testing::ServerProcess single_{temp_.path() + "/single",
                                          temp_.path() + "/single.log"};
  std::vector<std::unique_ptr<client::Client>> clients_;
  std::unique_ptr<client::Client> single_client_;
};

TEST_F(NeardupdShardedTest, EveryNodeAnswersAsASingleNodeDoes) {
  const uint64_t last = Load(*clients_[0]);
  ASSERT_GT(last, 0u);
  Load(*single_client_);
  // Counted across shards, on every node (as the replicas asked have
  // applied the log: every one soon).
  for (size_t i = 0; i < nodes_.size(); ++i) {
    v1::Collection collection;
    EXPECT_TRUE(neardup::testing::WaitUntil(
        [&] {
          absl::StatusOr<v1::Collection> got =
              clients_[i]->GetCollection(kName);
          if (got.ok()) collection = *got;
          return got.ok() && got->document_count() == 3u * kBases;
        },
        std::chrono::seconds(20)))
        << "node " << i << ": " << collection.document_count();
    EXPECT_EQ(collection.cluster_shards(), 2u);
  }
  // Every probe's matches, through every node, as the single node's (a
  // base's near copies are spread over both shards).
  for (int base = 0; base < kBases; base += 7) {
    v1::QueryRequest query;
    query.set_collection(kName);
    query.set_text(NearCopy(GeneratedText(3000 + base), 35));
    query.set_threshold(0.5);
    ASSERT_OK_AND_ASSIGN(const v1::QueryResponse expected,
                         single_client_->Query(query));
    query.set_log_sequence(last);
    ASSERT_GE(expected.matches_size(), 2) << "base " << base;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      ASSERT_OK_AND_ASSIGN(const v1::QueryResponse got,
                           clients_[i]->Query(query));
      EXPECT_EQ(Matches(got), Matches(expected))
          << "base " << base << " node " << i;
    }
    // The best one only: the merge keeps the top_k of all shards.
    query.set_top_k(1);
    query.set_log_sequence(0);
    ASSERT_OK_AND_ASSIGN(const v1::QueryResponse best,
                         single_client_->Query(query));
    query.set_log_sequence(last);
    ASSERT_OK_AND_ASSIGN(const v1::QueryResponse got,
                         clients_[base % nodes_.size()]->Query(query));
    EXPECT_EQ(Matches(got), Matches(best)) << "base " << base;
  }
  // A read of any document through any node, at the write's sequence.
  for (int base = 0; base < kBases; base += 11) {
    const std::string id = absl::StrCat("b", base, "-0");
    v1::GetRequest get;
    get.set_collection(kName);
    get.set_id(id);
    get.set_log_sequence(last);
    ASSERT_OK_AND_ASSIGN(const v1::Document doc,
                         clients_[base % nodes_.size()]->Get(get));
    EXPECT_EQ(doc.text(), GeneratedText(3000 + base));
  }
  // The replicas of a shard hold the same documents, and the shards
  // together what the single node holds.
  v1::ExportRequest whole;
  whole.set_collection(kName);
  EXPECT_THAT(
      clients_[0]->Export(
          whole, [](const v1::ExportResponse&) { return absl::OkStatus(); }),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               HasSubstr("replica_only")));
  // Each replica's own documents: what the single node holds of its shard
  // (once it applied the log: soon).
  std::set<std::string> shard[2];
  for (const std::string& line : Exported(*single_client_, false)) {
    shard[cluster::ShardOf(line.substr(0, line.find(' ')), 2)].insert(line);
  }
  EXPECT_FALSE(shard[0].empty());
  EXPECT_FALSE(shard[1].empty());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    std::set<std::string> held;
    EXPECT_TRUE(neardup::testing::WaitUntil(
        [&] {
          held = Exported(*clients_[i], true);
          return held == shard[i % 2];
        },
        std::chrono::seconds(20)))
        << "node " << i << " holds " << held.size() << " of "
        << shard[i % 2].size();
  }
}

// Dedup-on-write through nodes of either shard: a near copy is blocked by
// the document it is near to, whichever shard holds that one.
TEST_F(NeardupdShardedTest, DedupOnWriteSpansTheShards) {
  std::map<std::string, std::string> texts;
  for (int i = 0; i < 12; ++i) {
    v1::UpsertRequest request;
    request.set_collection(kName);
    request.set_id(absl::StrCat("o", i));
    request.set_text(GeneratedText(8000 + i));
    request.set_insert_only_below(0.7);
    ASSERT_OK_AND_ASSIGN(const v1::UpsertResponse original,
                         clients_[i % nodes_.size()]->Upsert(request));
    EXPECT_TRUE(original.written()) << i;
    // A near copy under another id, through the next node.
    request.set_id(absl::StrCat("c", i));
    request.set_text(NearCopy(GeneratedText(8000 + i), 60));
    ASSERT_OK_AND_ASSIGN(const v1::UpsertResponse copy,
                         clients_[(i + 1) % nodes_.size()]->Upsert(request));
    EXPECT_FALSE(copy.written()) << i;
    EXPECT_EQ(copy.blocking_count(), 1u) << i;
    ASSERT_EQ(copy.blocking_size(), 1) << i;
    EXPECT_EQ(copy.blocking(0).id(), absl::StrCat("o", i));
    EXPECT_GE(copy.blocking(0).similarity(), 0.7);
  }
  EXPECT_TRUE(neardup::testing::WaitUntil(
      [&] {
        absl::StatusOr<v1::Collection> got = clients_[2]->GetCollection(kName);
        return got.ok() && got->document_count() == 12u;
      },
      std::chrono::seconds(20)));
  // A single node holds one shard.
  v1::CreateCollectionRequest create;
  create.set_name("more");
  create.set_cluster_shards(2);
  EXPECT_THAT(single_client_->CreateCollection(create).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("cluster_shards")));
}

// 1,000 near-duplicate pairs whose two documents fall on different shards,
// one of each sent with dedup-on-write through a node of each shard at the
// same time: exactly one of each pair is stored, the one its writer was
// told, as every node reads it.
TEST_F(NeardupdShardedTest, ConcurrentDedupOnWriteAcrossShardsKeepsOneOfEach) {
  constexpr int kPairs = 1000;
  // Writer w's id of pair i: on shard w.
  auto id_of = [](int i, int writer) {
    for (int k = 0;; ++k) {
      std::string id = absl::StrCat("p", i, "-", writer, "-", k);
      if (cluster::ShardOf(id, 2) == writer) return id;
    }
  };
  std::vector<std::vector<char>> written(2, std::vector<char>(kPairs, 0));
  std::vector<uint64_t> last(2, 0);
  std::vector<std::thread> writers;
  for (int writer = 0; writer < 2; ++writer) {
    writers.emplace_back([&, writer] {
      for (int i = 0; i < kPairs; ++i) {
        // The same text but for its last word.
        v1::UpsertRequest request;
        request.set_collection(kName);
        request.set_id(id_of(i, writer));
        request.set_text(absl::StrCat(GeneratedText(60000 + i, 40),
                                      writer == 0 ? " alpha" : " omega"));
        request.set_insert_only_below(0.8);
        // Through a node of the document's shard for one writer, of the
        // other shard for the other.
        absl::StatusOr<v1::UpsertResponse> one =
            clients_[writer]->Upsert(request);
        ASSERT_TRUE(one.ok()) << "pair " << i << ": " << one.status();
        written[writer][i] = one->written();
        last[writer] = std::max(last[writer], one->log_sequence());
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
      v1::GetRequest get;
      get.set_collection(kName);
      get.set_id(id_of(i, writer));
      get.set_log_sequence(end);
      EXPECT_EQ(clients_[(i + writer) % 4]->Get(get).ok(),
                written[writer][i] != 0)
          << "pair " << i << " writer " << writer;
    }
  }
  EXPECT_EQ(kept, kPairs);
}

}  // namespace
}  // namespace neardup
