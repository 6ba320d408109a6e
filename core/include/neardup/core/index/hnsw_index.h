#ifndef NEARDUP_CORE_INDEX_HNSW_INDEX_H_
#define NEARDUP_CORE_INDEX_HNSW_INDEX_H_

// Approximate nearest neighbours by cosine over unit vectors (hnswlib's
// HNSW graph, inner-product space), keyed by the collections' dense
// internal ids. Upserts replace, removes exclude at once (hnswlib marks the
// node deleted; the node keeps its memory until the same id comes back, as
// Debian's hnswlib 0.6.2 cannot reuse it for another id). Thread-safe:
// searches run together, writes one at a time.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace neardup {

struct HnswOptions {
  int dim = 0;  // 1..4096
  int m = 16;   // links per node (2m on the base layer), 4..64
  int ef_construction = 200;
  // Candidates a search keeps (at least k): higher finds more of the true
  // neighbours, slower. 16..4096.
  int ef_search = 128;
  size_t initial_capacity = 1024;  // grows by doubling
  uint64_t seed = 100;             // level draws: same inserts, same graph
};

struct IdCosine {
  uint32_t id = 0;
  float cosine = 0;
  bool operator==(const IdCosine&) const = default;
};

// The unit vector of `vector`, or INVALID_ARGUMENT saying why not: another
// dimension than `dim`, a NaN or infinite component, or a zero norm.
absl::StatusOr<std::vector<float>> UnitEmbedding(std::span<const float> vector,
                                                 int dim);

class HnswIndex {
 public:
  // INVALID_ARGUMENT for options out of range.
  static absl::StatusOr<std::unique_ptr<HnswIndex>> Create(
      const HnswOptions& options);
  ~HnswIndex();

  // `unit` must come from UnitEmbedding (length dim, norm 1).
  absl::Status Upsert(uint32_t id, std::span<const float> unit);
  // NOT_FOUND when `id` is not in the index.
  absl::Status Remove(uint32_t id);
  // Up to k neighbours with cosine >= min_cosine, best first (ties: lower
  // id). Approximate: see ef_search.
  absl::StatusOr<std::vector<IdCosine>> Search(std::span<const float> unit,
                                               size_t k,
                                               float min_cosine = -1) const;

  size_t size() const;
  // Bytes the graph and vectors take (hnswlib's allocations, estimated from
  // its layout), for Stats and metrics.
  size_t memory_bytes() const;
  const HnswOptions& options() const { return options_; }

 private:
  struct Impl;
  HnswIndex(const HnswOptions& options, std::unique_ptr<Impl> impl);

  const HnswOptions options_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace neardup

#endif  // NEARDUP_CORE_INDEX_HNSW_INDEX_H_
