#ifndef NEARDUP_TESTS_CLUSTER_NATS_CLUSTER_H_
#define NEARDUP_TESTS_CLUSTER_NATS_CLUSTER_H_

// Real nats-server processes (NATS_SERVER_BINARY) with JetStream, clustered
// on loopback in a temp dir: started, killed (SIGKILL) and restarted by
// process id, each with its own client, route and monitoring port.

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
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
    for (int i = 0; i < size; ++i) {
      nodes_.push_back({.client_port = FreePort(),
                        .route_port = FreePort(),
                        .monitor_port = FreePort()});
    }
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
  // leaders and is current).
  bool WaitHealthy(std::chrono::milliseconds timeout) {
    return WaitUntil(
        [&] {
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

  std::vector<std::string> Urls() const {
    std::vector<std::string> urls;
    for (const Node& node : nodes_) {
      urls.push_back(absl::StrCat("nats://127.0.0.1:", node.client_port));
    }
    return urls;
  }
  std::string Logs() const {
    std::string out;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      std::ifstream in(absl::StrCat(dir_, "/n", i, ".log"));
      out += absl::StrCat(
          "--- nats n", i, " (pid ", nodes_[i].pid, ", /healthz ",
          nodes_[i].pid > 0 ? HttpGet(nodes_[i].monitor_port, "/healthz") : "",
          ")\n", std::string(std::istreambuf_iterator<char>(in), {}));
    }
    return out;
  }

 private:
  struct Node {
    int client_port = 0;
    int route_port = 0;
    int monitor_port = 0;
    pid_t pid = 0;
  };

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
};

}  // namespace neardup::testing

#endif  // NEARDUP_TESTS_CLUSTER_NATS_CLUSTER_H_
