// Exact-duplicate floods in the SimHash index (#35): N documents with one
// identical SimHash among M random ones; a query for the flood's SimHash
// (top 10, as a collection asks, and every member), deletes of the flood
// oldest first and newest first, and the index's bytes per document. Run
// by hand, alternating builds (bench/README.md):
//   build/release/bench/simhash_flood_bench [--flood 100000]
//       [--ordinary 1000000] [--queries 200]

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "neardup/core/index/simhash_index.h"

namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The index a collection with SimHash makes: k = 3, one shard.
std::unique_ptr<neardup::SimHashIndex> Index() {
  return neardup::SimHashIndex::Create({3, 0, 1}).value();
}

// The top 10 as a collection asks for them: with a limit where the index
// takes one, else all of them, then cut (what collections did before).
// (A template, so that the branch an index lacks is never compiled.)
template <typename Index>
std::vector<neardup::IdDistance> TopTen(const Index& index, uint64_t simhash) {
  std::vector<neardup::IdDistance> out;
  if constexpr (requires { index.Query(simhash, 3, nullptr, size_t{10}); }) {
    out = index.Query(simhash, 3, nullptr, size_t{10}).value();
  } else {
    out = index.Query(simhash, 3, nullptr).value();
  }
  if (out.size() > 10) out.resize(10);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  uint32_t flood = 100000, ordinary = 1000000, queries = 200;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const uint32_t value = static_cast<uint32_t>(std::atol(argv[i + 1]));
    if (flag == "--flood")
      flood = value;
    else if (flag == "--ordinary")
      ordinary = value;
    else if (flag == "--queries")
      queries = value;
  }
  std::mt19937_64 rng(1);
  const uint64_t same = rng();
  auto index = Index();
  // The flood arrives among the ordinary documents, one in (ordinary /
  // flood + 1).
  const uint32_t total = flood + ordinary;
  const uint32_t every = total / std::max<uint32_t>(flood, 1);
  std::vector<uint32_t> flood_ids;
  auto start = Clock::now();
  for (uint32_t id = 0; id < total; ++id) {
    const bool in_flood = flood_ids.size() < flood && id % every == 0;
    if (in_flood) flood_ids.push_back(id);
    if (!index->Insert(id, in_flood ? same : rng()).ok()) std::abort();
  }
  const double insert_us = SecondsSince(start) * 1e6 / total;
  const double bytes_per_doc =
      static_cast<double>(index->MemoryBytes()) / total;

  start = Clock::now();
  size_t found = 0;
  for (uint32_t q = 0; q < queries; ++q) found += TopTen(*index, same).size();
  const double top_us = SecondsSince(start) * 1e6 / queries;
  if (found != size_t{queries} * std::min<uint32_t>(flood, 10)) std::abort();

  start = Clock::now();
  const size_t all = index->Query(same, 3).value().size();
  const double all_us = SecondsSince(start) * 1e6;

  // Deletes: the first half of the flood oldest first, the rest newest
  // first.
  const size_t half = flood_ids.size() / 2;
  start = Clock::now();
  for (size_t i = 0; i < half; ++i) {
    if (!index->Remove(flood_ids[i])) std::abort();
  }
  const double oldest_us =
      SecondsSince(start) * 1e6 / std::max<size_t>(half, 1);
  start = Clock::now();
  for (size_t i = flood_ids.size(); i-- > half;) {
    if (!index->Remove(flood_ids[i])) std::abort();
  }
  const double newest_us =
      SecondsSince(start) * 1e6 / std::max<size_t>(flood_ids.size() - half, 1);

  std::printf(
      "flood %u among %u: insert %.2f us/doc, index %.1f bytes/doc; query "
      "top 10 %.2f us, every member %.0f us (%zu); delete oldest first "
      "%.3f us, newest first %.3f us\n",
      flood, ordinary, insert_us, bytes_per_doc, top_us, all_us, all, oldest_us,
      newest_us);
  return 0;
}
