// Two cluster nodes in one process, each with its own database, over a real
// 3-server JetStream cluster: a write through either is read on the other
// once it carries the write's sequence, and both end in the same state.

#include "neardup/cluster/cluster_node.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cluster/cluster_test_util.h"
#include "cluster/nats_cluster.h"
#include "cluster/replica_state.h"
#include "neardup/base/status_macros.h"
#include "support/corpus.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace neardup::cluster {
namespace {

using ::neardup::testing::GeneratedText;
using ::neardup::testing::NatsCluster;
using ::neardup::testing::ReplicaState;
using ::neardup::testing::StatusIs;
using ::testing::HasSubstr;

constexpr auto kStartup = neardup::testing::kClusterStartup;
constexpr char kName[] = "news.en_2026";

CollectionConfig Config() { return neardup::testing::ReplicatedConfig(); }

absl::Time Soon() { return absl::Now() + absl::Seconds(20); }

TEST(StreamNames, AreSafeForJetStreamAndOneToOne) {
  EXPECT_EQ(StreamOf("news.en_2026"), "neardup-c-news_den__2026");
  EXPECT_EQ(SubjectOf("news.en_2026", 1), "neardup-c-news_den__2026.s1");
  std::set<std::string> streams;
  for (const char* name : {"a.b", "a_b", "a_db", "a__b", "a._b", "a_.b"}) {
    const std::string stream = StreamOf(name);
    EXPECT_EQ(stream.find('.'), std::string::npos) << name;
    EXPECT_TRUE(streams.insert(stream).second) << name << " -> " << stream;
  }
}

class ClusterNodeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_.StartAll();
    ASSERT_TRUE(cluster_.WaitHealthy(kStartup)) << cluster_.Logs();
    for (const char* id : {"a", "b"}) {
      engine::DatabaseOptions options;
      options.store.block_cache_bytes = size_t{8} << 20;
      options.store.write_buffer_bytes = size_t{4} << 20;
      ASSERT_OK_AND_ASSIGN(
          dbs_.emplace_back(),
          engine::Database::Open(absl::StrCat(temp_.path(), "/", id), options));
      ASSERT_OK_AND_ASSIGN(
          nodes_.emplace_back(),
          ClusterNode::Start(*dbs_.back(),
                             {.log = {.servers = cluster_.Urls(),
                                      .request_timeout = absl::Seconds(2)},
                              .node_id = id}));
      ASSERT_OK(nodes_.back()->HostCollection(kName, Config()));
    }
  }
  void TearDown() override {
    nodes_.clear();  // before their databases
    dbs_.clear();
  }

  engine::Collection& Local(int node) {
    return **dbs_[node]->GetCollection(kName);
  }
  absl::StatusOr<uint64_t> Upsert(int node, const std::string& id,
                                  const std::string& text) {
    ASSIGN_OR_RETURN(const LoggedWrite written, Write(node, id, text));
    return written.sequence;
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

  neardup::testing::TempDir temp_;
  NatsCluster cluster_{temp_.path() + "/nats", 3};
  std::vector<std::unique_ptr<engine::Database>> dbs_;
  std::vector<std::unique_ptr<ClusterNode>> nodes_;
};

TEST_F(ClusterNodeTest, AWriteOnOneNodeIsReadOnTheOtherAtItsSequence) {
  const std::string text = GeneratedText(1);
  ASSERT_OK_AND_ASSIGN(const uint64_t written, Upsert(0, "d0", text));
  ASSERT_OK(nodes_[1]->WaitApplied(kName, written, Soon()));
  ASSERT_OK_AND_ASSIGN(const storage::StoredDocument doc, Local(1).Get("d0"));
  EXPECT_EQ(doc.text, text);
  ASSERT_OK_AND_ASSIGN(const LoggedWrite deletion,
                       nodes_[1]->Delete(kName, "d0", Soon()));
  const uint64_t deleted = deletion.sequence;
  EXPECT_GT(deleted, written);
  ASSERT_OK(nodes_[0]->WaitApplied(kName, deleted, Soon()));
  EXPECT_EQ(Local(0).Get("d0").status().code(), absl::StatusCode::kNotFound);
  // A sequence not written yet: the wait ends at its deadline.
  EXPECT_THAT(
      nodes_[0]->WaitApplied(kName, deleted + 100,
                             absl::Now() + absl::Milliseconds(300)),
      StatusIs(absl::StatusCode::kDeadlineExceeded, HasSubstr("applied")));
  EXPECT_THAT(
      nodes_[0]->WaitApplied("elsewhere", 1, Soon()),
      StatusIs(absl::StatusCode::kNotFound, HasSubstr("no collection named")));
}

