#ifndef NEARDUP_TESTS_SERVER_SERVER_PROCESS_H_
#define NEARDUP_TESTS_SERVER_SERVER_PROCESS_H_

// Runs the real neardupd binary (NEARDUPD_BINARY) on 127.0.0.1 with free
// ports, for end-to-end tests.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "neardup/client/client.h"
#include "support/net.h"

namespace neardup::testing {

class ServerProcess {
 public:
  // `plaintext`: pass --plaintext (tests that set up TLS pass false).
  ServerProcess(std::string data_dir, std::string log_path,
                std::vector<std::string> extra_flags = {},
                bool plaintext = true)
      : data_dir_(std::move(data_dir)),
        log_path_(std::move(log_path)),
        extra_flags_(std::move(extra_flags)),
        plaintext_(plaintext) {}
  ~ServerProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  // Starts neardupd on fresh ports (the same ports again on a restart).
  // Starts neardupd. The first start lets the kernel pick both ports (no
  // race with other tests picking "free" ports) and reads them from the
  // log; a restart reuses them.
  void Start() {
    const size_t log_offset = LogSize();
    start_log_offset_ = log_offset;
    std::vector<std::string> args = {
        NEARDUPD_BINARY,
        "--listen=" + Address(),
        absl::StrCat("--metrics-listen=127.0.0.1:", metrics_port_),
        "--data-dir=" + data_dir_,
        "--block-cache-bytes=16777216",
        "--log-level=info"};
    if (plaintext_) args.push_back("--plaintext");
    args.insert(args.end(), extra_flags_.begin(), extra_flags_.end());
    pid_ = fork();
    if (pid_ == 0) {
      FILE* log = fopen(log_path_.c_str(), "a");
      dup2(fileno(log), STDOUT_FILENO);
      dup2(fileno(log), STDERR_FILENO);
      std::vector<char*> argv;
      for (std::string& arg : args) argv.push_back(arg.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    if (grpc_port_ == 0) ReadPortsFromLog(log_offset);
  }

  // Polls grpc.health.v1 until SERVING; false after `timeout`.
  bool WaitServing(std::chrono::seconds timeout = std::chrono::seconds(30)) {
    // Wait for the port first: a gRPC channel that found it closed backs off
    // for a second or more before trying again.
    if (!WaitForPort(grpc_port_, timeout)) return false;
    client::ClientOptions options;
    options.target = Address();
    options.timeout = std::chrono::milliseconds(500);
    client::Client probe(options);
    const auto give_up = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < give_up) {
      auto status = probe.Health();
      // And this start's log says so: until neardupd turns its health off,
      // right after it starts listening, gRPC's health service answers
      // SERVING.
      if (status.ok() &&
          *status == grpc::health::v1::HealthCheckResponse::SERVING &&
          LogSince(start_log_offset_).find("] serving: ") !=
              std::string::npos) {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  // Sends `signal` and waits for the process; returns its exit status.
  int Stop(int signal = SIGTERM) {
    kill(pid_, signal);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return status;
  }

  size_t LogSize() const {
    std::ifstream in(log_path_, std::ios::ate | std::ios::binary);
    return in ? static_cast<size_t>(in.tellg()) : 0;
  }
  // The log past `offset`.
  std::string LogSince(size_t offset) const {
    std::ifstream in(log_path_, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(offset));
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  // Waits (up to 30 s) for "listening for gRPC on port N, metrics on port M"
  // past `offset` in the log.
  void ReadPortsFromLog(size_t offset) {
    constexpr std::string_view kMarker = "listening for gRPC on port ";
    for (int i = 0; i < 3000; ++i) {
      std::ifstream in(log_path_, std::ios::binary);
      in.seekg(static_cast<std::streamoff>(offset));
      std::string line;
      while (std::getline(in, line)) {
        const size_t at = line.find(kMarker);
        if (at == std::string::npos) continue;
        if (std::sscanf(line.c_str() + at + kMarker.size(),
                        "%d, metrics on port %d", &grpc_port_,
                        &metrics_port_) == 2) {
          return;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  std::string Address() const { return absl::StrCat("127.0.0.1:", grpc_port_); }
  int metrics_port() const { return metrics_port_; }
  int grpc_port() const { return grpc_port_; }
  pid_t pid() const { return pid_; }

 private:
  const std::string data_dir_;
  const std::string log_path_;
  const std::vector<std::string> extra_flags_;
  const bool plaintext_;
  int grpc_port_ = 0;
  int metrics_port_ = 0;
  size_t start_log_offset_ = 0;  // where the last start's log begins
  pid_t pid_ = -1;
};

}  // namespace neardup::testing

#endif  // NEARDUP_TESTS_SERVER_SERVER_PROCESS_H_
