// Replicas applying one shard's log: two local databases fed by the same
// subject of a real 3-server JetStream cluster end in the same state, and a
// replica closed half-way resumes after its last applied entry, missing
// none and applying none twice.

#include "neardup/cluster/shard_applier.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cluster/cluster_test_util.h"
#include "cluster/nats_cluster.h"
#include "cluster/replica_state.h"
#include "neardup/base/status_macros.h"
#include "neardup/cluster/log_entry.h"
#include "neardup/engine/database.h"
#include "support/corpus.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace neardup::cluster {
namespace {

using ::neardup::testing::GeneratedText;
using ::neardup::testing::NatsCluster;
using ::neardup::testing::ReplicaState;
using ::neardup::testing::WaitUntil;

constexpr auto kStartup = neardup::testing::kClusterStartup;
constexpr char kStream[] = "c-docs";
constexpr char kSubject[] = "c-docs.s0";

CollectionConfig Config() { return neardup::testing::ReplicatedConfig(); }

class ShardApplierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_.StartAll();
    ASSERT_TRUE(cluster_.WaitHealthy(kStartup)) << cluster_.Logs();
    ASSERT_OK_AND_ASSIGN(log_, neardup::testing::ConnectWhenReady(cluster_));
    ASSERT_OK(log_->EnsureStream(
        {.name = kStream, .subjects = {kSubject}, .replicas = 3}));
  }

  // A replica: its own database, with the collection made as every
  // replica makes it.
  struct Replica {  // destroyed applier first, database last
    std::unique_ptr<engine::Database> db;
    std::shared_ptr<engine::Collection> docs;
    std::unique_ptr<ShardApplier> applier;
  };
  absl::StatusOr<Replica> OpenReplica(const std::string& name) {
    Replica replica;
    engine::DatabaseOptions options;
    options.store.block_cache_bytes = size_t{8} << 20;
    options.store.write_buffer_bytes = size_t{4} << 20;
    ASSIGN_OR_RETURN(
        replica.db, engine::Database::Open(temp_.path() + "/" + name, options));
    absl::StatusOr<std::shared_ptr<engine::Collection>> docs =
        replica.db->GetCollection("docs");
    if (!docs.ok()) docs = replica.db->CreateCollection("docs", Config());
    ASSIGN_OR_RETURN(replica.docs, std::move(docs));
    ASSIGN_OR_RETURN(replica.applier, ShardApplier::Create(*log_, *replica.docs,
                                                           kStream, kSubject));
    return replica;
  }

  // Prepares (on `node`, as the receiving node would) and appends.
  uint64_t Upsert(engine::Collection& node, const std::string& id,
                  const std::string& text) {
    LogEntry entry;
    entry.collection = "docs";
    entry.upsert = *node.PrepareText(id, text, {{"n", id}});
    return Append(entry);
  }
  uint64_t Delete(const std::string& id) {
    LogEntry entry;
    entry.collection = "docs";
    entry.delete_id = id;
    return Append(entry);
  }
  uint64_t Append(const LogEntry& entry) {
    absl::StatusOr<Appended> appended =
        log_->Append(kSubject, *EncodeLogEntry(entry), {});
    EXPECT_OK(appended);
    return appended.ok() ? appended->sequence : 0;
  }

  static bool CatchUp(ShardApplier& applier, uint64_t sequence) {
    return WaitUntil(
        [&] {
          EXPECT_OK(applier.ApplyAvailable(absl::Milliseconds(100)).status());
          return applier.applied_sequence() >= sequence;
        },
        std::chrono::seconds(30));
  }

  neardup::testing::TempDir temp_;
  NatsCluster cluster_{temp_.path() + "/nats", 3};
  std::unique_ptr<JetStreamLog> log_;
};

