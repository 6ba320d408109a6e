#include "neardup/core/index/semantic_index.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "neardup/base/worker_pool.h"
#include "neardup/core/index/flat_vector_index.h"

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
  return shards_.of(id).Upsert(id, unit);
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
  std::vector<absl::Status> results(shards_.size());
  shards_.ForEachShardOf(
      ids, threads, [&](size_t s, const std::vector<uint32_t>& positions) {
        for (uint32_t i : positions) {
          absl::Status status =
              shards_[s].Upsert(ids[i], vectors.subspan(i * dim, dim));
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
  for (size_t s = 0; s < shards_.size(); ++s) {
    if (absl::Status room = shards_[s].Reserve(additional); !room.ok()) {
      return room;
    }
  }
  return absl::OkStatus();
}

absl::Status SemanticIndex::Remove(uint32_t id) {
  return shards_.of(id).Remove(id);
}

absl::StatusOr<std::vector<IdCosine>> SemanticIndex::Search(
    std::span<const float> unit, size_t k, float min_cosine) const {
  std::vector<IdCosine> merged;
  for (size_t s = 0; s < shards_.size(); ++s) {
    auto found = shards_[s].Search(unit, k, min_cosine);
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
  for (uint32_t id : ids) out.push_back(shards_.of(id).Cosine(id, unit));
  return out;
}

size_t SemanticIndex::size() const {
  return shards_.Sum([](const VectorIndex& shard) { return shard.size(); });
}

size_t SemanticIndex::memory_bytes() const {
  return sizeof(*this) + shards_.MemoryBytes() +
         shards_.Sum(
             [](const VectorIndex& shard) { return shard.memory_bytes(); });
}

}  // namespace neardup
