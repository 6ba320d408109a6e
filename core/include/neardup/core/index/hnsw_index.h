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
#include <optional>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "neardup/core/index/vector_index.h"

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

class HnswIndex : public VectorIndex {
 public:
  // INVALID_ARGUMENT for options out of range.
  static absl::StatusOr<std::unique_ptr<HnswIndex>> Create(
      const HnswOptions& options);
  ~HnswIndex();

  // `unit` must come from UnitEmbedding (length dim, norm 1).
  absl::Status Upsert(uint32_t id, std::span<const float> unit) override;
  // NOT_FOUND when `id` is not in the index.
  absl::Status Remove(uint32_t id) override;
  absl::Status Reserve(size_t additional) override;
  // Up to k neighbours with cosine >= min_cosine, best first (ties: lower
  // id). Approximate: see ef_search.
  absl::StatusOr<std::vector<IdCosine>> Search(
      std::span<const float> unit, size_t k,
      float min_cosine = -1) const override;

  // The exact cosine between `unit` and the vector of `id`; nullopt when
  // `id` is not in the index.
  std::optional<float> Cosine(uint32_t id,
                              std::span<const float> unit) const override;

  size_t size() const override;
  // Bytes the graph and vectors take (hnswlib's allocations, estimated from
  // its layout), for Stats and metrics.
  size_t memory_bytes() const override;
  const HnswOptions& options() const { return options_; }

 private:
  struct Impl;
  HnswIndex(const HnswOptions& options, std::unique_ptr<Impl> impl);

  const HnswOptions options_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace neardup

#endif  // NEARDUP_CORE_INDEX_HNSW_INDEX_H_
