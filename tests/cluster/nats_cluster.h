#ifndef NEARDUP_TESTS_CLUSTER_NATS_CLUSTER_H_
#define NEARDUP_TESTS_CLUSTER_NATS_CLUSTER_H_

// Real nats-server processes (NATS_SERVER_BINARY) with JetStream, clustered
// on loopback in a temp dir: started, killed (SIGKILL) and restarted by
// process id, each with its own client, route and monitoring port.
//
// A port picked free can be taken by another process before the server binds
// it (parallel tests make outgoing connections from the same range); a server
// that exits while we wait for it is started again on new ports, since on a
// first start JetStream elects no leader until every listed peer is up.

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "support/net.h"
#include "support/wait.h"

namespace neardup::testing {

class NatsCluster {
 public:
  NatsCluster(std::string dir, int size) : dir_(std::move(dir)) {
    std::filesystem::create_directories(dir_);
    nodes_.resize(size);
    for (int i = 0; i < size; ++i) PickPorts(i);
    for (int i = 0; i < size; ++i) WriteConfig(i);
  }
  ~NatsCluster() {
    for (int i = 0; i < static_cast<int>(nodes_.size()); ++i) Kill(i);
  }

  void StartAll() {
    for (int i = 0; i < static_cast<int>(nodes_.size()); ++i) Start(i);
  }
  void Start(int i) {
    Node& node = nodes_[i];
    if (node.pid > 0) return;
    const std::string config = ConfigPath(i);
    const std::string log = absl::StrCat(dir_, "/n", i, ".log");
    // Opened before fork: the child of a threaded process may only call
    // async-signal-safe functions.
    const int out = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    node.pid = fork();
    if (node.pid == 0) {
      // Dies with the test, even one killed by a timeout.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (out < 0) _exit(126);
      dup2(out, STDOUT_FILENO);
      dup2(out, STDERR_FILENO);
      execl(NATS_SERVER_BINARY, NATS_SERVER_BINARY, "-c", config.c_str(),
            static_cast<char*>(nullptr));
      _exit(127);
    }
    if (out >= 0) close(out);
  }
  // SIGKILL: no goodbye to its peers.
  void Kill(int i) {
    Node& node = nodes_[i];
    if (node.pid <= 0) return;
    kill(node.pid, SIGKILL);
    waitpid(node.pid, nullptr, 0);
    node.pid = 0;
  }

  // Until every running server's /healthz says ok (JetStream has its
  // leaders and is current). A server that exited meanwhile is started again
  // on new ports (a few times at most).
  bool WaitHealthy(std::chrono::milliseconds timeout) {
    return WaitUntil(
        [&] {
          RestartExited();
          for (const Node& node : nodes_) {
            if (node.pid <= 0) continue;
            if (HttpGet(node.monitor_port, "/healthz").find("\"ok\"") ==
                std::string::npos) {
              return false;
            }
          }
          return true;
        },
        timeout);
  }

  int route_port(int i) const { return nodes_[i].route_port; }

  // The server that leads `stream` as a live server's monitoring says, or
  // -1 when none says (no leader yet, or no server up).
  int StreamLeader(const std::string& stream) const {
    for (const Node& node : nodes_) {
      if (node.pid <= 0) continue;
      const nlohmann::json jsz = nlohmann::json::parse(
          HttpGet(node.monitor_port, "/jsz?streams=true"), nullptr, false);
      if (!jsz.is_object()) continue;
      for (const auto& account :
           jsz.value("account_details", nlohmann::json::array())) {
        for (const auto& detail :
             account.value("stream_detail", nlohmann::json::array())) {
          if (detail.value("name", "") != stream) continue;
          const std::string leader =
              detail.value("cluster", nlohmann::json::object())
                  .value("leader", "");
          for (size_t i = 0; i < nodes_.size(); ++i) {
            if (leader == absl::StrCat("n", i)) return static_cast<int>(i);
          }
        }
      }
    }
    return -1;
  }

