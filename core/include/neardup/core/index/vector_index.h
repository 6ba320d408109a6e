#ifndef NEARDUP_CORE_INDEX_VECTOR_INDEX_H_
#define NEARDUP_CORE_INDEX_VECTOR_INDEX_H_

// What a shard of a SemanticIndex is: unit vectors by internal id, searched
// by cosine. HnswIndex walks a graph (approximate); FlatVectorIndex scores
// every vector (exact). Thread-safe: searches run together, writes one at
// a time.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace neardup {

struct IdCosine {
  uint32_t id = 0;
  float cosine = 0;
  bool operator==(const IdCosine&) const = default;
};

// Best first: higher cosine, then lower id.
inline bool BetterMatch(const IdCosine& a, const IdCosine& b) {
  return a.cosine != b.cosine ? a.cosine > b.cosine : a.id < b.id;
}

// Whether `cosine` reaches the floor `min_cosine`. Cosines are float sums
// of float products: two equal unit vectors may score 0.99999994, so the
// floor forgives 1e-6.
inline bool ReachesCosine(float cosine, float min_cosine) {
  return cosine >= min_cosine - 1e-6f;
}

// The unit vector of `vector`, or INVALID_ARGUMENT saying why not: another
// dimension than `dim`, a NaN or infinite component, or a zero norm.
absl::StatusOr<std::vector<float>> UnitEmbedding(std::span<const float> vector,
                                                 int dim);

class VectorIndex {
 public:
  virtual ~VectorIndex() = default;
  // `unit` must come from UnitEmbedding (length dim, norm 1). Replaces.
  virtual absl::Status Upsert(uint32_t id, std::span<const float> unit) = 0;
  // NOT_FOUND when `id` is not in the index.
  virtual absl::Status Remove(uint32_t id) = 0;
  // Makes room for `additional` more vectors now, so that the upserts that
  // follow do not allocate: RESOURCE_EXHAUSTED when memory is short. (A
  // collection reserves before it writes the store, so that its index
  // cannot fail after the write.)
  virtual absl::Status Reserve(size_t additional) = 0;
  // Up to k neighbours with cosine >= min_cosine, best first.
  virtual absl::StatusOr<std::vector<IdCosine>> Search(
      std::span<const float> unit, size_t k, float min_cosine = -1) const = 0;
  // The exact cosine between `unit` and the vector of `id`; nullopt when
  // `id` is not in the index.
  virtual std::optional<float> Cosine(uint32_t id,
                                      std::span<const float> unit) const = 0;
  virtual size_t size() const = 0;
  // Heap bytes of the vectors and their structures.
  virtual size_t memory_bytes() const = 0;
};

}  // namespace neardup

#endif  // NEARDUP_CORE_INDEX_VECTOR_INDEX_H_
