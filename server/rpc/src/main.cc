// neardupd: the neardup gRPC server. `neardupd --help` lists every setting.

#include <signal.h>
#include <unistd.h>

#include <thread>
#include <variant>

#include "neardup/base/absl_compat.h"
#include "neardup/base/version.h"
#include "neardup/extract/pdf.h"
#include "neardup/server/server.h"
#include "neardup/server/server_config.h"
#include "spdlog/spdlog.h"

int main(int argc, char** argv) {
  // This binary is also the PDF parsing child it spawns (extract/pdf.h).
  if (int code = 0; neardup::extract::MaybeRunPdfChild(argc, argv, &code)) {
    return code;
  }
  neardup::SkipAbslLockOrderChecks();
  using namespace neardup::server;
  ParsedCommandLine parsed = ParseCommandLine(argc, argv);
  if (const int* exit_code = std::get_if<int>(&parsed)) return *exit_code;
  const ServerConfig& config = std::get<ServerConfig>(parsed);

  spdlog::set_level(spdlog::level::from_str(config.log_level));
  spdlog::info(
      "neardupd {}: listen={} data-dir={} metrics-listen={} shards={} "
      "workers={} max-queued-requests={} max-message-bytes={} "
      "max-document-bytes={} default-deadline={}s sync-writes={} "
      "block-cache-bytes={}",
      neardup::kVersion, config.listen_address, config.data_dir,
      config.metrics_address, config.shards, config.worker_threads,
      config.max_queued_requests, config.max_message_bytes,
      config.max_document_bytes, config.default_deadline_seconds,
      config.sync_writes, config.block_cache_bytes);

  // Block the stop signals in every thread; one thread waits for them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  auto server = NeardupServer::Start(config);
  if (!server.ok()) {
    spdlog::error("{}", server.status().ToString());
    return 1;
  }
  std::thread signal_waiter([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    spdlog::info("received {}", signal == SIGTERM ? "SIGTERM" : "SIGINT");
    (*server)->Shutdown();
  });
  const absl::Status status = (*server)->Wait();
  if (!status.ok()) kill(getpid(), SIGTERM);  // release the waiter
  signal_waiter.join();
  return status.ok() ? 0 : 1;
}
