// Soak: mixed upsert / query / delete load against one running neardupd
// for a fixed time, reported per interval. Run by hand:
//   build/release/server/neardupd --plaintext --data-dir /tmp/soak &
//   build/release/bench/soak --server 127.0.0.1:50051 --server-pid $!
//       --seconds 600
// Writers upsert new documents and delete the one `--live-docs` older, so
// after warm-up the collection holds a steady number of live documents and
// the server's memory should stay flat. Readers query near copies of live
// documents. Every interval prints calls, errors, p50/p99 per kind of call
// and the server's RSS; the end prints the totals and how much the RSS
// moved after warm-up (the live set written and the block cache filled).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/client/client.h"
#include "support/corpus.h"

namespace {

using Clock = std::chrono::steady_clock;

enum Kind { kUpsert, kDelete, kQuery, kKinds };
const char* const kKindNames[kKinds] = {"upsert", "delete", "query"};

// Latencies and errors of one interval, per kind of call.
struct Interval {
  std::vector<double> millis[kKinds];
  uint64_t errors[kKinds] = {};
  std::map<std::string, uint64_t> error_messages;
};

class Recorder {
 public:
  void Record(Kind kind, double millis, const absl::Status& status) {
    std::lock_guard<std::mutex> lock(mu_);
    current_.millis[kind].push_back(millis);
    if (!status.ok()) {
      ++current_.errors[kind];
      ++current_.error_messages[std::string(status.ToString().substr(0, 160))];
    }
  }
  Interval Take() {
    std::lock_guard<std::mutex> lock(mu_);
    Interval out = std::move(current_);
    current_ = Interval();
    return out;
  }

