// Snapshots and log trimming (docs/cluster.md), with cluster nodes in one
// process over a real 3-server JetStream cluster: logs are trimmed behind
// what every replica reported it needs; an empty replica joins from a
// peer's snapshot plus the log after it; a replica the log was trimmed past
// (or whose load broke off) loads a snapshot anew; entries of other shards
// passed over are recorded, so a quiet shard's replica needs none.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "cluster/cluster_test_util.h"
#include "cluster/nats_cluster.h"
#include "neardup/base/status_macros.h"
#include "neardup/cluster/cluster_node.h"
#include "support/corpus.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace neardup::cluster {
namespace {

using ::neardup::testing::GeneratedText;
using ::neardup::testing::NatsCluster;
using ::neardup::testing::WaitUntil;

constexpr auto kStartup = neardup::testing::kClusterStartup;
constexpr char kName[] = "snap";
// Reports live this long: a node stopped longer stops holding the log.
constexpr absl::Duration kReportTtl = absl::Seconds(2);

absl::Time Soon() { return absl::Now() + absl::Seconds(30); }

class SnapshotTest : public ::testing::Test {
 protected:
  virtual int Shards() const { return 1; }
  virtual int InitialNodes() const { return 2; }

  void SetUp() override {
    cluster_.StartAll();
    ASSERT_TRUE(cluster_.WaitHealthy(kStartup)) << cluster_.Logs();
    ASSERT_OK_AND_ASSIGN(log_, neardup::testing::ConnectWhenReady(cluster_));
    for (int i = 0; i < InitialNodes(); ++i) StartNode(i);
    ASSERT_OK(nodes_[0]->CreateCollection(
        kName, neardup::testing::ReplicatedConfig(), Shards()));
    for (int i = 1; i < InitialNodes(); ++i) {
      ASSERT_OK(nodes_[i]->HostNamed(kName));
    }
    for (int i = 0; i < InitialNodes(); ++i) {
      ASSERT_OK(nodes_[i]->CatchUp(Soon()));
    }
  }
  void TearDown() override {
    nodes_.clear();  // before their databases
    dbs_.clear();
  }

  void OpenDatabase(int i) {
    if (dbs_.size() <= static_cast<size_t>(i)) {
      dbs_.resize(i + 1);
      nodes_.resize(i + 1);
    }
    if (dbs_[i] != nullptr) return;
    engine::DatabaseOptions options;
    options.store.block_cache_bytes = size_t{8} << 20;
    options.store.write_buffer_bytes = size_t{4} << 20;
    ASSERT_OK_AND_ASSIGN(
        dbs_[i],
        engine::Database::Open(absl::StrCat(temp_.path(), "/n", i), options));
  }
  void StartNode(int i, uint64_t join_snapshot_entries = 1) {
    OpenDatabase(i);
    ClusterNodeOptions options{
        .log = {.servers = cluster_.Urls(),
                .request_timeout = absl::Seconds(2)},
        .node_id = absl::StrCat("n", i),
        .shard_index = i,
        .join_snapshot_entries = join_snapshot_entries,
        .report_every = absl::Milliseconds(100),
        .report_ttl = kReportTtl,
        .trim_every = absl::Milliseconds(200),
        .trim_keep_entries = 0,
    };
    ASSERT_OK_AND_ASSIGN(nodes_[i], ClusterNode::Start(*dbs_[i], options));
  }
  // Starts node i on its disk, hosting the collection, and waits until it
  // caught up (and answers for its shard).
  void Join(int i, uint64_t join_snapshot_entries = 1) {
    StartNode(i, join_snapshot_entries);
    ASSERT_OK(nodes_[i]->HostNamed(kName));
    ASSERT_OK(nodes_[i]->CatchUp(Soon()));
  }

  engine::Collection& Local(int node) {
    return **dbs_[node]->GetCollection(kName);
  }
  uint64_t SnapshotsLoaded(int node) {
    for (const ReplicaState& state : nodes_[node]->ReplicaStates()) {
      if (state.collection == kName) return state.snapshots_loaded;
    }
    return 0;
  }

