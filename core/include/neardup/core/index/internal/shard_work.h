#ifndef NEARDUP_CORE_INDEX_INTERNAL_SHARD_WORK_H_
#define NEARDUP_CORE_INDEX_INTERNAL_SHARD_WORK_H_

// Bulk operations of the sharded indexes: group inputs by shard, then work
// on shards in parallel (one thread per shard at a time, so no shard lock is
// contended).

#include <algorithm>
#include <cstdint>
#include <span>
#include <thread>
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

// Calls work(shard) once for every shard, on up to `threads` threads.
inline void ForEachShardInParallel(size_t num_shards, int threads,
                                   absl::FunctionRef<void(size_t)> work) {
  const size_t workers =
      std::clamp<size_t>(threads < 1 ? 1 : threads, 1, num_shards);
  std::vector<std::thread> pool;
  for (size_t w = 1; w < workers; ++w) {
    pool.emplace_back([&, w] {
      for (size_t s = w; s < num_shards; s += workers) work(s);
    });
  }
  for (size_t s = 0; s < num_shards; s += workers) work(s);
  for (std::thread& t : pool) t.join();
}

}  // namespace neardup::index_internal

#endif  // NEARDUP_CORE_INDEX_INTERNAL_SHARD_WORK_H_
