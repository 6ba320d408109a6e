// The semantic index over random unit vectors (the hard case: no structure
// for a graph to exploit), as a collection holds it: SemanticIndex with
// `shards` shards filled by BulkUpsert on 2 threads (what a restart does),
// once with HNSW graphs and once exact (flat arrays, every vector scored).
// For each: build time, recall@10 against brute force, queries per second
// on one thread, bytes per vector. Run by hand:
//   build/release/bench/hnsw_bench [count=100000] [dim=384] [ef=128]
//       [shards=2] [m=16] [ef_construction=200]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "neardup/core/index/semantic_index.h"
#include "neardup/core/internal/dot_kernel.h"

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
  const int shards = argc > 4 ? std::atoi(argv[4]) : 2;
  const int m = argc > 5 ? std::atoi(argv[5]) : 16;
  const int ef_construction = argc > 6 ? std::atoi(argv[6]) : 200;
  constexpr int kQueries = 200;
  constexpr size_t kTopK = 10;

  std::mt19937 rng(42);
  std::normal_distribution<float> normal;
  auto random_unit = [&] {
    std::vector<float> v(dim);
    for (float& x : v) x = normal(rng);
    return *neardup::UnitEmbedding(v, dim);
  };
  std::vector<uint32_t> ids(count);
  std::vector<float> flat;
  flat.reserve(size_t(count) * dim);
  std::vector<std::vector<float>> vectors(count);
  for (int i = 0; i < count; ++i) {
    ids[i] = i;
    vectors[i] = random_unit();
    flat.insert(flat.end(), vectors[i].begin(), vectors[i].end());
  }
  std::vector<std::vector<float>> queries(kQueries);
  for (auto& q : queries) q = random_unit();

  // Brute force in double precision, independently of the index code.
  std::vector<std::set<uint32_t>> truth(kQueries);
  for (int q = 0; q < kQueries; ++q) {
    std::vector<std::pair<double, uint32_t>> scored(count);
    for (int i = 0; i < count; ++i) {
      double dot = 0;
      for (int d = 0; d < dim; ++d)
        dot += double{queries[q][d]} * vectors[i][d];
      scored[i] = {-dot, static_cast<uint32_t>(i)};
    }
    std::partial_sort(scored.begin(), scored.begin() + kTopK, scored.end());
    for (size_t j = 0; j < kTopK; ++j) truth[q].insert(scored[j].second);
  }

  std::printf("%d random unit vectors of dim %d, %d shards, top %zu\n", count,
              dim, shards, kTopK);
  for (const bool exact : {false, true}) {
    auto index = neardup::SemanticIndex::Create(
        {.dim = dim,
         .m = m,
         .ef_construction = ef_construction,
         .ef_search = ef,
         .initial_capacity = size_t(count / shards + 1)},
        shards, exact);
    if (!index.ok()) {
      std::fprintf(stderr, "%s\n", index.status().ToString().c_str());
      return 1;
    }
    auto start = std::chrono::steady_clock::now();
    // As a restart does: sized for the stored ids first.
    if (!(*index)->Reserve(count / shards + 1).ok()) return 1;
    if (!(*index)->BulkUpsert(ids, flat, 2).ok()) return 1;
    const double build = Seconds(start);
    size_t hits = 0;
    start = std::chrono::steady_clock::now();
    for (int q = 0; q < kQueries; ++q) {
      auto found = (*index)->Search(queries[q], kTopK, -1);
      if (!found.ok()) return 1;
      for (const auto& match : *found) hits += truth[q].count(match.id);
    }
    const double search = Seconds(start);
    const std::string what =
        exact ? "exact (flat, " +
                    std::string(neardup::internal::DotKernelName()) + " kernel)"
              : "hnsw M=" + std::to_string(m) +
                    " ef_construction=" + std::to_string(ef_construction) +
                    " ef_search=" + std::to_string(ef);
    std::printf(
        "%s\n"
        "  build (= rebuild at start, 2 threads) %.1f s, %.0f vectors/s\n"
        "  recall@10 %.4f over %d random queries\n"
        "  %.0f queries/s on one thread (%.3f ms each)\n"
        "  %.0f bytes per vector (the vector itself: %d)\n",
        what.c_str(), build, count / build,
        static_cast<double>(hits) / (kQueries * kTopK), kQueries,
        kQueries / search, 1000 * search / kQueries,
        static_cast<double>((*index)->memory_bytes()) / count,
        dim * static_cast<int>(sizeof(float)));
  }
  return 0;
}