// A write answers what it did once this node applied it, as a single
// node's would.
TEST_F(ClusterNodeTest, AWriteSaysWhatItDid) {
  ASSERT_OK_AND_ASSIGN(const LoggedWrite first,
                       Write(0, "d0", GeneratedText(1)));
  EXPECT_TRUE(first.outcome.written);
  EXPECT_FALSE(first.outcome.put.replaced);
  ASSERT_OK_AND_ASSIGN(const LoggedWrite again,
                       Write(1, "d0", GeneratedText(2)));
  EXPECT_TRUE(again.outcome.put.replaced);
  EXPECT_GT(again.sequence, first.sequence);
  // A near-duplicate under another id is blocked, by the document it is
  // near to.
  ASSERT_OK_AND_ASSIGN(const LoggedWrite blocked,
                       Write(0, "d1", GeneratedText(2), 0.8));
  EXPECT_FALSE(blocked.outcome.written);
  ASSERT_EQ(blocked.outcome.blocking.size(), 1u);
  ASSERT_OK_AND_ASSIGN(const LoggedWrite deleted,
                       nodes_[0]->Delete(kName, "d0", Soon()));
  EXPECT_TRUE(deleted.outcome.written);
  EXPECT_THAT(nodes_[1]->Delete(kName, "d0", Soon()).status(),
              StatusIs(absl::StatusCode::kNotFound, ::testing::_));
}

// Dedup-on-write through both nodes at once: of each pair of
// near-duplicates exactly one is stored, the same one on both replicas.
TEST_F(ClusterNodeTest, ConcurrentDedupOnWriteKeepsOneOfEachPairAlike) {
  constexpr int kPairs = 100;
  std::vector<std::vector<bool>> written(2, std::vector<bool>(kPairs));
  std::vector<std::thread> writers;
  for (int node = 0; node < 2; ++node) {
    writers.emplace_back([&, node] {
      for (int i = 0; i < kPairs; ++i) {
        // The same text but for its last word: a Jaccard near 0.97.
        const std::string text =
            absl::StrCat(GeneratedText(7000 + i), node == 0 ? " x" : " y");
        absl::StatusOr<LoggedWrite> one =
            Write(node, absl::StrCat("d", 2 * i + node), text, 0.8);
        EXPECT_OK(one);
        if (one.ok()) written[node][i] = one->outcome.written;
      }
    });
  }
  for (std::thread& writer : writers) writer.join();
  for (int i = 0; i < kPairs; ++i) {
    EXPECT_NE(written[0][i], written[1][i]) << "pair " << i;
  }
  ASSERT_OK_AND_ASSIGN(const uint64_t end, Upsert(0, "end", GeneratedText(1)));
  for (int node = 0; node < 2; ++node) {
    ASSERT_OK(nodes_[node]->WaitApplied(kName, end, Soon()));
    // What each writer was told is what every replica holds.
    for (int i = 0; i < kPairs; ++i) {
      for (int writer = 0; writer < 2; ++writer) {
        EXPECT_EQ(Local(node).Get(absl::StrCat("d", 2 * i + writer)).ok(),
                  written[writer][i])
            << "node " << node << " pair " << i;
      }
    }
  }
  EXPECT_EQ(ReplicaState(Local(0), 2 * kPairs),
            ReplicaState(Local(1), 2 * kPairs));
  EXPECT_EQ(Local(0).num_documents(), static_cast<size_t>(kPairs + 1));
}