  std::vector<std::string> Urls() const {
    std::vector<std::string> urls;
    for (const Node& node : nodes_) {
      urls.push_back(absl::StrCat("nats://127.0.0.1:", node.client_port));
    }
    return urls;
  }
  // Each server's latest `per_server` warnings, errors and leader changes,
  // a line each (see NeardupdNodes::Warnings).
  std::string Warnings(size_t per_server = 3) const {
    std::string out;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      std::ifstream in(absl::StrCat(dir_, "/n", i, ".log"));
      std::vector<std::string> kept;
      for (std::string line; std::getline(in, line);) {
        if (line.find("Healthcheck failed") != std::string::npos) continue;
        // Leaders of streams and of the cluster, not of every consumer;
        // a dead peer's refused routes say nothing new.
        if (line.find("connect to route") != std::string::npos) continue;
        if (line.find("[WRN]") != std::string::npos ||
            line.find("[ERR]") != std::string::npos ||
            line.find("stream leader") != std::string::npos ||
            line.find("metadata leader") != std::string::npos) {
          kept.push_back(line.substr(0, 200));
        }
      }
      // (Not its pid: another thread may be killing or starting it.)
      absl::StrAppend(&out, "nats n", i, "\n");
      for (size_t k = kept.size() - std::min(kept.size(), per_server);
           k < kept.size(); ++k) {
        absl::StrAppend(&out, "  ", kept[k], "\n");
      }
    }
    return out;
  }
  // What went on, for a failed assertion: each server's state and the end
  // of its log, without the lines our own health polling causes.
  std::string Logs() const {
    std::string out = events_;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      out += absl::StrCat(
          "--- nats n", i, " (pid ", nodes_[i].pid, ", ports client ",
          nodes_[i].client_port, " route ", nodes_[i].route_port, ", /healthz ",
          nodes_[i].pid > 0 ? HttpGet(nodes_[i].monitor_port, "/healthz") : "",
          ")\n", LogTail(i, 60));
    }
    return out;
  }

 private:
  struct Node {
    int client_port = 0;
    int route_port = 0;
    int monitor_port = 0;
    pid_t pid = 0;
    int restarts = 0;
  };
  static constexpr int kMaxRestarts = 3;

  // Free ports no other server of this cluster uses.
  void PickPorts(int i) {
    auto taken = [&](int port) {
      for (const Node& node : nodes_) {
        if (node.client_port == port || node.route_port == port ||
            node.monitor_port == port) {
          return true;
        }
      }
      return false;
    };
    auto pick = [&] {
      int port = FreePort();
      while (taken(port)) port = FreePort();
      return port;
    };
    Node& node = nodes_[i];
    node.client_port = node.route_port = node.monitor_port = 0;
    node.client_port = pick();
    node.route_port = pick();
    node.monitor_port = pick();
  }

  void RestartExited() {
    for (int i = 0; i < static_cast<int>(nodes_.size()); ++i) {
      Node& node = nodes_[i];
      int status = 0;
      if (node.pid <= 0 || waitpid(node.pid, &status, WNOHANG) != node.pid) {
        continue;
      }
      events_ += absl::StrCat(
          "nats n", i, " (pid ", node.pid, ") exited (",
          WIFEXITED(status) ? "status " : "signal ",
          WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
          "); its log ends:\n", LogTail(i, 5));
      node.pid = 0;
      if (node.restarts++ >= kMaxRestarts) continue;
      PickPorts(i);
      // The others keep its old route in their files; it routes to them and
      // they learn its new one from it.
      for (int j = 0; j < static_cast<int>(nodes_.size()); ++j) WriteConfig(j);
      Start(i);
    }
  }

  std::string LogTail(size_t i, size_t lines) const {
    std::ifstream in(absl::StrCat(dir_, "/n", i, ".log"));
    std::vector<std::string> kept;
    for (std::string line; std::getline(in, line);) {
      if (line.find("Healthcheck failed") != std::string::npos) continue;
      kept.push_back(std::move(line));
    }
    std::string out;
    for (size_t k = kept.size() - std::min(kept.size(), lines); k < kept.size();
         ++k) {
      out += kept[k] + "\n";
    }
    return out;
  }

  std::string ConfigPath(int i) const {
    return absl::StrCat(dir_, "/n", i, ".conf");
  }
  void WriteConfig(int i) const {
    const Node& node = nodes_[i];
    std::ofstream out(ConfigPath(i));
    out << "server_name: n" << i << "\n"
        << "listen: 127.0.0.1:" << node.client_port << "\n"
        << "http: 127.0.0.1:" << node.monitor_port << "\n"
        << "jetstream {\n  store_dir: \"" << dir_ << "/data" << i << "\"\n"
        << "  max_memory_store: 64MB\n  max_file_store: 256MB\n}\n"
        << "cluster {\n  name: neardup-test\n  listen: 127.0.0.1:"
        << node.route_port << "\n  routes: [\n";
    for (const Node& peer : nodes_) {
      out << "    nats-route://127.0.0.1:" << peer.route_port << "\n";
    }
    out << "  ]\n}\n";
  }

  std::string dir_;
  std::vector<Node> nodes_;
  std::string events_;
};

}  // namespace neardup::testing

#endif  // NEARDUP_TESTS_CLUSTER_NATS_CLUSTER_H_
