// A collection of two shards on four cluster nodes in one process (shard
// index 0..3: nodes 0 and 2 hold shard 0, nodes 1 and 3 shard 1), over a
// real 3-server JetStream cluster: writes land on their document's shard
// only, a writer holding the other shard hears what its write did,
// requests reach one replica of each shard, and dedup-on-write stays exact
// across shards.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "cluster/cluster_test_util.h"
#include "cluster/nats_cluster.h"
#include "neardup/base/status_macros.h"
#include "neardup/base/worker_pool.h"
#include "neardup/cluster/cluster_node.h"
#include "support/corpus.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace neardup::cluster {
namespace {

using ::neardup::testing::GeneratedText;
using ::neardup::testing::NatsCluster;
using ::neardup::testing::StatusIs;
using ::testing::HasSubstr;

constexpr auto kStartup = neardup::testing::kClusterStartup;
constexpr char kName[] = "sharded";
constexpr int kNodes = 4;
constexpr int kShards = 2;

absl::Time Soon() { return absl::Now() + absl::Seconds(20); }

// Documents are placed by xxh3 of their id: fixed, as replicas on disk and
// entries in the log depend on it.
TEST(ShardOf, IsFixed) {
  EXPECT_EQ(ShardOf("d0", 1), 0);
  std::vector<int> two, seven;
  for (const char* id : {"d0", "d1", "d2", "d3", "doc-42", ""}) {
    two.push_back(ShardOf(id, 2));
    seven.push_back(ShardOf(id, 7));
  }
  EXPECT_THAT(two, ::testing::ElementsAre(1, 0, 1, 0, 1, 0));
  EXPECT_THAT(seven, ::testing::ElementsAre(4, 0, 3, 0, 1, 4));
}

class ShardedNodeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_.StartAll();
    ASSERT_TRUE(cluster_.WaitHealthy(kStartup)) << cluster_.Logs();
    for (int i = 0; i < kNodes; ++i) StartNode(i);
    ASSERT_OK(nodes_[0]->CreateCollection(kName, Config(), kShards));
    for (int i = 1; i < kNodes; ++i) ASSERT_OK(nodes_[i]->HostNamed(kName));
    // Each replica answers for its shard once caught up.
    for (auto& node : nodes_) ASSERT_OK(node->CatchUp(Soon()));
  }
  void TearDown() override {
    nodes_.clear();  // before their databases
    dbs_.clear();
  }

  static CollectionConfig Config() {
    return neardup::testing::ReplicatedConfig();
  }

  void StartNode(int i) {
    if (dbs_.size() <= static_cast<size_t>(i)) {
      dbs_.resize(i + 1);
      nodes_.resize(i + 1);
    }
    if (dbs_[i] == nullptr) {
      engine::DatabaseOptions options;
      options.store.block_cache_bytes = size_t{8} << 20;
      options.store.write_buffer_bytes = size_t{4} << 20;
      ASSERT_OK_AND_ASSIGN(
          dbs_[i],
          engine::Database::Open(absl::StrCat(temp_.path(), "/n", i), options));
    }
    ASSERT_OK_AND_ASSIGN(nodes_[i], ClusterNode::Start(*dbs_[i], Options(i)));
  }

  // Restarts node i answering shard requests on a pool of `threads`
  // threads queueing up to `queued` more, as neardupd does (else a thread
  // each).
  void RestartPooled(int i, int threads, size_t queued = 1024) {
    nodes_[i].reset();
    pools_.push_back(std::make_unique<WorkerPool>(threads, queued));
    ClusterNodeOptions options = Options(i);
    options.run = [pool = pools_.back().get()](std::function<void()> work) {
      return pool->TrySubmit(std::move(work));
    };
    ASSERT_OK_AND_ASSIGN(nodes_[i], ClusterNode::Start(*dbs_[i], options));
    ASSERT_OK(nodes_[i]->HostNamed(kName));
    ASSERT_OK(nodes_[i]->CatchUp(Soon()));
  }

  ClusterNodeOptions Options(int i) {
    engine::Database* db = dbs_[i].get();
    return {.log = {.servers = cluster_.Urls(),
                    .request_timeout = absl::Seconds(2)},
            .node_id = absl::StrCat("n", i),
            .shard_index = i,
            // Answers a Get with the document's text, a Collection request
            // with the shard's document count.
            .shard_service =
                [db](const ShardCall& call) -> absl::StatusOr<std::string> {
              ASSIGN_OR_RETURN(auto collection,
                               db->GetCollection(call.collection));
              if (call.kind == ShardCallKind::kCollection) {
                return absl::StrCat(collection->num_documents());
              }
              ASSIGN_OR_RETURN(const storage::StoredDocument doc,
                               collection->Get(call.body));
              return doc.text.value_or("");
            }};
  }

  engine::Collection& Local(int node) {
    return **dbs_[node]->GetCollection(kName);
  }
  absl::StatusOr<LoggedWrite> Write(
      int node, const std::string& id, const std::string& text,
      std::optional<double> insert_only_below = std::nullopt) {
    engine::DocumentInput input;
    input.external_id = id;
    input.text = text;
    ASSIGN_OR_RETURN(const engine::PreparedDocument doc,
                     Local(node).Prepare(input));
    return nodes_[node]->Upsert(kName, doc, insert_only_below, Soon());
  }
  // Waits until every node applied `sequence`.
  void AllApplied(uint64_t sequence) {
    for (auto& node : nodes_)
      ASSERT_OK(node->WaitApplied(kName, sequence, Soon()));
  }
  // Every id of the collection on node `node`, sorted.
  std::set<std::string> Ids(int node) {
    std::set<std::string> ids;
    auto cursor = dbs_[node]->store().OpenDocumentCursor(Local(node).record());
    EXPECT_OK(cursor.status());
    if (!cursor.ok()) return ids;
    while (true) {
      auto batch = (*cursor)->Next(100, size_t{1} << 20);
      EXPECT_OK(batch.status());
      if (!batch.ok() || batch->empty()) return ids;
      for (const auto& doc : *batch) ids.insert(doc.external_id);
    }
  }

  neardup::testing::TempDir temp_;
  NatsCluster cluster_{temp_.path() + "/nats", 3};
  std::vector<std::unique_ptr<engine::Database>> dbs_;
  std::vector<std::unique_ptr<WorkerPool>> pools_;  // outlive their nodes
  std::vector<std::unique_ptr<ClusterNode>> nodes_;
};