// A batch is appended in order and waited for together: each item answers
// as alone, in order, and a near-duplicate later in the batch is blocked
// by an earlier one.
TEST_F(ClusterNodeTest, ABatchIsWrittenInOrder) {
  std::vector<engine::PreparedDocument> docs;
  for (int i = 0; i < 30; ++i) {
    engine::DocumentInput input;
    input.external_id = absl::StrCat("d", i);
    const std::string text = GeneratedText(i == 29 ? 400 : 400 + i);
    input.text = text;
    ASSERT_OK_AND_ASSIGN(docs.emplace_back(), Local(0).Prepare(input));
  }
  std::vector<UpsertItem> items;
  for (const engine::PreparedDocument& doc : docs) items.push_back({&doc});
  items.front().insert_only_below = 0.8;
  items.back().insert_only_below = 0.8;  // the text of d0 again
  items[5].insert_only_below = 0.01;     // below the collection's floor
  std::vector<absl::StatusOr<LoggedWrite>> written =
      nodes_[0]->UpsertMany(kName, items, Soon());
  ASSERT_EQ(written.size(), items.size());
  uint64_t last = 0;
  for (size_t i = 0; i < written.size(); ++i) {
    if (i == 5) {
      EXPECT_THAT(written[i].status(),
                  StatusIs(absl::StatusCode::kInvalidArgument,
                           HasSubstr("insert_only_below")));
      continue;
    }
    ASSERT_OK(written[i].status());
    EXPECT_GT(written[i]->sequence, last) << i;
    last = written[i]->sequence;
    EXPECT_EQ(written[i]->outcome.written, i != 29) << i;
  }
  ASSERT_EQ(written.back()->blocking_ids.size(), 1u);
  EXPECT_EQ(written.back()->blocking_ids[0], "d0");
  ASSERT_OK(nodes_[1]->WaitApplied(kName, last, Soon()));
  EXPECT_EQ(ReplicaState(Local(0), 30), ReplicaState(Local(1), 30));
  EXPECT_EQ(Local(1).num_documents(), 28u);
}

// Plain writes of a batch are sent to the log at once, but still land in
// the batch's order where it matters: a document written twice ends as its
// later write, on both replicas.
TEST_F(ClusterNodeTest, ABatchOfPlainWritesKeepsTheLaterWriteOfADocument) {
  // The stream has a leader before the batch (a retried item may land
  // after later ones: only their outcome is pinned below).
  ASSERT_OK(Upsert(0, "first", GeneratedText(699)).status());
  std::vector<engine::PreparedDocument> docs;
  for (int i = 0; i < 40; ++i) {
    engine::DocumentInput input;
    input.external_id = absl::StrCat("d", i == 20 ? 3 : i);
    const std::string text = GeneratedText(700 + i);
    input.text = text;
    ASSERT_OK_AND_ASSIGN(docs.emplace_back(), Local(0).Prepare(input));
  }
  std::vector<UpsertItem> items;
  for (const engine::PreparedDocument& doc : docs) items.push_back({&doc});
  std::vector<absl::StatusOr<LoggedWrite>> written =
      nodes_[0]->UpsertMany(kName, items, Soon());
  ASSERT_EQ(written.size(), items.size());
  uint64_t last = 0;
  for (size_t i = 0; i < written.size(); ++i) {
    ASSERT_OK(written[i].status());
    last = std::max(last, written[i]->sequence);
  }
  // The later write of d3 came after the earlier one.
  EXPECT_GT(written[20]->sequence, written[3]->sequence);
  ASSERT_OK(nodes_[1]->WaitApplied(kName, last, Soon()));
  for (int node : {0, 1}) {
    ASSERT_OK_AND_ASSIGN(const storage::StoredDocument d3,
                         Local(node).Get("d3"));
    EXPECT_EQ(d3.text.value_or(""), GeneratedText(720)) << node;
  }
  EXPECT_EQ(ReplicaState(Local(0), 40), ReplicaState(Local(1), 40));
  EXPECT_EQ(Local(1).num_documents(), 40u);
}

// A log that stores what it is given but loses the acknowledgements of
// some appends of its first batches: as when the NATS server that stored
// them dies before it answers.
class AckLosingLog : public JetStreamLog {
 public:
  // Loses the acknowledgement of every `every`-th item of the first
  // `batches` batches (AppendMany calls of more than one item).
  AckLosingLog(std::unique_ptr<JetStreamLog> log, int batches, size_t every)
      : log_(std::move(log)), batches_left_(batches), every_(every) {}

