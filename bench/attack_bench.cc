// Hostile requests against a neardupd binary, one attack at a time, for the
// figures of the hardening work: is the server alive after it, how much
// memory did it take (peak RSS), and how long did an admin's GetCollection
// and a health check wait meanwhile. Run by hand, old and new binaries in
// turn (bench/README.md):
//   build/release/bench/attack_bench --neardupd build/release/server/neardupd
//       --attack markdown-table --seconds 15 --address-space-gib 6
// The server gets a fresh data directory, a token file (admin, reader,
// no-scope) and --stream-idle-seconds=3; --address-space-gib sets its
// RLIMIT_AS like a container's.

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "neardup/client/client.h"
#include "support/corpus.h"
#include "support/hostile_inputs.h"
#include "support/net.h"
#include "support/sha256.h"

namespace v1 = neardup::v1;

namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kAdmin = "attack-admin";
constexpr const char* kReader = "attack-reader";
constexpr const char* kNobody = "attack-nobody";

size_t StatusField(pid_t pid, const std::string& field) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with(field))
      return std::stoull(line.substr(field.size())) << 10;
  }
  return 0;
}

neardup::client::Client As(int port, const char* token,
                           std::chrono::milliseconds timeout) {
  neardup::client::ClientOptions options;
  options.target = absl::StrCat("127.0.0.1:", port);
  options.max_attempts = 1;
  options.timeout = timeout;
  options.token = token;
  return neardup::client::Client(options);
}

}  // namespace

