#ifndef NEARDUP_CORE_INDEX_INTERNAL_SHARD_WORK_H_
#define NEARDUP_CORE_INDEX_INTERNAL_SHARD_WORK_H_

// Bulk operations of the sharded indexes group inputs by shard, then work
// on the shards with ParallelFor (one thread per shard at a time, so no
// shard lock is contended).

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "absl/functional/function_ref.h"

namespace neardup::index_internal {

// Input positions per shard (shard = id % num_shards), in input order.
inline std::vector<std::vector<uint32_t>> PositionsByShard(
    std::span<const uint32_t> ids, size_t num_shards) {
  std::vector<std::vector<uint32_t>> by_shard(num_shards);
  for (size_t i = 0; i < ids.size(); ++i) {
    by_shard[ids[i] % num_shards].push_back(static_cast<uint32_t>(i));
  }
  return by_shard;
}

}  // namespace neardup::index_internal

#endif  // NEARDUP_CORE_INDEX_INTERNAL_SHARD_WORK_H_