TEST_F(ShardApplierTest, ReplicasConvergeAndResumeAfterTheirLastEntry) {
  ASSERT_OK_AND_ASSIGN(Replica a, OpenReplica("a"));
  ASSERT_OK_AND_ASSIGN(Replica b, OpenReplica("b"));
  constexpr int kIds = 30;
  for (int i = 0; i < kIds; ++i) {
    Upsert(*a.docs, absl::StrCat("d", i), GeneratedText(i));
  }
  Delete("d3");
  Delete("never-there");  // applied alike everywhere: a change of nothing
  const uint64_t half = Upsert(*a.docs, "d5", GeneratedText(105));

  ASSERT_TRUE(CatchUp(*a.applier, half));
  ASSERT_TRUE(CatchUp(*b.applier, half));
  EXPECT_EQ(a.applier->refused(), 1u);
  EXPECT_EQ(ReplicaState(*a.docs, kIds), ReplicaState(*b.docs, kIds));
  EXPECT_EQ(a.docs->num_documents(), static_cast<size_t>(kIds - 1));

  // b goes away; the log goes on; b comes back on its own disk.
  b.applier.reset();
  b.docs.reset();
  b.db.reset();
  for (int i = 10; i < 20; ++i) {
    Upsert(*a.docs, absl::StrCat("d", i), GeneratedText(200 + i));
  }
  Delete("d7");
  const uint64_t last = Upsert(*a.docs, "d3", GeneratedText(303));
  ASSERT_OK_AND_ASSIGN(b, OpenReplica("b"));
  EXPECT_EQ(b.applier->applied_sequence(), half);  // from its own store
  // Exactly the 12 entries after its last: none again, none missed.
  size_t applied = 0;
  ASSERT_TRUE(WaitUntil(
      [&] {
        absl::StatusOr<size_t> now =
            b.applier->ApplyAvailable(absl::Milliseconds(100));
        EXPECT_OK(now);
        if (now.ok()) applied += *now;
        return b.applier->applied_sequence() >= last;
      },
      std::chrono::seconds(30)));
  EXPECT_EQ(applied, 12u);
  EXPECT_EQ(b.applier->refused(), 0u);
  ASSERT_TRUE(CatchUp(*a.applier, last));
  EXPECT_EQ(ReplicaState(*a.docs, kIds), ReplicaState(*b.docs, kIds));
  EXPECT_EQ(b.docs->num_documents(), a.docs->num_documents());
  EXPECT_EQ(a.docs->num_documents(), static_cast<size_t>(kIds - 1));
  ASSERT_OK_AND_ASSIGN(const uint64_t recorded, b.docs->LogSequence());
  EXPECT_EQ(recorded, last);
}

// An entry this replica cannot apply as the node that prepared it did (a
// signature of another config: this replica's config differs) stops it
// there, entry after entry, instead of letting it drift from its peers.
TEST_F(ShardApplierTest, AnEntryThisReplicaRefusesStopsIt) {
  ASSERT_OK_AND_ASSIGN(Replica a, OpenReplica("a"));
  const uint64_t good = Upsert(*a.docs, "d0", GeneratedText(0));
  LogEntry foreign;
  foreign.collection = "docs";
  foreign.upsert = *a.docs->PrepareText("d1", GeneratedText(1), {});
  foreign.upsert->minhash_config_hash ^= 1;
  const uint64_t bad = Append(foreign);
  Upsert(*a.docs, "d2", GeneratedText(2));
  ASSERT_TRUE(CatchUp(*a.applier, good));
  for (int attempt = 0; attempt < 2; ++attempt) {
    EXPECT_THAT(a.applier->ApplyAvailable(absl::Milliseconds(100)).status(),
                ::neardup::testing::StatusIs(
                    absl::StatusCode::kFailedPrecondition,
                    ::testing::HasSubstr(absl::StrCat("log entry ", bad))));
    EXPECT_EQ(a.applier->applied_sequence(), good);
  }
  EXPECT_EQ(a.docs->Get("d2").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace neardup::cluster
