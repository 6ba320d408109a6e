// Ingest and query throughput of a cluster against a single node, side by
// side on this machine (run by hand; see bench/README.md): for each layout
// in turn, twice, it starts fresh processes, then runs load_generator
// against the first node (BulkUpsert streams, then near-copy queries by
// text) and prints its figures:
//   single   one neardupd, no NATS
//   1x2      a collection of 1 shard on 2 nodes (2 replicas), 3 NATS servers
//   2x2      a collection of 2 shards on 4 nodes (2 replicas each)
// Every process shares this machine's cores: the figures show what the
// log and the router cost, not how a cluster scales.
//   build/release/bench/cluster_throughput [--docs 20000] [--queries 4000]

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "cluster/nats_cluster.h"
#include "cluster/neardupd_nodes.h"
#include "server/server_process.h"
#include "support/temp_dir.h"

namespace {

struct Layout {
  const char* name;
  int nodes;   // 0: a single node, no NATS
  int shards;  // of the collection
};

// Runs load_generator against `server`; prints its lines with `label`.
int Drive(const std::string& label, const std::string& server, int shards,
          int docs, int queries, int clients, int words) {
  const std::string command = absl::StrCat(
      LOAD_GENERATOR_BINARY, " --server ", server, " --docs ", docs,
      " --queries ", queries, " --clients ", clients, " --words ", words,
      shards > 0 ? absl::StrCat(" --cluster-shards ", shards) : "", " 2>&1");
  FILE* out = popen(command.c_str(), "r");
  if (out == nullptr) return 1;
  char line[4096];
  while (fgets(line, sizeof(line), out) != nullptr) {
    if (std::string_view(line).starts_with("generating")) continue;
    std::printf("%-7s %s", label.c_str(), line);
  }
  std::fflush(stdout);
  return pclose(out) == 0 ? 0 : 1;
}

int Run(const Layout& layout, int docs, int queries, int clients, int words) {
  neardup::testing::TempDir temp;
  if (layout.nodes == 0) {
    neardup::testing::ServerProcess single(temp.path() + "/single",
                                           temp.path() + "/single.log");
    single.Start();
    if (!single.WaitServing(std::chrono::seconds(60))) return 1;
    return Drive(layout.name, single.Address(), 0, docs, queries, clients,
                 words);
  }
  neardup::testing::NatsCluster nats(temp.path() + "/nats", 3);
  nats.StartAll();
  if (!nats.WaitHealthy(std::chrono::seconds(30))) {
    std::fprintf(stderr, "nats-server did not start:\n%s\n",
                 nats.Logs().c_str());
    return 1;
  }
  std::vector<std::string> ids;
  for (int i = 0; i < layout.nodes; ++i) ids.push_back(absl::StrCat("n", i));
  neardup::testing::NeardupdNodes nodes(temp.path(), ids);
  if (!nodes.StartAll(nats)) {
    std::fprintf(stderr, "%s\n", nodes.Logs().c_str());
    return 1;
  }
  return Drive(layout.name, nodes[0].Address(), layout.shards, docs, queries,
               clients, words);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("neardup cluster throughput, side by side with a single node");
  int docs = 20000;
  int queries = 4000;
  int clients = 4;
  int words = 100;
  int rounds = 2;
  app.add_option("--docs", docs)->capture_default_str();
  app.add_option("--queries", queries)->capture_default_str();
  app.add_option("--clients", clients)->capture_default_str();
  app.add_option("--words", words)->capture_default_str();
  app.add_option("--rounds", rounds)->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  const Layout layouts[] = {{"single", 0, 1}, {"1x2", 2, 1}, {"2x2", 4, 2}};
  for (int round = 0; round < rounds; ++round) {
    for (const Layout& layout : layouts) {
      if (Run(layout, docs, queries, clients, words) != 0) {
        std::fprintf(stderr, "%s failed\n", layout.name);
        return 1;
      }
    }
  }
  return 0;
}