TEST_F(ShardedNodeTest, EachShardHoldsItsDocumentsOnBothReplicas) {
  for (int i = 0; i < kNodes; ++i) {
    ASSERT_OK_AND_ASSIGN(const ClusterNode::Placement placement,
                         nodes_[i]->PlacementOf(kName));
    EXPECT_EQ(placement.shards, kShards);
    EXPECT_EQ(placement.shard, i % kShards);
  }
  uint64_t last = 0;
  std::set<std::string> by_shard[kShards];
  for (int i = 0; i < 40; ++i) {
    const std::string id = absl::StrCat("d", i);
    ASSERT_OK_AND_ASSIGN(const LoggedWrite written,
                         Write(i % kNodes, id, GeneratedText(100 + i)));
    EXPECT_TRUE(written.outcome.written) << id;
    EXPECT_FALSE(written.outcome.put.replaced) << id;
    last = written.sequence;
    by_shard[ShardOf(id, kShards)].insert(id);
  }
  ASSERT_FALSE(by_shard[0].empty());
  ASSERT_FALSE(by_shard[1].empty());
  AllApplied(last);
  for (int i = 0; i < kNodes; ++i) {
    EXPECT_EQ(Ids(i), by_shard[i % kShards]) << "node " << i;
  }
}

// A writer holding the other shard hears what its write did from a
// replica of the document's shard: written, replaced, NOT_FOUND.
TEST_F(ShardedNodeTest, AWriterOfTheOtherShardHearsWhatItsWriteDid) {
  // "d1" is on shard 0: node 1 holds shard 1.
  ASSERT_EQ(ShardOf("d1", kShards), 0);
  ASSERT_OK_AND_ASSIGN(const LoggedWrite first,
                       Write(1, "d1", GeneratedText(1)));
  EXPECT_TRUE(first.outcome.written);
  EXPECT_FALSE(first.outcome.put.replaced);
  ASSERT_OK_AND_ASSIGN(const LoggedWrite again,
                       Write(1, "d1", GeneratedText(2)));
  EXPECT_TRUE(again.outcome.put.replaced);
  // Blocked within its shard, by the document named there.
  ASSERT_OK_AND_ASSIGN(const LoggedWrite blocked,
                       Write(3, "d3x", GeneratedText(2), 0.8));
  EXPECT_FALSE(blocked.outcome.written);
  ASSERT_EQ(blocked.blocking_ids.size(), 1u);
  EXPECT_EQ(blocked.blocking_ids[0], "d1");
  EXPECT_EQ(blocked.blocking_count, 1u);
  ASSERT_OK_AND_ASSIGN(const LoggedWrite deleted,
                       nodes_[1]->Delete(kName, "d1", Soon()));
  EXPECT_TRUE(deleted.outcome.written);
  EXPECT_THAT(nodes_[3]->Delete(kName, "d1", Soon()).status(),
              StatusIs(absl::StatusCode::kNotFound, ::testing::_));
}

