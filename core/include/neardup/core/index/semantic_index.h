#ifndef NEARDUP_CORE_INDEX_SEMANTIC_INDEX_H_
#define NEARDUP_CORE_INDEX_SEMANTIC_INDEX_H_

// A collection's cosine neighbours: its unit vectors split over shards by
// internal id (id % shards), one HNSW graph (or, exact, one flat array) per
// shard. Writes to different
// shards do not wait on each other, a rebuild fills the shards on as many
// threads, and a search asks every shard for its best and merges them.
// Thread-safe like HnswIndex.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "neardup/core/index/hnsw_index.h"
#include "neardup/core/index/sharded_rows.h"

namespace neardup {

class SemanticIndex {
 public:
  // `options` apply to every shard; shards in [1, 256]. `exact`: each
  // shard is a FlatVectorIndex (every vector scored, no graph built).
  static absl::StatusOr<std::unique_ptr<SemanticIndex>> Create(
      const HnswOptions& options, int shards, bool exact = false);

  // `unit` from UnitEmbedding. Replaces the vector `id` had.
  absl::Status Upsert(uint32_t id, std::span<const float> unit);
  // Many upserts at once: vectors[i * dim, (i + 1) * dim) is ids[i]'s.
  // Each shard is filled by one of up to `threads` threads.
  absl::Status BulkUpsert(std::span<const uint32_t> ids,
                          std::span<const float> vectors, int threads);
  // NOT_FOUND when `id` is not indexed.
  absl::Status Remove(uint32_t id);
  // Room for `additional` more vectors in every shard (see
  // VectorIndex::Reserve): which shard they land in is not known yet.
  absl::Status Reserve(size_t additional);

  // Up to k neighbours with cosine >= min_cosine, best first (ties: lower
  // id): each shard's k best (approximate with graphs, see
  // HnswOptions::ef_search), merged.
  absl::StatusOr<std::vector<IdCosine>> Search(std::span<const float> unit,
                                               size_t k,
                                               float min_cosine) const;
  // The exact cosine between `unit` and each id's vector; nullopt for an id
  // that is not indexed.
  std::vector<std::optional<float>> CosineTo(
      std::span<const float> unit, std::span<const uint32_t> ids) const;

  size_t size() const;
  size_t memory_bytes() const;
  int dim() const { return dim_; }
  size_t shards() const { return shards_.size(); }

 private:
  SemanticIndex(std::vector<std::unique_ptr<VectorIndex>> shards, int dim);

  // A vector index takes ids, not rows: only the shard of an id is used.
  ShardedRows<VectorIndex> shards_;
  const int dim_;
};

}  // namespace neardup

#endif  // NEARDUP_CORE_INDEX_SEMANTIC_INDEX_H_
