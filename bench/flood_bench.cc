// Exact-duplicate floods in the MinHash index (#16): inserts N documents
// with one identical signature, deletes them oldest-first and newest-first,
// and reports the time per delete and per query (top 10, and every member);
// then the index's bytes per document for
// an ordinary collection (random signatures), which the flood handling must
// not grow. Run by hand:
//   build/release/bench/flood_bench [--flood 100000] [--ordinary 1000000]
// The default collection's banding (20 x 4, 16-bit verify slots) and shards.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "neardup/core/index/minhash_lsh_index.h"
#include "neardup/core/minhash.h"

namespace {

using Clock = std::chrono::steady_clock;

neardup::MinHashIndexOptions DefaultOptions() {
  neardup::MinHashIndexOptions options;
  options.num_perm = 128;
  options.lsh = {20, 4};
  options.slot_bits = 16;
  return options;
}

neardup::MinHashSignature RandomSignature(std::mt19937_64& rng) {
  neardup::MinHashSignature sig;
  sig.slots.resize(128);
  for (uint64_t& slot : sig.slots) slot = rng();
  return sig;
}

// Microseconds per delete of `n` identical documents, deleted in `order`.
double FloodDeleteMicros(uint32_t n, bool oldest_first) {
  auto index = neardup::MinHashLshIndex::Create(DefaultOptions()).value();
  std::mt19937_64 rng(1);
  const neardup::MinHashSignature same = RandomSignature(rng);
  for (uint32_t id = 0; id < n; ++id) {
    if (!index->Insert(id, same).ok()) std::abort();
  }
  const auto start = Clock::now();
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t id = oldest_first ? i : n - 1 - i;
    if (!index->Remove(id)) std::abort();
  }
  const double seconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  return seconds * 1e6 / n;
}

// Microseconds per query of a flood of `n` identical documents: the top
// 10 (twin groups list only those) and every member (what a query cost
// before twin groups, when it listed and scored all N).
void FloodQueryMicros(uint32_t n, double* top10, double* all) {
  auto index = neardup::MinHashLshIndex::Create(DefaultOptions()).value();
  std::mt19937_64 rng(1);
  const neardup::MinHashSignature same = RandomSignature(rng);
  for (uint32_t id = 0; id < n; ++id) {
    if (!index->Insert(id, same).ok()) std::abort();
  }
  auto time = [&](size_t limit, int repeats) {
    const auto start = Clock::now();
    size_t found = 0;
    for (int i = 0; i < repeats; ++i) {
      found += index->Query(same, 0.8, nullptr, limit).value().size();
    }
    const double seconds =
        std::chrono::duration<double>(Clock::now() - start).count();
    if (found != repeats * (limit == 0 ? n : std::min<size_t>(limit, n))) {
      std::abort();
    }
    return seconds * 1e6 / repeats;
  };
  *top10 = time(10, 2000);
  *all = time(0, 20);
}

}  // namespace

int main(int argc, char** argv) {
  uint32_t flood = 100'000;
  uint32_t ordinary = 1'000'000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const uint32_t value = static_cast<uint32_t>(std::atol(argv[i + 1]));
    if (flag == "--flood") flood = value;
    if (flag == "--ordinary") ordinary = value;
  }
  std::printf("flood of %u identical documents, 20 x 4 banding\n", flood);
  std::printf("  delete oldest first: %.3f us per delete\n",
              FloodDeleteMicros(flood, true));
  std::printf("  delete newest first: %.3f us per delete\n",
              FloodDeleteMicros(flood, false));

  double top10 = 0, all = 0;
  FloodQueryMicros(flood, &top10, &all);
  std::printf("  query, top 10:       %.3f us per query\n", top10);
  std::printf("  query, every member: %.3f us per query\n", all);

  auto index = neardup::MinHashLshIndex::Create(DefaultOptions()).value();
  std::mt19937_64 rng(2);
  for (uint32_t id = 0; id < ordinary; ++id) {
    if (!index->Insert(id, RandomSignature(rng)).ok()) std::abort();
  }
  std::printf(
      "ordinary collection of %u documents: %.1f index bytes per "
      "document\n",
      ordinary, static_cast<double>(index->MemoryBytes()) / ordinary);
  return 0;
}
