// HNSW over random unit vectors (the hard case: no structure to exploit):
// build time (what a restart spends rebuilding), recall@10 against brute
// force, queries per second on one thread, bytes per vector. Run by hand:
//   build/release/bench/hnsw_bench [count=100000] [dim=384] [ef=128]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <vector>

#include "neardup/core/index/hnsw_index.h"

namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  const int count = argc > 1 ? std::atoi(argv[1]) : 100000;
  const int dim = argc > 2 ? std::atoi(argv[2]) : 384;
  const int ef = argc > 3 ? std::atoi(argv[3]) : 128;
  constexpr int kQueries = 200;
  constexpr size_t kTopK = 10;

  std::mt19937 rng(42);
  std::normal_distribution<float> normal;
  auto random_unit = [&] {
    std::vector<float> v(dim);
    for (float& x : v) x = normal(rng);
    return *neardup::UnitEmbedding(v, dim);
  };
  std::vector<std::vector<float>> vectors(count);
  for (auto& v : vectors) v = random_unit();
  std::vector<std::vector<float>> queries(kQueries);
  for (auto& q : queries) q = random_unit();

  auto index = neardup::HnswIndex::Create(
      {.dim = dim, .ef_search = ef, .initial_capacity = size_t(count)});
  if (!index.ok()) {
    std::fprintf(stderr, "%s\n", index.status().ToString().c_str());
    return 1;
  }
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < count; ++i) {
    if (!(*index)->Upsert(i, vectors[i]).ok()) return 1;
  }
  const double build = Seconds(start);

  // Brute force, then the index, over the same queries.
  std::vector<std::set<uint32_t>> truth(kQueries);
  for (int q = 0; q < kQueries; ++q) {
    std::vector<std::pair<float, uint32_t>> scored(count);
    for (int i = 0; i < count; ++i) {
      float dot = 0;
      for (int d = 0; d < dim; ++d) dot += queries[q][d] * vectors[i][d];
      scored[i] = {-dot, static_cast<uint32_t>(i)};
    }
    std::partial_sort(scored.begin(), scored.begin() + kTopK, scored.end());
    for (size_t j = 0; j < kTopK; ++j) truth[q].insert(scored[j].second);
  }
  size_t hits = 0;
  start = std::chrono::steady_clock::now();
  for (int q = 0; q < kQueries; ++q) {
    auto found = (*index)->Search(queries[q], kTopK);
    if (!found.ok()) return 1;
    for (const auto& m : *found) hits += truth[q].count(m.id);
  }
  const double search = Seconds(start);
  std::printf(
      "hnsw: %d unit vectors of dim %d, M=16, ef_construction=200, "
      "ef_search=%d\n"
      "  build (= rebuild at start) %.1f s, %.0f vectors/s\n"
      "  recall@10 %.4f over %d random queries\n"
      "  %.0f queries/s on one thread (%.3f ms each)\n"
      "  %.0f bytes per vector (the vector itself: %d)\n",
      count, dim, ef, build, count / build,
      static_cast<double>(hits) / (kQueries * kTopK), kQueries,
      kQueries / search, 1000 * search / kQueries,
      static_cast<double>((*index)->memory_bytes()) / count,
      dim * static_cast<int>(sizeof(float)));
  return 0;
}