  // Writes `count` documents (some with metadata) through node `via`,
  // replaces every fifth and deletes every seventh; the last sequence.
  uint64_t WriteSome(int via, int first, int count) {
    uint64_t last = 0;
    for (int i = first; i < first + count; ++i) {
      engine::DocumentInput input;
      input.external_id = absl::StrCat("d", i);
      const std::string text = GeneratedText(1000 + i);
      input.text = text;
      if (i % 3 == 0) input.metadata = {{"source", absl::StrCat("s", i)}};
      auto doc = Local(via).Prepare(input);
      EXPECT_OK(doc.status());
      if (!doc.ok()) return last;
      auto written = nodes_[via]->Upsert(kName, *doc, std::nullopt, Soon());
      EXPECT_OK(written.status());
      if (written.ok()) last = written->sequence;
      if (i % 5 == 0) {
        const std::string again = GeneratedText(5000 + i);
        input.text = again;
        auto replaced = nodes_[via]->Upsert(kName, *Local(via).Prepare(input),
                                            std::nullopt, Soon());
        EXPECT_OK(replaced.status());
        if (replaced.ok()) last = replaced->sequence;
      }
      if (i % 7 == 0) {
        auto deleted = nodes_[via]->Delete(kName, input.external_id, Soon());
        EXPECT_OK(deleted.status());
        if (deleted.ok()) last = deleted->sequence;
      }
    }
    return last;
  }

  // Everything the replica on `node` stores (evidence and times included),
  // by external id; internal ids are each replica's own.
  std::vector<storage::StoredDocument> Copy(int node) {
    std::vector<storage::StoredDocument> out;
    auto cursor = dbs_[node]->store().OpenDocumentCursor(
        Local(node).record(), /*with_evidence=*/true);
    EXPECT_OK(cursor.status());
    if (!cursor.ok()) return out;
    while (true) {
      auto batch = (*cursor)->Next(100, size_t{1} << 20);
      EXPECT_OK(batch.status());
      if (!batch.ok() || batch->empty()) break;
      for (storage::StoredDocument& doc : *batch) {
        doc.internal_id = 0;
        out.push_back(std::move(doc));
      }
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
      return a.external_id < b.external_id;
    });
    return out;
  }

  // While alive, reports a replica on another node that needs the log after
  // `needed` (a slow one), again and again so its report never expires.
  class Hold {
   public:
    Hold(JetStreamLog& log, uint64_t needed) : log_(log), needed_(needed) {
      Put();
      thread_ = std::thread([this] {
        while (!done_.WaitForNotificationWithTimeout(absl::Milliseconds(200))) {
          Put();
        }
      });
    }
    ~Hold() {
      done_.Notify();
      thread_.join();
    }

   private:
    void Put() {
      log_.PutKey("neardup-replicas", StreamOf(kName) + ".s0.slow-node",
                  absl::StrCat(needed_))
          .IgnoreError();
    }
    JetStreamLog& log_;
    const uint64_t needed_;
    absl::Notification done_;
    std::thread thread_;
  };

  uint64_t FirstSequence() {
    auto bounds = log_->BoundsOf(StreamOf(kName));
    return bounds.ok() ? bounds->first : 0;
  }
  // Waits until the log was trimmed through `sequence`.
  bool TrimmedThrough(uint64_t sequence,
                      std::chrono::seconds within = std::chrono::seconds(20)) {
    return WaitUntil([&] { return FirstSequence() > sequence; }, within);
  }

  neardup::testing::TempDir temp_;
  NatsCluster cluster_{temp_.path() + "/nats", 3};
  std::unique_ptr<JetStreamLog> log_;
  std::vector<std::unique_ptr<engine::Database>> dbs_;
  std::vector<std::unique_ptr<ClusterNode>> nodes_;
};