 private:
  std::mutex mu_;
  Interval current_;
};

double Percentile(std::vector<double>& values, double p) {
  if (values.empty()) return 0;
  const size_t at =
      std::min(values.size() - 1, static_cast<size_t>(p * values.size()));
  std::nth_element(values.begin(), values.begin() + at, values.end());
  return values[at];
}

// Resident set of `pid` in MiB from /proc; 0 when unknown.
double RssMib(int pid) {
  if (pid <= 0) return 0;
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      return std::stod(line.substr(6)) / 1024.0;  // kB
    }
  }
  return 0;
}

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  neardup::SkipAbslLockOrderChecks();  // as the neardup CLI does
  CLI::App app("neardup soak: mixed load for a fixed time");
  neardup::client::ClientOptions options;
  options.target = "127.0.0.1:50051";
  std::string collection = "soak";
  int seconds = 600;
  int report_seconds = 60;
  int writers = 2;
  int readers = 2;
  uint64_t live_docs = 50'000;
  int words = 300;
  int server_pid = 0;
  int warmup_seconds = 120;
  app.add_option("--server", options.target, "neardupd address");
  app.add_option("--collection", collection,
                 "collection to create (must not exist)");
  app.add_option("--seconds", seconds, "how long to run");
  app.add_option("--report-seconds", report_seconds, "interval of a report");
  app.add_option("--writers", writers, "threads upserting and deleting");
  app.add_option("--readers", readers, "threads querying");
  app.add_option("--live-docs", live_docs,
                 "documents kept live: each upsert past this deletes the "
                 "oldest");
  app.add_option("--words", words, "words per document");
  app.add_option("--server-pid", server_pid, "neardupd's pid, for its RSS");
  app.add_option("--warmup-seconds", warmup_seconds,
                 "RSS is compared from the first report after this (the "
                 "live set and RocksDB's block cache fill up first)");
  CLI11_PARSE(app, argc, argv);

  neardup::client::Client client(options);
  neardup::v1::CreateCollectionRequest create;
  create.set_name(collection);
  create.mutable_config()->set_store_text(false);
  if (auto created = client.CreateCollection(create); !created.ok()) {
    std::fprintf(stderr, "create collection: %s\n",
                 created.status().ToString().c_str());
    return 1;
  }

  Recorder recorder;
  std::atomic<uint64_t> next_doc{0};
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> found{0}, probes{0};
  const auto id_of = [](uint64_t n) { return absl::StrCat("d", n); };

  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&] {
      while (!stop.load()) {
        const uint64_t n = next_doc++;
        neardup::v1::UpsertRequest upsert;
        upsert.set_collection(collection);
        upsert.set_id(id_of(n));
        upsert.set_text(neardup::testing::GeneratedText(n, words));
        auto start = Clock::now();
        absl::Status status = client.Upsert(upsert).status();
        recorder.Record(kUpsert, MillisSince(start), status);
        if (n < live_docs) continue;
        start = Clock::now();
        status = client.Delete(collection, id_of(n - live_docs));
        recorder.Record(kDelete, MillisSince(start), status);
      }
    });
  }
  for (int r = 0; r < readers; ++r) {
    threads.emplace_back([&, r] {
      std::mt19937_64 rng(r + 1);
      while (!stop.load()) {
        const uint64_t newest = next_doc.load();
        if (newest < 100) {
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
          continue;
        }
        // A document far enough from both ends of the live window that no
        // writer deletes it or has yet to write it while we ask.
        const uint64_t window = std::min<uint64_t>(newest, live_docs) / 2;
        const uint64_t n = newest - window / 2 - rng() % (window / 2 + 1);
        neardup::v1::QueryRequest query;
        query.set_collection(collection);
        query.set_text(neardup::testing::NearCopy(
            neardup::testing::GeneratedText(n, words), 100));
        const auto start = Clock::now();
        auto answer = client.Query(query);
        recorder.Record(kQuery, MillisSince(start), answer.status());
        if (answer.ok()) {
          ++probes;
          for (const auto& match : answer->matches()) {
            if (match.id() == id_of(n)) {
              ++found;
              break;
            }
          }
        }
      }
    });
  }

  std::printf("# %d writers, %d readers, %llu live documents of %d words\n",
              writers, readers, static_cast<unsigned long long>(live_docs),
              words);
  std::printf("%6s %8s %8s %8s %6s %10s %10s %10s %10s %10s %10s %9s %9s\n",
              "min", "upserts", "deletes", "queries", "errors", "up_p50ms",
              "up_p99ms", "del_p50ms", "del_p99ms", "q_p50ms", "q_p99ms",
              "rss_mib", "live");
  uint64_t total_errors = 0;
  std::map<std::string, uint64_t> all_messages;
  std::vector<double> rss_after_warmup;
  const auto begin = Clock::now();
  for (int elapsed = report_seconds; elapsed <= seconds;
       elapsed += report_seconds) {
    std::this_thread::sleep_until(begin + std::chrono::seconds(elapsed));
    Interval interval = recorder.Take();
    uint64_t errors = 0;
    for (int k = 0; k < kKinds; ++k) errors += interval.errors[k];
    total_errors += errors;
    for (const auto& [message, count] : interval.error_messages) {
      all_messages[message] += count;
    }
    const double rss = RssMib(server_pid);
    const uint64_t written = next_doc.load();
    if (written >= live_docs && elapsed >= warmup_seconds) {
      rss_after_warmup.push_back(rss);
    }
    std::printf(
        "%6.1f %8zu %8zu %8zu %6llu %10.2f %10.2f %10.2f %10.2f %10.2f "
        "%10.2f %9.0f %9llu\n",
        elapsed / 60.0, interval.millis[kUpsert].size(),
        interval.millis[kDelete].size(), interval.millis[kQuery].size(),
        static_cast<unsigned long long>(errors),
        Percentile(interval.millis[kUpsert], 0.5),
        Percentile(interval.millis[kUpsert], 0.99),
        Percentile(interval.millis[kDelete], 0.5),
        Percentile(interval.millis[kDelete], 0.99),
        Percentile(interval.millis[kQuery], 0.5),
        Percentile(interval.millis[kQuery], 0.99), rss,
        static_cast<unsigned long long>(std::min(written, live_docs)));
    std::fflush(stdout);
  }
  stop = true;
  for (std::thread& thread : threads) thread.join();

  std::printf("# errors: %llu\n",
              static_cast<unsigned long long>(total_errors));
  for (const auto& [message, count] : all_messages) {
    std::printf("#   %llu x %s\n", static_cast<unsigned long long>(count),
                message.c_str());
  }
  std::printf("# queries that found their source: %llu of %llu\n",
              static_cast<unsigned long long>(found.load()),
              static_cast<unsigned long long>(probes.load()));
  // The first full interval after warm-up is the baseline.
  if (rss_after_warmup.size() >= 2 && rss_after_warmup.front() > 0) {
    const auto [low, high] =
        std::minmax_element(rss_after_warmup.begin(), rss_after_warmup.end());
    std::printf(
        "# server RSS after warm-up: first %.0f MiB, min %.0f, max %.0f, "
        "last %.0f (max/first %.3f)\n",
        rss_after_warmup.front(), *low, *high, rss_after_warmup.back(),
        *high / rss_after_warmup.front());
  }
  return total_errors == 0 ? 0 : 2;
}