  std::vector<absl::StatusOr<Appended>> AppendMany(
      std::span<const AppendItem> items, absl::Time deadline) override {
    std::vector<absl::StatusOr<Appended>> acked =
        log_->AppendMany(items, deadline);
    if (items.size() > 1 && batches_left_.fetch_sub(1) > 0) {
      for (size_t i = every_ - 1; i < acked.size(); i += every_) {
        if (acked[i].ok()) {
          acked[i] = absl::UnavailableError("acknowledgement lost (test)");
          lost_.fetch_add(1);
        }
      }
    }
    return acked;
  }
  int lost() const { return lost_.load(); }

  absl::Status Ready() override { return log_->Ready(); }
  absl::Status EnsureStream(const StreamSpec& spec) override {
    return log_->EnsureStream(spec);
  }
  absl::StatusOr<Appended> Append(std::string_view subject,
                                  std::string_view data,
                                  const AppendOptions& options) override {
    return log_->Append(subject, data, options);
  }
  absl::Status EnsureBucket(std::string_view bucket, int replicas,
                            absl::Duration ttl) override {
    return log_->EnsureBucket(bucket, replicas, ttl);
  }
  absl::Status CreateKey(std::string_view bucket, std::string_view key,
                         std::string_view value) override {
    return log_->CreateKey(bucket, key, value);
  }
  absl::Status PutKey(std::string_view bucket, std::string_view key,
                      std::string_view value) override {
    return log_->PutKey(bucket, key, value);
  }
  absl::StatusOr<std::optional<std::string>> GetKey(
      std::string_view bucket, std::string_view key) override {
    return log_->GetKey(bucket, key);
  }
  absl::StatusOr<std::vector<std::string>> Keys(
      std::string_view bucket, std::string_view prefix) override {
    return log_->Keys(bucket, prefix);
  }
  absl::StatusOr<uint64_t> LastSequence(std::string_view stream) override {
    return log_->LastSequence(stream);
  }
  absl::StatusOr<Bounds> BoundsOf(std::string_view stream) override {
    return log_->BoundsOf(stream);
  }
  absl::Status Trim(std::string_view stream, uint64_t sequence) override {
    return log_->Trim(stream, sequence);
  }
  absl::StatusOr<std::unique_ptr<Subscription>> Subscribe(
      std::string_view subject, std::string_view queue_group,
      MessageHandler handler) override {
    return log_->Subscribe(subject, queue_group, std::move(handler));
  }
  absl::Status Publish(std::string_view subject,
                       std::string_view data) override {
    return log_->Publish(subject, data);
  }
  std::vector<absl::StatusOr<std::string>> RequestEach(
      std::span<const std::string> subjects, std::string_view data,
      absl::Time deadline) override {
    return log_->RequestEach(subjects, data, deadline);
  }
  size_t MaxMessageBytes() override { return log_->MaxMessageBytes(); }
  absl::StatusOr<std::unique_ptr<LogReader>> Read(std::string_view stream,
                                                  std::string_view subject,
                                                  uint64_t start_sequence,
                                                  bool every_record) override {
    return log_->Read(stream, subject, start_sequence, every_record);
  }

 private:
  std::unique_ptr<JetStreamLog> log_;
  std::atomic<int> batches_left_;
  const size_t every_;
  std::atomic<int> lost_{0};
};