int main(int argc, char** argv) {
  std::string neardupd, attack = "all", dir = "/tmp/attack-bench";
  double seconds = 15, address_space_gib = 0;
  CLI::App app{"hostile requests against neardupd, one attack at a time"};
  app.add_option("--neardupd", neardupd, "server binary")->required();
  app.add_option(
      "--attack", attack,
      "markdown-table | markdown-wide | markdown-inline | pdf-busy | "
      "noscope-pdf | "
      "html-16mb | explain-flood | stalled-batchquery | "
      "stalled-bulkupsert | all");
  app.add_option("--seconds", seconds, "attack duration");
  app.add_option("--address-space-gib", address_space_gib,
                 "RLIMIT_AS of the server; 0 none");
  app.add_option("--dir", dir, "scratch directory (emptied)");
  CLI11_PARSE(app, argc, argv);

  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string tokens = dir + "/tokens.yaml";
  std::ofstream(tokens) << "tokens:\n  - {name: ops, sha256: "
                        << neardup::testing::Sha256Hex(kAdmin)
                        << ", scopes: [admin]}\n  - {name: search, sha256: "
                        << neardup::testing::Sha256Hex(kReader)
                        << ", scopes: [\"read:*\", \"write:*\"]}\n"
                        << "  - {name: nobody, sha256: "
                        << neardup::testing::Sha256Hex(kNobody)
                        << ", scopes: []}\n";
  const int port = neardup::testing::FreePort();
  const pid_t server = fork();
  if (server == 0) {
    if (address_space_gib > 0) {
      const rlim_t bytes = static_cast<rlim_t>(address_space_gib * (1 << 30));
      const rlimit limit{bytes, bytes};
      setrlimit(RLIMIT_AS, &limit);
    }
    const std::string log = dir + "/server.log";
    freopen(log.c_str(), "w", stdout);
    freopen(log.c_str(), "a", stderr);
    std::vector<std::string> args = {neardupd,
                                     absl::StrCat("--listen=127.0.0.1:", port),
                                     "--metrics-listen=off",
                                     "--data-dir=" + dir + "/data",
                                     "--plaintext",
                                     "--auth-tokens=" + tokens,
                                     "--stream-idle-seconds=3"};
    std::vector<char*> raw;
    for (std::string& a : args) raw.push_back(a.data());
    raw.push_back(nullptr);
    execv(raw[0], raw.data());
    _exit(127);
  }
  neardup::testing::WaitForPort(port, std::chrono::seconds(30));
  auto admin = As(port, kAdmin, std::chrono::milliseconds(20000));
  while (!admin.ListCollections().ok()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  v1::CreateCollectionRequest create;
  create.set_name("docs");
  create.mutable_config()->set_store_text(true);
  (void)admin.CreateCollection(create);
  const std::string base = neardup::testing::GeneratedText(1, 200);
  int loaded = 0;
  (void)admin.BulkUpsert(
      [&](v1::UpsertRequest* doc) {
        if (loaded == 2000) return false;
        doc->set_collection("docs");
        doc->set_id(absl::StrCat("d", loaded));
        doc->set_text(absl::StrCat(base, " variant ", loaded));
        (*doc->mutable_metadata())["blob"] = std::string(2000, 'm');
        ++loaded;
        return true;
      },
      [](const v1::BulkUpsertResult&) {});
  const size_t rss_before = StatusField(server, "VmRSS:");

  std::atomic<bool> stop{false};
  std::atomic<long> sent{0};
  std::vector<std::thread> threads;
  auto is = [&](const char* name) { return attack == "all" || attack == name; };
  auto query_loop = [&](v1::QueryRequest probe, int n) {
    for (int i = 0; i < n; ++i) {
      threads.emplace_back([&, probe] {
        auto reader = As(port, kReader, std::chrono::milliseconds(120000));
        while (!stop) {
          (void)reader.Query(probe);
          ++sent;
        }
      });
    }
  };
  if (is("markdown-table")) {  // 32 KB, one Fingerprint after another
    threads.emplace_back([&] {
      auto reader = As(port, kReader, std::chrono::milliseconds(120000));
      v1::FingerprintRequest request;
      request.set_content_type("text/markdown");
      request.set_text(neardup::testing::GfmTable(4000, 8000));
      while (!stop) {
        (void)reader.Fingerprint(request);
        ++sent;
      }
    });
  }
  if (is("markdown-wide")) {  // two Query calls with a 2000 x 30000 table
    v1::QueryRequest probe;
    probe.set_collection("docs");
    probe.set_content_type("text/markdown");
    probe.set_text(neardup::testing::GfmTable(2000, 30000));
    query_loop(probe, 2);
  }
  if (is("markdown-inline")) {  // twelve 14 KB tables: under 16 KiB
    v1::QueryRequest probe;
    probe.set_collection("docs");
    probe.set_content_type("text/markdown");
    probe.set_text(neardup::testing::GfmTable(1500, 4000));
    query_loop(probe, 12);
  }
  if (is("pdf-busy")) {  // twelve Query calls with a PDF that keeps poppler
                         // busy
    v1::QueryRequest probe;
    probe.set_collection("docs");
    probe.set_content_type("application/pdf");
    probe.set_text(neardup::testing::DeflateBombPdf());
    query_loop(probe, 12);
  }
  if (is("html-16mb")) {  // one 16 MB page of re-opened formatting
    v1::QueryRequest probe;
    probe.set_collection("docs");
    probe.set_content_type("text/html");
    std::string html = neardup::testing::Repeat("<b><i><u><s><em>", 8);
    while (html.size() < (size_t{16} << 20) - 64) html += "<p>x";
    probe.set_text(html);
    query_loop(probe, 1);
  }
  if (is("explain-flood")) {  // explain over 2000 near-copies
    v1::QueryRequest probe;
    probe.set_collection("docs");
    probe.set_text(base);
    probe.set_top_k(10000);
    probe.set_explain(true);
    query_loop(probe, 4);
  }
  if (is("noscope-pdf")) {  // a token without scopes asks for PDF work
    v1::FingerprintRequest request;
    request.set_content_type("application/pdf");
    request.set_text(neardup::testing::DeflateBombPdf());
    for (int i = 0; i < 12; ++i) {
      threads.emplace_back([&, request] {
        auto nobody = As(port, kNobody, std::chrono::milliseconds(120000));
        while (!stop) {
          (void)nobody.Fingerprint(request);
          ++sent;
        }
      });
    }
  }
  if (is("stalled-batchquery") || is("stalled-bulkupsert")) {
    const bool bulk = !is("stalled-batchquery");
    for (int s = 0; s < 4; ++s) {
      threads.emplace_back([&, bulk] {
        auto reader = As(port, kReader, std::chrono::milliseconds(120000));
        grpc::ClientContext context;
        context.AddMetadata("authorization", absl::StrCat("Bearer ", kReader));
        if (bulk) {
          auto stream = reader.stub().BulkUpsert(&context);
          v1::BulkUpsertRequest batch;
          for (int i = 0; i < 200; ++i) {
            v1::UpsertRequest* item = batch.add_items();
            item->set_collection("docs");
            item->set_id(absl::StrCat("s", i));
            item->set_text(base);
            item->set_insert_only_below(0.5);  // answers list blockers
          }
          while (!stop && stream->Write(batch)) ++sent;
        } else {
          auto stream = reader.stub().BatchQuery(&context);
          v1::QueryRequest big;
          big.set_collection("docs");
          big.set_text(base);
          big.set_top_k(10000);
          big.set_include_metadata(true);
          while (!stop && stream->Write(big)) ++sent;
        }
        while (!stop)
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        context.TryCancel();
      });
    }
  }

  // The admin's view every 100 ms.
  auto probe = As(port, kAdmin, std::chrono::milliseconds(5000));
  double worst_get = 0, worst_health = 0;
  int failures = 0, probes = 0;
  const auto until = Clock::now() + std::chrono::milliseconds(
                                        static_cast<int>(seconds * 1000));
  bool alive = true;
  while (Clock::now() < until && alive) {
    auto start = Clock::now();
    if (!probe.GetCollection("docs").ok()) ++failures;
    worst_get = std::max(
        worst_get, std::chrono::duration<double>(Clock::now() - start).count());
    start = Clock::now();
    if (!probe.Health().ok()) ++failures;
    worst_health =
        std::max(worst_health,
                 std::chrono::duration<double>(Clock::now() - start).count());
    ++probes;
    alive = waitpid(server, nullptr, WNOHANG) == 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const size_t peak = alive ? StatusField(server, "VmHWM:") : 0;
  stop = true;
  kill(server, SIGKILL);
  int status = 0;
  waitpid(server, &status, 0);
  for (std::thread& t : threads) t.join();
  std::printf(
      "attack=%s alive=%s server_peak_rss_mib=%.0f (before %.0f) "
      "admin_get_max_s=%.3f health_max_s=%.3f admin_failures=%d/%d "
      "requests=%ld\n",
      attack.c_str(), alive ? "yes" : "NO (died)",
      static_cast<double>(peak) / (1 << 20),
      static_cast<double>(rss_before) / (1 << 20), worst_get, worst_health,
      failures, probes * 2, sent.load());
  return alive ? 0 : 1;
}
