// The cluster's log, measured (run by hand; see bench/README.md): starts 3
// nats-server processes clustered on loopback (a 3-replica stream), appends
// N prepared documents one at a time as a node does (each acknowledged by a
// quorum before the next), then lets a new replica with an empty disk apply
// the whole log. Prints the append latency (p50, p99), appends per second,
// and the replica's catch-up in documents per second. Then ingest, side by
// side in one run: the same documents written to a single node's
// collection in batches of 100, and through a cluster node (a second node
// replicating) one at a time and in batches of 100 (UpsertMany).
//
//   build/release/bench/cluster_log_bench [--docs 20000] [--words 250]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "cluster/nats_cluster.h"
#include "neardup/cluster/cluster_node.h"
#include "neardup/cluster/jetstream_log.h"
#include "neardup/cluster/log_entry.h"
#include "neardup/cluster/shard_applier.h"
#include "neardup/engine/database.h"
#include "support/corpus.h"
#include "support/temp_dir.h"

namespace neardup::cluster {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

std::unique_ptr<engine::Database> OpenDatabase(const std::string& dir) {
  engine::DatabaseOptions options;
  auto db = engine::Database::Open(dir, options);
  if (!db.ok()) {
    std::fprintf(stderr, "open %s: %s\n", dir.c_str(),
                 db.status().ToString().c_str());
    std::exit(1);
  }
  return *std::move(db);
}

constexpr size_t kBatch = 100;

int Join(const neardup::testing::NatsCluster& nats, const std::string& dir,
         const CollectionConfig& config, size_t documents);

// Documents per second: a single node's collection (batches of kBatch),
// and a cluster node with a replica, one at a time and in batches.
int Ingest(const neardup::testing::NatsCluster& nats, const std::string& dir,
           const CollectionConfig& config,
           const std::vector<engine::PreparedDocument>& docs) {
  std::unique_ptr<engine::Database> single = OpenDatabase(dir + "/single");
  auto alone = *single->CreateCollection("ingest", config);
  Clock::time_point start = Clock::now();
  for (size_t i = 0; i < docs.size(); i += kBatch) {
    std::vector<const engine::PreparedDocument*> batch;
    for (size_t k = i; k < std::min(docs.size(), i + kBatch); ++k) {
      batch.push_back(&docs[k]);
    }
    for (const auto& put : alone->ApplyMany(batch, {})) {
      if (!put.ok()) {
        std::fprintf(stderr, "%s\n", put.status().ToString().c_str());
        return 1;
      }
    }
  }
  const double single_rate = docs.size() / Seconds(Clock::now() - start);

  std::unique_ptr<engine::Database> db_a = OpenDatabase(dir + "/node-a");
  std::unique_ptr<engine::Database> db_b = OpenDatabase(dir + "/node-b");
  std::vector<std::unique_ptr<ClusterNode>> nodes;
  for (auto* db : {db_a.get(), db_b.get()}) {
    // Never trimmed: the join below replays the whole log too.
    auto node =
        ClusterNode::Start(*db, {.log = {.servers = nats.Urls()},
                                 .node_id = db == db_a.get() ? "a" : "b",
                                 .trim_every = absl::ZeroDuration()});
    if (!node.ok()) {
      std::fprintf(stderr, "%s\n", node.status().ToString().c_str());
      return 1;
    }
    nodes.push_back(*std::move(node));
    for (const char* name : {"one", "batched"}) {
      if (absl::Status hosted = nodes.back()->HostCollection(name, config);
          !hosted.ok()) {
        std::fprintf(stderr, "%s\n", hosted.ToString().c_str());
        return 1;
      }
    }
  }
  const absl::Time deadline = absl::Now() + absl::Hours(1);
  start = Clock::now();
  uint64_t last = 0;
  for (const engine::PreparedDocument& doc : docs) {
    auto written = nodes[0]->Upsert("one", doc, std::nullopt, deadline);
    if (!written.ok()) {
      std::fprintf(stderr, "%s\n", written.status().ToString().c_str());
      return 1;
    }
    last = written->sequence;
  }
  const double one_rate = docs.size() / Seconds(Clock::now() - start);
  start = Clock::now();
  for (size_t i = 0; i < docs.size(); i += kBatch) {
    std::vector<UpsertItem> batch;
    for (size_t k = i; k < std::min(docs.size(), i + kBatch); ++k) {
      batch.push_back({.doc = &docs[k]});
    }
    for (const auto& written :
         nodes[0]->UpsertMany("batched", batch, deadline)) {
      if (!written.ok()) {
        std::fprintf(stderr, "%s\n", written.status().ToString().c_str());
        return 1;
      }
      last = written->sequence;
    }
  }
  const double batched_rate = docs.size() / Seconds(Clock::now() - start);
  if (absl::Status caught = nodes[1]->WaitApplied("batched", last, deadline);
      !caught.ok()) {
    std::fprintf(stderr, "%s\n", caught.ToString().c_str());
    return 1;
  }
  std::printf(
      "ingest, %zu documents each: single node %.0f docs/s (batches of %zu); "
      "cluster node one at a time %.0f docs/s, in batches %.0f docs/s "
      "(%.2fx one at a time, %.3fx the single node)\n",
      docs.size(), single_rate, kBatch, one_rate, batched_rate,
      batched_rate / one_rate, batched_rate / single_rate);
  return Join(nats, dir, config, docs.size());
}

// A node on an empty disk joins collection "batched": from a peer's
// snapshot, or replaying the whole log; twice each, alternately. Prints
// documents per second from hosting to caught up.
int Join(const neardup::testing::NatsCluster& nats, const std::string& dir,
         const CollectionConfig& config, size_t documents) {
  double rates[2][2] = {};
  for (int round = 0; round < 2; ++round) {
    for (int snapshot = 1; snapshot >= 0; --snapshot) {
      const std::string name = absl::StrCat("join-", round, "-", snapshot);
      std::unique_ptr<engine::Database> db = OpenDatabase(dir + "/" + name);
      auto node =
          ClusterNode::Start(*db, {.log = {.servers = nats.Urls()},
                                   .node_id = name,
                                   .join_snapshot_entries = snapshot ? 1u : 0u,
                                   .trim_every = absl::ZeroDuration()});
      if (!node.ok()) {
        std::fprintf(stderr, "%s\n", node.status().ToString().c_str());
        return 1;
      }
      const Clock::time_point start = Clock::now();
      absl::Status joined = (*node)->HostCollection("batched", config);
      if (joined.ok()) joined = (*node)->CatchUp(absl::Now() + absl::Hours(1));
      if (!joined.ok()) {
        std::fprintf(stderr, "%s\n", joined.ToString().c_str());
        return 1;
      }
      rates[round][snapshot] = documents / Seconds(Clock::now() - start);
      const uint64_t loaded = (*node)->ReplicaStates().front().snapshots_loaded;
      if (loaded != static_cast<uint64_t>(snapshot)) {
        std::fprintf(stderr, "%s loaded %llu snapshots\n", name.c_str(),
                     static_cast<unsigned long long>(loaded));
        return 1;
      }
    }
  }
  for (int round = 0; round < 2; ++round) {
    std::printf(
        "join of an empty replica, %zu documents (round %d): from a peer's "
        "snapshot %.0f docs/s, replaying the log %.0f docs/s (%.2fx)\n",
        documents, round + 1, rates[round][1], rates[round][0],
        rates[round][1] / rates[round][0]);
  }
  return 0;
}

int Run(int docs, int words) {
  neardup::testing::TempDir temp;
  neardup::testing::NatsCluster nats(temp.path() + "/nats", 3);
  nats.StartAll();
  if (!nats.WaitHealthy(std::chrono::seconds(30))) {
    std::fprintf(stderr, "nats-server did not start:\n%s\n",
                 nats.Logs().c_str());
    return 1;
  }
  auto log = JetStreamLog::Connect({.servers = nats.Urls()});
  if (!log.ok()) {
    std::fprintf(stderr, "%s\n", log.status().ToString().c_str());
    return 1;
  }
  while (!(*log)->Ready().ok()) {
  }
  const std::string stream = "bench", subject = "bench.s0";
  if (absl::Status made =
          (*log)->EnsureStream({.name = stream, .subjects = {subject}});
      !made.ok()) {
    std::fprintf(stderr, "%s\n", made.ToString().c_str());
    return 1;
  }
  CollectionConfig config;
  std::unique_ptr<engine::Database> writer = OpenDatabase(temp.path() + "/w");
  auto collection = *writer->CreateCollection("docs", config);

  std::printf("preparing %d documents of %d words...\n", docs, words);
  std::vector<std::string> entries;
  std::vector<engine::PreparedDocument> prepared;
  size_t bytes = 0;
  for (int i = 0; i < docs; ++i) {
    LogEntry entry;
    entry.collection = "docs";
    entry.upsert = *collection->PrepareText(
        absl::StrCat("d", i), neardup::testing::GeneratedText(i, words), {});
    prepared.push_back(*entry.upsert);
    entries.push_back(*EncodeLogEntry(entry));
    bytes += entries.back().size();
  }

  std::vector<double> latencies;
  const Clock::time_point start = Clock::now();
  for (const std::string& entry : entries) {
    const Clock::time_point before = Clock::now();
    auto appended = (*log)->Append(subject, entry, {});
    if (!appended.ok()) {
      std::fprintf(stderr, "%s\n", appended.status().ToString().c_str());
      return 1;
    }
    latencies.push_back(Seconds(Clock::now() - before) * 1e3);
  }
  const double append_seconds = Seconds(Clock::now() - start);
  std::sort(latencies.begin(), latencies.end());
  std::printf(
      "append (3 replicas, one at a time): %d entries (%.1f MB) in %.2f s = "
      "%.0f/s; latency p50 %.2f ms p99 %.2f ms\n",
      docs, bytes / 1e6, append_seconds, docs / append_seconds,
      latencies[latencies.size() / 2], latencies[latencies.size() * 99 / 100]);

  std::unique_ptr<engine::Database> replica = OpenDatabase(temp.path() + "/r");
  auto replica_docs = *replica->CreateCollection("docs", config);
  auto applier = ShardApplier::Create(**log, *replica_docs, stream, subject);
  if (!applier.ok()) {
    std::fprintf(stderr, "%s\n", applier.status().ToString().c_str());
    return 1;
  }
  const Clock::time_point catch_up = Clock::now();
  size_t applied = 0;
  while (applied < entries.size()) {
    auto now = (*applier)->ApplyAvailable(absl::Seconds(1));
    if (!now.ok()) {
      std::fprintf(stderr, "%s\n", now.status().ToString().c_str());
      return 1;
    }
    applied += *now;
  }
  const double catch_up_seconds = Seconds(Clock::now() - catch_up);
  std::printf(
      "catch-up of an empty replica: %zu documents in %.2f s = %.0f docs/s\n",
      applied, catch_up_seconds, applied / catch_up_seconds);
  return Ingest(nats, temp.path(), config, prepared);
}

}  // namespace
}  // namespace neardup::cluster

int main(int argc, char** argv) {
  CLI::App app("neardup cluster log benchmark");
  int docs = 20000;
  int words = 250;
  app.add_option("--docs", docs, "documents appended, then caught up on")
      ->capture_default_str();
  app.add_option("--words", words, "words per document")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  return neardup::cluster::Run(docs, words);
}