// Appends of a batch whose acknowledgements were lost are sent again under
// their append ids: every write is acknowledged, and stored and applied
// once.
TEST_F(ClusterNodeTest, ABatchWhoseAcknowledgementsAreLostIsStoredOnce) {
  ASSERT_OK(Upsert(0, "first", GeneratedText(899)).status());
  AckLosingLog* losing = nullptr;
  engine::DatabaseOptions options;
  options.store.block_cache_bytes = size_t{8} << 20;
  options.store.write_buffer_bytes = size_t{4} << 20;
  ASSERT_OK_AND_ASSIGN(
      dbs_.emplace_back(),
      engine::Database::Open(absl::StrCat(temp_.path(), "/c"), options));
  ASSERT_OK_AND_ASSIGN(
      nodes_.emplace_back(),
      ClusterNode::Start(*dbs_.back(),
                         {.log = {.servers = cluster_.Urls(),
                                  .request_timeout = absl::Seconds(2)},
                          .node_id = "c",
                          .wrap_log = [&](std::unique_ptr<JetStreamLog> log)
                              -> std::unique_ptr<JetStreamLog> {
                            auto wrapped =
                                std::make_unique<AckLosingLog>(std::move(log),
                                                               /*batches=*/2,
                                                               /*every=*/3);
                            losing = wrapped.get();
                            return wrapped;
                          }}));
  ASSERT_OK(nodes_[2]->HostCollection(kName, Config()));
  ASSERT_NE(losing, nullptr);
  ASSERT_OK_AND_ASSIGN(const uint64_t before,
                       losing->LastSequence(StreamOf(kName)));

  std::vector<engine::PreparedDocument> docs;
  for (int i = 0; i < 20; ++i) {
    engine::DocumentInput input;
    input.external_id = absl::StrCat("d", i);
    const std::string text = GeneratedText(900 + i);
    input.text = text;
    ASSERT_OK_AND_ASSIGN(docs.emplace_back(), Local(0).Prepare(input));
  }
  std::vector<UpsertItem> items;
  for (const engine::PreparedDocument& doc : docs) items.push_back({&doc});
  const std::vector<absl::StatusOr<LoggedWrite>> written =
      nodes_[2]->UpsertMany(kName, items, Soon());
  EXPECT_GT(losing->lost(), 0);
  ASSERT_EQ(written.size(), items.size());
  std::set<uint64_t> sequences;
  for (const absl::StatusOr<LoggedWrite>& write : written) {
    ASSERT_OK(write.status());
    EXPECT_TRUE(write->outcome.written);
    EXPECT_FALSE(write->outcome.put.replaced);
    sequences.insert(write->sequence);
  }
  // Twenty entries, each stored once: a resend is the same entry.
  EXPECT_EQ(sequences.size(), 20u);
  EXPECT_EQ(*sequences.begin(), before + 1);
  EXPECT_EQ(*sequences.rbegin(), before + 20);
  ASSERT_OK_AND_ASSIGN(const uint64_t after,
                       losing->LastSequence(StreamOf(kName)));
  EXPECT_EQ(after, before + 20);
  for (int node : {0, 1, 2}) {
    ASSERT_OK(nodes_[node]->WaitApplied(kName, after, Soon()));
    EXPECT_EQ(Local(node).num_documents(), 21u) << node;
  }
  EXPECT_EQ(ReplicaState(Local(0), 21), ReplicaState(Local(2), 21));
}

// Writers on both nodes at once, ids overlapping: the log orders them, so
// both replicas end in the same state.
TEST_F(ClusterNodeTest, ConcurrentWritersThroughBothNodesConverge) {
  constexpr int kIds = 40;
  std::vector<uint64_t> last(2, 0);
  std::vector<std::thread> writers;
  for (int node = 0; node < 2; ++node) {
    writers.emplace_back([&, node] {
      for (int i = 0; i < kIds; ++i) {
        absl::StatusOr<uint64_t> written =
            Upsert(node, absl::StrCat("d", (i * 7 + node) % kIds),
                   GeneratedText(node * 1000 + i));
        EXPECT_OK(written);
        if (written.ok()) last[node] = std::max(last[node], *written);
      }
    });
  }
  for (std::thread& writer : writers) writer.join();
  const uint64_t end = std::max(last[0], last[1]);
  for (int node = 0; node < 2; ++node) {
    ASSERT_OK(nodes_[node]->WaitApplied(kName, end, Soon()));
  }
  EXPECT_EQ(ReplicaState(Local(0), kIds), ReplicaState(Local(1), kIds));
  EXPECT_EQ(Local(0).num_documents(), static_cast<size_t>(kIds));
}

