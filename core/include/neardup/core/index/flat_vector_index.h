#ifndef NEARDUP_CORE_INDEX_FLAT_VECTOR_INDEX_H_
#define NEARDUP_CORE_INDEX_FLAT_VECTOR_INDEX_H_

// Exact cosine search: every vector scored per query, nothing to build
// (inserts and a restart cost a copy). Two passes keep it fast and exact:
// int8 codes of every row (a quarter of the bytes) give each row's score
// within a proven error bound, and only the rows whose upper bound can
// still reach the answer are scored again in float32. The answer is what a
// float32 scan of every row gives, bit for bit, on every CPU (the kernels
// of internal/dot_kernel.h are chosen at run time and agree exactly).

#include <cstdint>
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
  absl::Status Reserve(size_t additional) override;
  absl::StatusOr<std::vector<IdCosine>> Search(
      std::span<const float> unit, size_t k,
      float min_cosine = -1) const override;
  std::optional<float> Cosine(uint32_t id,
                              std::span<const float> unit) const override;
  size_t size() const override;
  size_t memory_bytes() const override;

  // Rows the last Search of this thread scored in float32 (the others were
  // settled by their int8 bounds), for tests and benchmarks.
  static size_t LastRescored();

 private:
  // A vector's int8 codes: x[i] ~ scale * codes[i], |codes[i]| <= 127.
  struct Quantized {
    float scale = 0;
    int32_t l1 = 0;  // sum of |codes[i]|
  };

  FlatVectorIndex(int dim, size_t stride, size_t code_stride)
      : dim_(dim), stride_(stride), code_stride_(code_stride) {}
  // `unit` padded with zeros to stride_ floats.
  std::vector<float> Padded(std::span<const float> unit) const;
  // Codes of `unit` into `codes` (code_stride_ bytes, zero-padded).
  Quantized Quantize(std::span<const float> unit, int8_t* codes) const;

  const int dim_;
  const size_t stride_;       // dim rounded up to the float kernel's lanes
  const size_t code_stride_;  // dim rounded up to the int8 kernel's lanes
  mutable SharedMutex mu_;
  // Row r holds the vector of ids_[r] (floats, codes, scale); a remove
  // moves the last row into the hole, so rows stay dense.
  std::vector<float> rows_ ABSL_GUARDED_BY(mu_);
  std::vector<int8_t> codes_ ABSL_GUARDED_BY(mu_);
  std::vector<Quantized> quantized_ ABSL_GUARDED_BY(mu_);
  std::vector<uint32_t> ids_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint32_t, uint32_t> row_of_ ABSL_GUARDED_BY(mu_);
};

}  // namespace neardup

#endif  // NEARDUP_CORE_INDEX_FLAT_VECTOR_INDEX_H_
