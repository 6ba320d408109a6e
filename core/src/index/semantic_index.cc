#include "neardup/core/index/semantic_index.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "neardup/base/worker_pool.h"
#include "neardup/core/index/flat_vector_index.h"
#include "neardup/core/index/internal/shard_work.h"

namespace neardup {

SemanticIndex::SemanticIndex(std::vector<std::unique_ptr<VectorIndex>> shards,
                             int dim)
    : shards_(std::move(shards)), dim_(dim) {}

absl::StatusOr<std::unique_ptr<SemanticIndex>> SemanticIndex::Create(
    const HnswOptions& options, int shards, bool exact) {
  if (shards < 1 || shards > 256) {
    return absl::InvalidArgumentError(
        absl::StrCat("shards must be in [1, 256], got ", shards));
  }
  std::vector<std::unique_ptr<VectorIndex>> parts;
  for (int s = 0; s < shards; ++s) {
    if (exact) {
      auto flat = FlatVectorIndex::Create(options.dim);
      if (!flat.ok()) return flat.status();
      parts.push_back(*std::move(flat));
      continue;
    }
    HnswOptions shard_options = options;
    // Each shard draws its own levels, still reproducibly.
    shard_options.seed = options.seed + static_cast<uint64_t>(s);
    auto graph = HnswIndex::Create(shard_options);
    if (!graph.ok()) return graph.status();
    parts.push_back(*std::move(graph));
  }
  return std::unique_ptr<SemanticIndex>(
      new SemanticIndex(std::move(parts), options.dim));
}

absl::Status SemanticIndex::Upsert(uint32_t id, std::span<const float> unit) {
  return shard_of(id).Upsert(id, unit);
}

absl::Status SemanticIndex::BulkUpsert(std::span<const uint32_t> ids,
                                       std::span<const float> vectors,
                                       int threads) {
  const size_t dim = static_cast<size_t>(dim_);
  if (vectors.size() != ids.size() * dim) {
    return absl::InvalidArgumentError(
        absl::StrCat("bulk upsert got ", ids.size(), " ids but ",
                     vectors.size(), " floats (dim ", dim_, ")"));
  }
  const auto by_shard = index_internal::PositionsByShard(ids, shards_.size());
  std::vector<absl::Status> results(shards_.size());
  ParallelFor(shards_.size(), threads, [&](size_t s) {
    for (uint32_t i : by_shard[s]) {
      absl::Status status =
          shards_[s]->Upsert(ids[i], vectors.subspan(i * dim, dim));
      if (!status.ok()) {
        results[s] = std::move(status);
        return;
      }
    }
  });
  for (absl::Status& status : results) {
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status SemanticIndex::Reserve(size_t additional) {
  for (const auto& shard : shards_) {
    if (absl::Status room = shard->Reserve(additional); !room.ok()) {
      return room;
    }
  }
  return absl::OkStatus();
}

absl::Status SemanticIndex::Remove(uint32_t id) {
  return shard_of(id).Remove(id);
}

absl::StatusOr<std::vector<IdCosine>> SemanticIndex::Search(
    std::span<const float> unit, size_t k, float min_cosine) const {
  std::vector<IdCosine> merged;
  for (const auto& shard : shards_) {
    auto found = shard->Search(unit, k, min_cosine);
    if (!found.ok()) return found.status();
    merged.insert(merged.end(), found->begin(), found->end());
  }
  std::sort(merged.begin(), merged.end(), BetterMatch);
  if (merged.size() > k) merged.resize(k);
  return merged;
}

std::vector<std::optional<float>> SemanticIndex::CosineTo(
    std::span<const float> unit, std::span<const uint32_t> ids) const {
  std::vector<std::optional<float>> out;
  out.reserve(ids.size());
  for (uint32_t id : ids) out.push_back(shard_of(id).Cosine(id, unit));
  return out;
}

size_t SemanticIndex::size() const {
  size_t total = 0;
  for (const auto& shard : shards_) total += shard->size();
  return total;
}

size_t SemanticIndex::memory_bytes() const {
  size_t total = sizeof(*this);
  for (const auto& shard : shards_) total += shard->memory_bytes();
  return total;
}

}  // namespace neardup