// A node restarted on its disk keeps its replica and resumes the log; one
// told another config for the same collection refuses it.
TEST_F(ClusterNodeTest, ARestartedNodeResumesAndAConfigMismatchIsRefused) {
  ASSERT_OK(Upsert(0, "d0", GeneratedText(0)).status());
  nodes_[1].reset();
  ASSERT_OK_AND_ASSIGN(const uint64_t written,
                       Upsert(0, "d1", GeneratedText(1)));
  ASSERT_OK_AND_ASSIGN(
      nodes_[1], ClusterNode::Start(
                     *dbs_[1], {.log = {.servers = cluster_.Urls(),
                                        .request_timeout = absl::Seconds(2)},
                                .node_id = "b"}));
  CollectionConfig other = Config();
  other.threshold = 0.5;
  EXPECT_THAT(nodes_[1]->HostCollection(kName, other),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("another config")));
  ASSERT_OK(nodes_[1]->HostCollection(kName, Config()));
  ASSERT_OK(nodes_[1]->WaitApplied(kName, written, Soon()));
  EXPECT_EQ(ReplicaState(Local(0), 2), ReplicaState(Local(1), 2));
}

// Collections live in the cluster's registry: the first config wins, and a
// node hosts what another node created.
TEST_F(ClusterNodeTest, ACollectionCreatedOnOneNodeIsHostedByTheOther) {
  ASSERT_OK(nodes_[0]->CreateCollection("reg", Config()));
  // The same again: hosted, and said to exist, as on a single node.
  EXPECT_THAT(
      nodes_[0]->CreateCollection("reg", Config()),
      StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("already exists")));
  CollectionConfig other = Config();
  other.threshold = 0.5;
  EXPECT_THAT(
      nodes_[1]->CreateCollection("reg", other),
      StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("another config")));
  // A request that leaves the evidence width to the default asks for the
  // collection as registered, even with 64-bit evidence (as every
  // collection registered before widths has); one naming a width must match.
  CollectionConfig wide = Config();
  wide.evidence_bits = 64;
  ASSERT_OK(nodes_[0]->CreateCollection("wide", wide));
  CollectionConfig unsaid = Config();
  unsaid.evidence_bits = 0;
  EXPECT_THAT(
      nodes_[1]->CreateCollection("wide", unsaid),
      StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("already exists")));
  CollectionConfig narrow = Config();
  narrow.evidence_bits = 32;
  EXPECT_THAT(
      nodes_[1]->CreateCollection("wide", narrow),
      StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("another config")));
  ASSERT_OK(nodes_[1]->HostRegistered());
  engine::DocumentInput input;
  input.external_id = "d0";
  const std::string text = GeneratedText(5);
  input.text = text;
  ASSERT_OK_AND_ASSIGN(const LoggedWrite written,
                       nodes_[1]->Upsert("reg", input, Soon()));
  ASSERT_OK(nodes_[0]->WaitApplied("reg", written.sequence, Soon()));
  ASSERT_OK_AND_ASSIGN(auto reg, dbs_[0]->GetCollection("reg"));
  ASSERT_OK_AND_ASSIGN(const storage::StoredDocument doc, reg->Get("d0"));
  EXPECT_EQ(doc.text, text);
  EXPECT_EQ(reg->record().config, *NormalizeCollectionConfig(Config()));
}

// A disk that served a collection as a single node: its documents are not
// in the log, so the node refuses to host it (and says why) but hosts the
// cluster's other collections.
TEST_F(ClusterNodeTest, ACollectionWrittenOutsideTheClusterIsNotAdopted) {
  ASSERT_OK_AND_ASSIGN(auto solo, dbs_[1]->CreateCollection("solo", Config()));
  engine::DocumentInput input;
  input.external_id = "local";
  const std::string text = GeneratedText(3);
  input.text = text;
  ASSERT_OK_AND_ASSIGN(const engine::PreparedDocument doc,
                       solo->Prepare(input));
  ASSERT_OK(solo->Apply(doc, {}).status());
  ASSERT_OK(nodes_[0]->CreateCollection("solo", Config()));
  ASSERT_OK(nodes_[0]->CreateCollection("other", Config()));
  EXPECT_THAT(nodes_[1]->HostRegistered(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("written outside the cluster")));
  // Hosted by that call (nothing else named it on node 1).
  EXPECT_OK(dbs_[1]->GetCollection("other").status());
}

}  // namespace
}  // namespace neardup::cluster
