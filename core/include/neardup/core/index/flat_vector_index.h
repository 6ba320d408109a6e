#ifndef NEARDUP_CORE_INDEX_FLAT_VECTOR_INDEX_H_
#define NEARDUP_CORE_INDEX_FLAT_VECTOR_INDEX_H_

// Exact cosine search: the unit vectors side by side in one array, every
// one scored per query by a SIMD kernel chosen at run time
// (internal/dot_kernel.h, the same bits on every CPU). O(size x dim) per
// query and nothing to build: inserts and a restart cost a copy.

#include <memory>

#include "absl/container/flat_hash_map.h"
#include "neardup/base/sync.h"
#include "neardup/core/index/vector_index.h"

namespace neardup {

class FlatVectorIndex : public VectorIndex {
 public:
  // dim in [1, 4096].
  static absl::StatusOr<std::unique_ptr<FlatVectorIndex>> Create(int dim);

  absl::Status Upsert(uint32_t id, std::span<const float> unit) override;
  absl::Status Remove(uint32_t id) override;
  absl::StatusOr<std::vector<IdCosine>> Search(
      std::span<const float> unit, size_t k,
      float min_cosine = -1) const override;
  std::optional<float> Cosine(uint32_t id,
                              std::span<const float> unit) const override;
  size_t size() const override;
  size_t memory_bytes() const override;

 private:
  FlatVectorIndex(int dim, size_t stride) : dim_(dim), stride_(stride) {}
  // `unit` padded with zeros to stride_ floats.
  std::vector<float> Padded(std::span<const float> unit) const;

  const int dim_;
  const size_t stride_;  // dim rounded up to the kernel's lanes
  mutable SharedMutex mu_;
  // Row r holds the vector of ids_[r]; a remove moves the last row into
  // the hole, so rows stay dense.
  std::vector<float> rows_ ABSL_GUARDED_BY(mu_);
  std::vector<uint32_t> ids_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint32_t, uint32_t> row_of_ ABSL_GUARDED_BY(mu_);
};

}  // namespace neardup

#endif  // NEARDUP_CORE_INDEX_FLAT_VECTOR_INDEX_H_
