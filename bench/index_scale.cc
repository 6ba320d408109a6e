// Scale figures for the in-memory indexes: bulk insert docs/s, query latency
// p50/p99 and bytes per document at 100K and 1M documents, on 1 and 2
// threads. Run by hand:
//   build/release/bench/index_scale [max_docs=1000000]
// Signatures are synthetic (random slots; half the queries are 10%-mutated
// copies of stored documents, half are misses), which exercises the index
// exactly as real MinHash signatures do: it never looks at the text.

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "neardup/core/index/minhash_lsh_index.h"
#include "neardup/core/index/simhash_index.h"

namespace neardup {
namespace {

using Clock = std::chrono::steady_clock;

// NEARDUP_SHARDS overrides the default shard count, for comparisons.
int Shards() {
  const char* env = std::getenv("NEARDUP_SHARDS");
  return env ? std::atoi(env) : MinHashIndexOptions{}.shards;
}

// NEARDUP_BANDS / NEARDUP_ROWS override the banding; the default is what a
// collection with the default threshold (0.8, floor 0.7) gets.
LshParams Banding() {
  const char* bands = std::getenv("NEARDUP_BANDS");
  const char* rows = std::getenv("NEARDUP_ROWS");
  return {bands ? std::atoi(bands) : 20, rows ? std::atoi(rows) : 4};
}

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

size_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

std::vector<MinHashSignature> RandomSignatures(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<MinHashSignature> sigs(n);
  for (auto& sig : sigs) {
    sig.slots.resize(128);
    for (uint64_t& slot : sig.slots) slot = rng();
  }
  return sigs;
}

struct Latency {
  double p50_us, p99_us;
};

Latency Percentiles(std::vector<double> micros) {
  std::sort(micros.begin(), micros.end());
  return {micros[micros.size() / 2], micros[micros.size() * 99 / 100]};
}

// Runs `queries` probes split over `threads` threads; per-query latency.
template <typename Probe>
Latency TimeQueries(size_t queries, int threads, Probe probe) {
  std::vector<std::vector<double>> per_thread(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (size_t q = t; q < queries; q += threads) {
        const auto start = Clock::now();
        probe(q);
        per_thread[t].push_back(Seconds(start) * 1e6);
      }
    });
  }
  for (auto& thread : pool) thread.join();
  std::vector<double> all;
  for (auto& v : per_thread) all.insert(all.end(), v.begin(), v.end());
  return Percentiles(std::move(all));
}

void RunMinHash(size_t n, int threads) {
  const std::vector<MinHashSignature> sigs = RandomSignatures(n, 1);
  std::vector<uint32_t> ids(n);
  for (uint32_t i = 0; i < n; ++i) ids[i] = i;
  const size_t rss_before = ResidentBytes();
  const LshParams lsh = Banding();
  auto index = *MinHashLshIndex::Create(
      {.num_perm = 128, .lsh = lsh, .slot_bits = 16, .shards = Shards()});
  auto start = Clock::now();
  if (!index->BulkInsert(ids, sigs, threads).ok()) std::abort();
  const double insert_seconds = Seconds(start);
  const size_t rss_after = ResidentBytes();

  std::mt19937_64 rng(2);
  std::vector<MinHashSignature> probes = RandomSignatures(20000, 3);
  for (size_t q = 0; q < probes.size(); q += 2) {
    probes[q] = sigs[rng() % n];
    for (int m = 0; m < 13; ++m) probes[q].slots[rng() % 128] = rng();
  }
  size_t hits = 0;
  const Latency latency = TimeQueries(probes.size(), threads, [&](size_t q) {
    auto found = index->Query(probes[q], 0.8);
    if (!found.ok()) std::abort();
    hits += found->empty() ? 0 : 1;  // racy count: informational only
  });
  std::printf(
      "minhash-lsh %dx%d bits=16 shards=%d docs=%zu threads=%d  insert %.0f "
      "docs/s  query p50 %.1f us p99 %.1f us  index %.0f B/doc  rss %.0f "
      "B/doc\n",
      lsh.bands, lsh.rows, Shards(), n, threads, n / insert_seconds,
      latency.p50_us, latency.p99_us, double(index->MemoryBytes()) / n,
      double(rss_after - rss_before) / n);
  std::fflush(stdout);
}

void RunSimHash(size_t n, int threads) {
  std::mt19937_64 rng(4);
  std::vector<uint64_t> hashes(n);
  for (uint64_t& h : hashes) h = rng();
  std::vector<uint32_t> ids(n);
  for (uint32_t i = 0; i < n; ++i) ids[i] = i;
  auto index = *SimHashIndex::Create({3, 0, Shards()});
  const auto start = Clock::now();
  if (!index->BulkInsert(ids, hashes, threads).ok()) std::abort();
  const double insert_seconds = Seconds(start);
  std::vector<uint64_t> probes(20000);
  for (size_t q = 0; q < probes.size(); ++q) {
    probes[q] = q % 2 ? rng() : hashes[rng() % n] ^ (uint64_t{1} << (q % 64));
  }
  const Latency latency = TimeQueries(probes.size(), threads, [&](size_t q) {
    if (!index->Query(probes[q]).ok()) std::abort();
  });
  std::printf(
      "simhash k=3 (4 tables) docs=%zu threads=%d  insert %.0f docs/s  "
      "query p50 %.1f us p99 %.1f us  index %.0f B/doc\n",
      n, threads, n / insert_seconds, latency.p50_us, latency.p99_us,
      double(index->MemoryBytes()) / n);
  std::fflush(stdout);
}

}  // namespace
}  // namespace neardup

// Each configuration runs in its own child process so that its resident
// memory is measured from a clean heap.
template <typename F>
void InChild(F run) {
  const pid_t pid = fork();
  if (pid == 0) {
    run();
    std::_Exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
}

int main(int argc, char** argv) {
  const size_t max_docs =
      argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  for (size_t n : {size_t{100000}, max_docs}) {
    for (int threads : {1, 2})
      InChild([&] { neardup::RunMinHash(n, threads); });
  }
  for (size_t n : {size_t{100000}, max_docs}) {
    for (int threads : {1, 2})
      InChild([&] { neardup::RunSimHash(n, threads); });
  }
  return 0;
}
