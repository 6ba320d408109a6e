// Store figures: ingest through the Database, on-disk bytes per document,
// and the rebuild rate of the in-memory indexes when reopening, on 1 and 2
// threads. Run by hand:
//   build/release/bench/storage_rebuild [docs=1000000] [dir] [reopen-only|new]
//       [embedding_dim=0] [flat|hnsw]
// With "reopen-only", an existing store in `dir` is only reopened. With an
// embedding dim, every document also carries a random unit vector, and the
// reopen rebuilds the semantic index (flat arrays or HNSW graphs) too.
// Signatures are synthetic (random MinHash slots stamped with the
// collection's config hash): rebuild never looks at text, and this keeps
// the ingest phase from dominating the run.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "neardup/core/index/vector_index.h"
#include "neardup/engine/database.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

uint64_t DirectoryBytes(const std::string& dir) {
  uint64_t total = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) total += entry.file_size();
  }
  return total;
}

void Check(const absl::Status& status) {
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace neardup;
  using namespace neardup::storage;
  using namespace neardup::engine;
  const uint64_t docs =
      argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  const std::string dir =
      argc > 2 ? argv[2]
               : (std::filesystem::temp_directory_path() / "neardup-rebuild")
                     .string();
  const bool reopen_only = argc > 3 && std::string(argv[3]) == "reopen-only";
  const int dim = argc > 4 ? std::atoi(argv[4]) : 0;
  const bool hnsw = argc > 5 && std::string(argv[5]) == "hnsw";
  if (!reopen_only) std::filesystem::remove_all(dir);
  if (!reopen_only) {
    auto db = Database::Open(dir);
    Check(db.status());
    CollectionConfig config;
    config.lsh = {16, 8};
    if (dim > 0) {
      config.embedding.model_id = "bench-model";
      config.embedding.dim = dim;
      config.embedding.hnsw = hnsw;
    }
    auto collection = (*db)->CreateCollection("bench", config);
    Check(collection.status());
    std::mt19937_64 rng(1);
    DocumentWrite write;
    write.minhash.slots.resize(128);
    write.minhash_config_hash = (*collection)->record().minhash_config_hash;
    write.embedding_model_id = "bench-model";
    std::mt19937 vector_rng(2);
    std::normal_distribution<float> normal;
    std::vector<float> raw(std::max(dim, 0));
    const auto start = Clock::now();
    for (uint64_t i = 0; i < docs; ++i) {
      write.external_id = absl::StrCat("doc-", i);
      for (uint64_t& slot : write.minhash.slots) slot = rng();
      if (dim > 0) {
        for (float& x : raw) x = normal(vector_rng);
        write.embedding = *UnitEmbedding(raw, dim);
      }
      Check((*collection)->Apply(write).status());
    }
    const double seconds = Seconds(start);
    std::printf(
        "ingest (Database::Upsert, 1 writer, WAL on, no fsync): "
        "%llu docs in %.1f s = %.0f docs/s\n",
        static_cast<unsigned long long>(docs), seconds, docs / seconds);
  }
  uint64_t stored = docs;
  for (int threads : {1, 2}) {
    DatabaseOptions options;
    options.rebuild_threads = threads;
    // Rebuild threads work shard by shard: with the default single shard a
    // second thread would have nothing to do.
    options.index_shards = 4;
    const auto start = Clock::now();
    auto db = Database::Open(dir, options);
    Check(db.status());
    const double seconds = Seconds(start);
    const auto& report = (*db)->rebuild_reports().at(0);
    auto collection = (*db)->GetCollection("bench");
    stored = report.documents;
    std::printf(
        "reopen with %d rebuild thread(s): %.2f s to open, index rebuilt at "
        "%.0f docs/s, index %.0f bytes/doc",
        threads, seconds, report.docs_per_second(),
        double((*collection)->index_bytes()) / stored);
    if (const SemanticIndex* semantic = (*collection)->semantic_index()) {
      std::printf(" (semantic, %s: %.0f bytes/vector)", hnsw ? "hnsw" : "flat",
                  double(semantic->memory_bytes()) / semantic->size());
    }
    std::printf("\n");
  }
  std::printf("on disk: %.0f bytes/doc for %llu documents (%s)\n",
              double(DirectoryBytes(dir)) / stored,
              static_cast<unsigned long long>(stored), dir.c_str());
  return 0;
}
