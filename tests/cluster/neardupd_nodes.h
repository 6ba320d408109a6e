#ifndef NEARDUP_TESTS_CLUSTER_NEARDUPD_NODES_H_
#define NEARDUP_TESTS_CLUSTER_NEARDUPD_NODES_H_

// Real neardupd processes in cluster mode over a NatsCluster, for the e2e
// cluster tests: node i is named by ids[i], keeps its data in <dir>/<id>
// and logs to <dir>/<id>.log.

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cluster/nats_cluster.h"
#include "server/server_process.h"

namespace neardup::testing {

class NeardupdNodes {
 public:
  NeardupdNodes(std::string dir, std::vector<std::string> ids)
      : dir_(std::move(dir)), ids_(std::move(ids)) {}

  // Starts every node on `nats` with `extra_flags`, node i as shard index
  // i (given as -1, from its id, when the id ends with i); true once all
  // serve (each has caught up with the log).
  bool StartAll(const NatsCluster& nats,
                const std::vector<std::string>& extra_flags = {}) {
    for (size_t i = 0; i < ids_.size(); ++i) {
      const std::string& id = ids_[i];
      std::vector<std::string> flags = {
          "--cluster-nats=" + absl::StrJoin(nats.Urls(), ","),
          "--node-id=" + id,
          absl::StrCat("--cluster-shard-index=",
                       absl::EndsWith(id, absl::StrCat(i)) ? -1 : int(i))};
      flags.insert(flags.end(), extra_flags.begin(), extra_flags.end());
      const std::string data = absl::StrCat(dir_, "/", id);
      nodes_.push_back(
          std::make_unique<ServerProcess>(data, data + ".log", flags));
      nodes_.back()->Start();
    }
    for (auto& node : nodes_) {
      if (!node->WaitServing(std::chrono::seconds(60))) return false;
    }
    return true;
  }

  ServerProcess& operator[](size_t i) { return *nodes_[i]; }
  size_t size() const { return nodes_.size(); }

  // The end of node i's log (and every node's, for a failed assertion).
  std::string Log(size_t i) const {
    std::ifstream in(absl::StrCat(dir_, "/", ids_[i], ".log"));
    std::string all(std::istreambuf_iterator<char>(in), {});
    return all.size() > 6000 ? all.substr(all.size() - 6000) : all;
  }
  std::string Logs() const {
    std::string out;
    for (size_t i = 0; i < ids_.size(); ++i) {
      out += absl::StrCat("--- neardupd ", ids_[i], "\n", Log(i));
    }
    return out;
  }
  // Each node's latest `per_node` warnings and errors, a line each (the
  // start-up ones about plaintext and tokens left out): CI keeps only the
  // first lines of a failing test's output, so a failure says these first.
  std::string Warnings(size_t per_node = 3) const {
    std::string out;
    for (size_t i = 0; i < ids_.size(); ++i) {
      std::ifstream in(absl::StrCat(dir_, "/", ids_[i], ".log"));
      std::vector<std::string> kept;
      for (std::string line; std::getline(in, line);) {
        if (!absl::StrContains(line, "[warning]") &&
            !absl::StrContains(line, "[error]")) {
          continue;
        }
        if (absl::StrContains(line, "authentication off") ||
            absl::StrContains(line, "WITHOUT TLS")) {
          continue;
        }
        kept.push_back(line.substr(0, 240));
      }
      absl::StrAppend(&out, ids_[i], ": ", kept.size(), " warnings\n");
      for (size_t k = kept.size() - std::min(kept.size(), per_node);
           k < kept.size(); ++k) {
        absl::StrAppend(&out, "  ", kept[k], "\n");
      }
    }
    return out;
  }

 private:
  const std::string dir_;
  const std::vector<std::string> ids_;
  std::vector<std::unique_ptr<ServerProcess>> nodes_;
};

}  // namespace neardup::testing

#endif  // NEARDUP_TESTS_CLUSTER_NEARDUPD_NODES_H_