TEST_F(SnapshotTest, ALogIsTrimmedBehindEveryReplica) {
  const uint64_t last = WriteSome(0, 0, 60);
  for (auto& node : nodes_) ASSERT_OK(node->WaitApplied(kName, last, Soon()));
  // Both replicas applied it all and reported so: nothing is kept.
  ASSERT_TRUE(TrimmedThrough(last)) << "first " << FirstSequence();
  EXPECT_EQ(FirstSequence(), last + 1);
}

// A replica on another node that needs the log after entry 5 (a slow one)
// holds trimming there while it reports, and no longer once its report
// expired.
TEST_F(SnapshotTest, ASlowReplicaHoldsTheLogUntilItsReportExpires) {
  uint64_t last = 0;
  {
    Hold slow(*log_, 5);
    last = WriteSome(0, 0, 30);
    for (auto& node : nodes_) {
      ASSERT_OK(node->WaitApplied(kName, last, Soon()));
    }
    ASSERT_TRUE(WaitUntil([&] { return FirstSequence() == 6; },
                          std::chrono::seconds(10)))
        << "first " << FirstSequence();
    // Several trimming rounds later, still there.
    absl::SleepFor(absl::Seconds(1));
    EXPECT_EQ(FirstSequence(), 6u);
  }
  ASSERT_TRUE(TrimmedThrough(last)) << "first " << FirstSequence();
}

TEST_F(SnapshotTest, AnEmptyReplicaJoinsFromAPeersSnapshotAndTheLogAfterIt) {
  const uint64_t last = WriteSome(0, 0, 150);
  ASSERT_OK(nodes_[1]->WaitApplied(kName, last, Soon()));
  ASSERT_TRUE(TrimmedThrough(last));
  Join(2);
  EXPECT_EQ(SnapshotsLoaded(2), 1u);
  EXPECT_EQ(Copy(2), Copy(0));
  // Writes after the join reach it, through it and through the others.
  const uint64_t more = std::max(WriteSome(2, 150, 20), WriteSome(1, 170, 20));
  for (auto& node : nodes_) ASSERT_OK(node->WaitApplied(kName, more, Soon()));
  const std::vector<storage::StoredDocument> expected = Copy(0);
  EXPECT_EQ(expected.size(), 162u);  // 190 less every seventh
  EXPECT_EQ(Copy(1), expected);
  EXPECT_EQ(Copy(2), expected);  // The snapshot held the log for its reader
                                 // only while it was read
  // (closed by its reader, not a while later).
  EXPECT_TRUE(TrimmedThrough(more, std::chrono::seconds(5)))
      << "first " << FirstSequence();
  // Its index came with the documents: dedup-on-write sees them.
  engine::DocumentInput input;
  input.external_id = "copy-of-d1";
  const std::string text = GeneratedText(1001);
  input.text = text;
  ASSERT_OK_AND_ASSIGN(const engine::PreparedDocument doc,
                       Local(2).Prepare(input));
  ASSERT_OK_AND_ASSIGN(const LoggedWrite blocked,
                       nodes_[2]->Upsert(kName, doc, 0.9, Soon()));
  EXPECT_FALSE(blocked.outcome.written);
  EXPECT_THAT(blocked.blocking_ids, ::testing::ElementsAre("d1"));
}

TEST_F(SnapshotTest, ALongLogIsReplayedWhenNoSnapshotIsWanted) {
  // Held at entry 1 by a report: the whole log stays.
  Hold slow(*log_, 0);
  const uint64_t last = WriteSome(0, 0, 40);
  ASSERT_OK(nodes_[1]->WaitApplied(kName, last, Soon()));
  ASSERT_EQ(FirstSequence(), 1u);
  // Longer than the log: replayed.
  Join(2, /*join_snapshot_entries=*/1000);
  EXPECT_EQ(SnapshotsLoaded(2), 0u);
  EXPECT_EQ(Copy(2), Copy(0));
}

