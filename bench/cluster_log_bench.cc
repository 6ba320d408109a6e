// The cluster's log, measured (run by hand; see bench/README.md): starts 3
// nats-server processes clustered on loopback (a 3-replica stream), appends
// N prepared documents one at a time as a node does (each acknowledged by a
// quorum before the next), then lets a new replica with an empty disk apply
// the whole log. Prints the append latency (p50, p99), appends per second,
// and the replica's catch-up in documents per second.
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
  size_t bytes = 0;
  for (int i = 0; i < docs; ++i) {
    LogEntry entry;
    entry.collection = "docs";
    entry.upsert = *collection->PrepareText(
        absl::StrCat("d", i), neardup::testing::GeneratedText(i, words), {});
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
  return 0;
}

}  // namespace
}  // namespace neardup::cluster

int main(int argc, char** argv) {
  CLI::App app("neardup cluster log benchmark");
  int docs = 20000;
  int words = 250;
  app.add_option("--docs", docs, "documents appended, then caught up on")
      ->capture_default_str();
  app.add_option("--words", words, "words per document")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  return neardup::cluster::Run(docs, words);
}