// Requests reach one replica of each shard, which answers once it applied
// the request's sequence: read your writes through any node.
TEST_F(ShardedNodeTest, RequestsReachEveryShardAtASequence) {
  uint64_t last = 0;
  for (int i = 0; i < 10; ++i) {
    ASSERT_OK_AND_ASSIGN(const LoggedWrite written,
                         Write(0, absl::StrCat("d", i), GeneratedText(i)));
    last = written.sequence;
  }
  std::vector<absl::StatusOr<std::string>> counts = nodes_[2]->AskEveryShard(
      kName, ShardCallKind::kCollection, "", last, Soon());
  ASSERT_EQ(counts.size(), 2u);
  int total = 0;
  for (const auto& count : counts) {
    ASSERT_OK(count.status());
    total += std::stoi(*count);
  }
  EXPECT_EQ(total, 10);
  for (int i = 0; i < 10; ++i) {
    const std::string id = absl::StrCat("d", i);
    ASSERT_OK_AND_ASSIGN(const LoggedWrite written,
                         Write(i % kNodes, id, GeneratedText(50 + i)));
    // Through a node of either shard, at the write's sequence.
    ASSERT_OK_AND_ASSIGN(
        const std::string text,
        nodes_[(i + 1) % kNodes]->AskShardOf(kName, id, ShardCallKind::kGet, id,
                                             written.sequence, Soon()));
    EXPECT_EQ(text, GeneratedText(50 + i)) << id;
  }
  // The service's error comes back as it was, naming the shard.
  EXPECT_THAT(
      nodes_[0]
          ->AskShardOf(kName, "nope", ShardCallKind::kGet, "nope", 0, Soon())
          .status(),
      StatusIs(absl::StatusCode::kNotFound, HasSubstr("shard")));
}

// A shard whose replicas are all gone: a request for it is UNAVAILABLE
// (not a partial answer); with one replica left, it is answered.
TEST_F(ShardedNodeTest, AShardWithoutReplicasIsUnavailable) {
  ASSERT_OK_AND_ASSIGN(const LoggedWrite written,
                       Write(0, "d0", GeneratedText(0)));
  nodes_[1].reset();
  std::vector<absl::StatusOr<std::string>> counts = nodes_[0]->AskEveryShard(
      kName, ShardCallKind::kCollection, "", written.sequence, Soon());
  for (const auto& count : counts) EXPECT_OK(count.status());
  nodes_[3].reset();
  counts = nodes_[0]->AskEveryShard(kName, ShardCallKind::kCollection, "",
                                    written.sequence, Soon());
  ASSERT_EQ(counts.size(), 2u);
  EXPECT_OK(counts[0].status());
  EXPECT_THAT(counts[1].status(), StatusIs(absl::StatusCode::kUnavailable,
                                           HasSubstr("shard 1 of collection")));
}