TEST_F(SnapshotTest, AReplicaTheLogWasTrimmedPastLoadsASnapshotAnew) {
  uint64_t last = WriteSome(0, 0, 50);
  ASSERT_OK(nodes_[1]->WaitApplied(kName, last, Soon()));
  nodes_[1].reset();  // its disk stays
  // Deletes and replaces it has not seen, then its report expires and the
  // log is trimmed past what it applied.
  last = WriteSome(0, 40, 60);
  ASSERT_TRUE(TrimmedThrough(last));
  Join(1);
  EXPECT_EQ(SnapshotsLoaded(1), 1u);
  EXPECT_EQ(Copy(1), Copy(0));
  // Started again while the log still holds what it needs: no snapshot.
  ASSERT_OK_AND_ASSIGN(const uint64_t recorded, Local(1).LogSequence());
  Hold held(*log_, recorded);
  nodes_[1].reset();
  last = WriteSome(0, 100, 5);
  ASSERT_LE(FirstSequence(), recorded + 1);
  Join(1);
  EXPECT_EQ(SnapshotsLoaded(1), 0u);
  ASSERT_OK(nodes_[1]->WaitApplied(kName, last, Soon()));
  EXPECT_EQ(Copy(1), Copy(0));
}

TEST_F(SnapshotTest, ALoadThatBrokeOffIsLoadedAnew) {
  Hold whole(*log_, 0);  // the log is not trimmed: only the mark tells
  const uint64_t last = WriteSome(0, 0, 30);
  ASSERT_OK(nodes_[1]->WaitApplied(kName, last, Soon()));
  // Node 2's disk as a crash halfway through a load leaves it: marked, with
  // some documents (one the snapshot does not have).
  OpenDatabase(2);
  ASSERT_OK_AND_ASSIGN(
      auto local,
      dbs_[2]->CreateCollection(kName, neardup::testing::ReplicatedConfig()));
  ASSERT_OK(local->MarkSnapshotLoading());
  ASSERT_OK_AND_ASSIGN(const engine::PreparedDocument stray,
                       local->PrepareText("stray", GeneratedText(77), {}));
  ASSERT_OK(local->Apply(stray).status());
  local.reset();
  // Even with the log whole (no snapshot wanted), the load is made anew.
  Join(2, /*join_snapshot_entries=*/0);
  EXPECT_EQ(SnapshotsLoaded(2), 1u);
  EXPECT_EQ(Copy(2), Copy(0));
  ASSERT_OK_AND_ASSIGN(const bool loading, Local(2).SnapshotLoading());
  EXPECT_FALSE(loading);
}

// Two shards on four nodes (node i holds shard i mod 2).
class ShardedSnapshotTest : public SnapshotTest {
 protected:
  int Shards() const override { return 2; }
  int InitialNodes() const override { return 4; }
};

TEST_F(ShardedSnapshotTest, AJoiningReplicaCopiesAPeerOfItsShard) {
  const uint64_t last = WriteSome(0, 0, 80);
  for (auto& node : nodes_) ASSERT_OK(node->WaitApplied(kName, last, Soon()));
  ASSERT_TRUE(TrimmedThrough(last));
  Join(5);  // shard 1
  EXPECT_EQ(SnapshotsLoaded(5), 1u);
  EXPECT_EQ(Copy(5), Copy(1));
  EXPECT_EQ(Copy(5), Copy(3));
  std::set<int> shards;
  for (const storage::StoredDocument& doc : Copy(5)) {
    shards.insert(ShardOf(doc.external_id, 2));
  }
  EXPECT_THAT(shards, ::testing::ElementsAre(1));
}