// Requests waiting for a log sequence the replicas have not applied (a
// read at a writer's sequence, a writer asking for an outcome, while the
// log stalls) hold no thread: requests that need no wait are answered
// meanwhile, however many wait. A parked request is answered once its
// sequence is applied, or when its time is up.
TEST_F(ShardedNodeTest, RequestsWaitingForTheLogDoNotHoldBackOthers) {
  ASSERT_NO_FATAL_FAILURE(RestartPooled(0, 2));  // both replicas of shard 0
  ASSERT_NO_FATAL_FAILURE(RestartPooled(2, 2));
  ASSERT_OK_AND_ASSIGN(const LoggedWrite written,
                       Write(1, "d1", GeneratedText(1)));  // shard 0
  AllApplied(written.sequence);
  // Far more waiting requests than both replicas have threads, each for a
  // sequence no write reaches during the test.
  const uint64_t never = written.sequence + 1000000;
  std::vector<std::thread> waiting;
  std::vector<absl::Status> waited(20);
  // However the test ends, they are waited for.
  const absl::Cleanup join_waiting = [&] {
    for (std::thread& thread : waiting) thread.join();
  };
  const absl::Time asked = absl::Now();
  for (size_t k = 0; k < waited.size(); ++k) {
    waiting.emplace_back([&, k] {
      waited[k] = nodes_[1]
                      ->AskShardOf(kName, "d1", ShardCallKind::kGet, "d1",
                                   never, absl::Now() + absl::Seconds(8))
                      .status();
    });
  }
  // Meanwhile reads that need no wait are answered, each within 4 s (an
  // unanswered ask is asked again after 1; with waiting requests holding
  // the threads, none was answered before the waiting ones gave up).
  int answered = 0;
  while (absl::Now() < asked + absl::Seconds(3)) {
    absl::StatusOr<std::string> text =
        nodes_[3]->AskShardOf(kName, "d1", ShardCallKind::kGet, "d1", 0,
                              absl::Now() + absl::Seconds(4));
    ASSERT_OK(text.status());
    EXPECT_EQ(*text, GeneratedText(1));
    ++answered;
  }
  EXPECT_GT(answered, 2);
  // A parked read is answered once the write it waits for is applied.
  absl::StatusOr<std::string> later;
  std::thread reader([&] {
    later = nodes_[3]->AskShardOf(kName, "d3", ShardCallKind::kGet, "d3",
                                  written.sequence + 1, Soon());
  });
  absl::StatusOr<LoggedWrite> next = Write(0, "d3", GeneratedText(3));
  reader.join();
  ASSERT_OK(next.status());  // shard 0
  ASSERT_EQ(next->sequence, written.sequence + 1);
  ASSERT_OK(later.status());
  EXPECT_EQ(*later, GeneratedText(3));
  for (std::thread& thread : waiting) thread.join();
  waiting.clear();
  for (const absl::Status& status : waited) {
    EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
  }
}

// Parked requests released together wait for room in the pool rather than
// be refused: their askers still wait for them.
TEST_F(ShardedNodeTest, ParkedRequestsReleasedTogetherAreAllAnswered) {
  // Room for fewer than the released reads (12, and the copies a reader
  // asks again after a second unanswered), more than a stray one.
  ASSERT_NO_FATAL_FAILURE(RestartPooled(0, 1, /*queued=*/4));
  ASSERT_NO_FATAL_FAILURE(RestartPooled(2, 1, /*queued=*/4));
  ASSERT_OK_AND_ASSIGN(const LoggedWrite written,
                       Write(1, "d1", GeneratedText(1)));  // shard 0
  AllApplied(written.sequence);
  std::vector<absl::StatusOr<std::string>> read(12, absl::UnknownError(""));
  std::vector<std::thread> readers;
  const absl::Cleanup join_readers = [&] {
    for (std::thread& thread : readers) thread.join();
  };
  for (size_t k = 0; k < read.size(); ++k) {
    readers.emplace_back([&, k] {
      read[k] = nodes_[3]->AskShardOf(kName, "d3", ShardCallKind::kGet, "d3",
                                      written.sequence + 1, Soon());
    });
  }
  // Parked once each reader's ask arrived: the write comes after all.
  ASSERT_TRUE(neardup::testing::WaitUntil(
      [&] {
        uint64_t parked = 0;
        for (int node : {0, 2}) parked += nodes_[node]->ParkedRequests(kName);
        return parked >= read.size();
      },
      kStartup));
  ASSERT_OK(Write(0, "d3", GeneratedText(3)).status());  // shard 0
  for (std::thread& thread : readers) thread.join();
  readers.clear();
  for (const absl::StatusOr<std::string>& text : read) {
    ASSERT_OK(text.status());
    EXPECT_EQ(*text, GeneratedText(3));
  }
}

// Dedup-on-write through nodes of both shards at once, each pair's two
// near-duplicates on different shards: exactly one of each pair stored,
// the one its writer was told.
TEST_F(ShardedNodeTest, ConcurrentDedupOnWriteAcrossShardsKeepsOneOfEachPair) {
  constexpr int kPairs = 40;
  // Ids of each pair on different shards.
  std::vector<std::pair<std::string, std::string>> ids;
  for (int i = 0, a = 0; static_cast<int>(ids.size()) < kPairs; ++i) {
    std::string x = absl::StrCat("x", i);
    if (ShardOf(x, kShards) != 0) continue;
    std::string y;
    do {
      y = absl::StrCat("y", a++);
    } while (ShardOf(y, kShards) != 1);
    ids.emplace_back(x, y);
  }
  std::vector<std::vector<bool>> written(2, std::vector<bool>(kPairs));
  std::vector<std::thread> writers;
  for (int w = 0; w < 2; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < kPairs; ++i) {
        const std::string text =
            absl::StrCat(GeneratedText(7000 + i), w == 0 ? " x" : " y");
        // Writer 0 through node 1 (shard 1) writes the pair's shard-0 id,
        // writer 1 through node 2 (shard 0) its shard-1 id.
        absl::StatusOr<LoggedWrite> one = Write(
            w == 0 ? 1 : 2, w == 0 ? ids[i].first : ids[i].second, text, 0.8);
        EXPECT_OK(one);
        if (one.ok()) {
          written[w][i] = one->outcome.written;
          if (!one->outcome.written) {
            EXPECT_EQ(one->blocking_ids,
                      std::vector<std::string>{w == 0 ? ids[i].second
                                                      : ids[i].first});
          }
        }
      }
    });
  }
  for (std::thread& writer : writers) writer.join();
  for (int i = 0; i < kPairs; ++i) {
    EXPECT_NE(written[0][i], written[1][i]) << "pair " << i;
  }
  ASSERT_OK_AND_ASSIGN(const LoggedWrite end,
                       Write(0, "end", GeneratedText(1)));
  AllApplied(end.sequence);
  std::set<std::string> stored;
  for (int i = 0; i < kNodes; ++i) {
    std::set<std::string> here = Ids(i);
    EXPECT_EQ(here, Ids((i + 2) % kNodes)) << "replicas of shard " << i % 2;
    stored.insert(here.begin(), here.end());
  }
  for (int i = 0; i < kPairs; ++i) {
    EXPECT_EQ(stored.contains(ids[i].first), written[0][i]) << i;
    EXPECT_EQ(stored.contains(ids[i].second), written[1][i]) << i;
  }
}

// The registry keeps the shard count with the config; a node restarted
// with another shard index refuses the disk of the shard it had.
TEST_F(ShardedNodeTest, TheShardCountIsFixedAndADiskKeepsItsShard) {
  CollectionConfig config = Config();
  EXPECT_THAT(nodes_[1]->CreateCollection(kName, config, 3),
              StatusIs(absl::StatusCode::kAlreadyExists,
                       HasSubstr("exists in the cluster with 2 shards")));
  EXPECT_THAT(nodes_[1]->CreateCollection("x", config, 0),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("shards must be in")));
  ASSERT_OK_AND_ASSIGN(auto log, neardup::testing::ConnectWhenReady(cluster_));
  ASSERT_OK_AND_ASSIGN(const std::optional<std::string> value,
                       log->GetKey(kRegistryBucket, kName));
  ASSERT_TRUE(value.has_value());
  // RegisteredCollection: field 1 the config as the store encodes it, then
  // field 2, the shard count.
  EXPECT_EQ(absl::BytesToHexString(value->substr(value->size() - 2)), "1002");

  ASSERT_OK_AND_ASSIGN(const LoggedWrite written,
                       Write(0, "d1", GeneratedText(1)));  // shard 0
  ASSERT_OK(nodes_[2]->WaitApplied(kName, written.sequence, Soon()));
  nodes_[2].reset();
  ClusterNodeOptions moved = Options(2);
  moved.shard_index = 1;
  ASSERT_OK_AND_ASSIGN(nodes_[2], ClusterNode::Start(*dbs_[2], moved));
  EXPECT_THAT(nodes_[2]->HostNamed(kName),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("holds shard 0 of 2")));
  nodes_[2].reset();
  StartNode(2);
  ASSERT_OK(nodes_[2]->HostNamed(kName));
}

}  // namespace
}  // namespace neardup::cluster