// Entries of the other shard are recorded as passed over: a replica whose
// shard saw no write since it stopped needs nothing the trimming removed.
TEST_F(ShardedSnapshotTest, AQuietShardsReplicaNeedsNoSnapshot) {
  uint64_t last = WriteSome(0, 0, 20);
  for (auto& node : nodes_) ASSERT_OK(node->WaitApplied(kName, last, Soon()));
  // Only shard 0's documents from here on.
  std::vector<std::string> shard0;
  for (int i = 1000; shard0.size() < 30; ++i) {
    if (ShardOf(absl::StrCat("x", i), 2) == 0) {
      shard0.push_back(absl::StrCat("x", i));
    }
  }
  for (const std::string& id : shard0) {
    const std::string text = GeneratedText(static_cast<int>(id.size()) * 7 +
                                           static_cast<int>(id.back()));
    auto doc = Local(0).PrepareText(id, text, {});
    ASSERT_OK(doc.status());
    ASSERT_OK_AND_ASSIGN(const LoggedWrite written,
                         nodes_[0]->Upsert(kName, *doc, std::nullopt, Soon()));
    last = written.sequence;
  }
  for (auto& node : nodes_) ASSERT_OK(node->WaitApplied(kName, last, Soon()));
  ASSERT_TRUE(TrimmedThrough(last));
  const std::vector<storage::StoredDocument> before = Copy(1);
  nodes_[1].reset();
  Join(1);
  EXPECT_EQ(SnapshotsLoaded(1), 0u);
  EXPECT_EQ(Copy(1), before);
  EXPECT_EQ(Copy(1), Copy(3));
}

// A shard whose replicas are all gone past their reports' TTL keeps the
// log they need: the others' trimming stops where they were, and one that
// comes back reads on (no peer of its shard is there to copy).
TEST_F(ShardedSnapshotTest, AShardWithoutReplicasKeepsTheLogItNeeds) {
  const uint64_t before = WriteSome(0, 0, 20);
  for (auto& node : nodes_) {
    ASSERT_OK(node->WaitApplied(kName, before, Soon()));
  }
  ASSERT_TRUE(TrimmedThrough(before));
  const std::vector<storage::StoredDocument> shard1 = Copy(1);
  ASSERT_FALSE(shard1.empty());
  nodes_[1].reset();
  nodes_[3].reset();
  // Their reports expire.
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto keys = log_->Keys("neardup-replicas",
                               absl::StrCat(StreamOf(kName), ".s1."));
        return keys.ok() && keys->empty();
      },
      std::chrono::seconds(10)));
  uint64_t last = before;
  for (int i = 0, written = 0; written < 20; ++i) {
    const std::string id = absl::StrCat("z", i);
    if (ShardOf(id, 2) != 0) continue;
    ASSERT_OK_AND_ASSIGN(const engine::PreparedDocument doc,
                         Local(0).PrepareText(id, GeneratedText(300 + i), {}));
    ASSERT_OK_AND_ASSIGN(const LoggedWrite one,
                         nodes_[0]->Upsert(kName, doc, std::nullopt, Soon()));
    last = one.sequence;
    ++written;
  }
  // A write of shard 1 goes into the log; with no replica to apply it,
  // its writer hears nothing of it by its deadline.
  std::string late_id;
  for (int i = 0; late_id.empty() || ShardOf(late_id, 2) != 1; ++i) {
    late_id = absl::StrCat("late-", i);
  }
  ASSERT_OK_AND_ASSIGN(const engine::PreparedDocument late,
                       Local(0).PrepareText(late_id, GeneratedText(999), {}));
  EXPECT_THAT(
      nodes_[0]
          ->Upsert(kName, late, std::nullopt, absl::Now() + absl::Seconds(3))
          .status(),
      ::neardup::testing::StatusIs(absl::StatusCode::kDeadlineExceeded,
                                   ::testing::_));
  ASSERT_OK(nodes_[2]->WaitApplied(kName, last, Soon()));
  // Rounds of trimming later, still where shard 1 was.
  absl::SleepFor(absl::Seconds(1));
  EXPECT_EQ(FirstSequence(), before + 1);
  Join(1);
  EXPECT_EQ(SnapshotsLoaded(1), 0u);
  // What it had, and the write it missed.
  const std::vector<storage::StoredDocument> now = Copy(1);
  ASSERT_EQ(now.size(), shard1.size() + 1);
  EXPECT_EQ(std::count_if(now.begin(), now.end(),
                          [&](const storage::StoredDocument& doc) {
                            return doc.external_id == late_id;
                          }),
            1);
  // Then trimming goes on.
  EXPECT_TRUE(TrimmedThrough(last));
}

}  // namespace
}  // namespace neardup::cluster
