#ifndef NEARDUP_CORE_INDEX_SHARDED_ROWS_H_
#define NEARDUP_CORE_INDEX_SHARDED_ROWS_H_

// The shard bookkeeping of the sharded indexes (MinHash, SimHash, semantic),
// once: id i lives in shard i % n, as that shard's dense row i / n. Each
// shard guards its own state; bulk work groups its inputs by shard and runs
// the shards in parallel, one thread per shard at a time, so no shard lock
// is contended.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "neardup/base/worker_pool.h"

namespace neardup {

template <typename Shard>
class ShardedRows {
 public:
  explicit ShardedRows(std::vector<std::unique_ptr<Shard>> shards)
      : shards_(std::move(shards)) {}

  size_t size() const { return shards_.size(); }  // the number of shards

  Shard& of(uint32_t id) { return *shards_[id % shards_.size()]; }
  const Shard& of(uint32_t id) const { return *shards_[id % shards_.size()]; }
  uint32_t row_of(uint32_t id) const {
    return id / static_cast<uint32_t>(shards_.size());
  }
  uint32_t id_of(size_t shard, uint32_t row) const {
    return row * static_cast<uint32_t>(shards_.size()) +
           static_cast<uint32_t>(shard);
  }

  Shard& operator[](size_t shard) { return *shards_[shard]; }
  const Shard& operator[](size_t shard) const { return *shards_[shard]; }

  // Groups `ids` by shard, then runs work(shard, positions) for each shard
  // that has any (positions index `ids`, in input order), on up to
  // `threads` threads.
  template <typename Work>
  void ForEachShardOf(std::span<const uint32_t> ids, int threads,
                      Work work) const {
    std::vector<std::vector<uint32_t>> by_shard(shards_.size());
    for (size_t i = 0; i < ids.size(); ++i) {
      by_shard[ids[i] % shards_.size()].push_back(static_cast<uint32_t>(i));
    }
    ParallelFor(shards_.size(), threads, [&](size_t shard) {
      if (!by_shard[shard].empty()) work(shard, by_shard[shard]);
    });
  }

  // The sum of count(shard) over the shards.
  template <typename Count>
  size_t Sum(Count count) const {
    size_t total = 0;
    for (const auto& shard : shards_) total += count(*shard);
    return total;
  }

  size_t MemoryBytes() const {
    return shards_.capacity() * sizeof(std::unique_ptr<Shard>);
  }

 private:
  std::vector<std::unique_ptr<Shard>> shards_;
};

}  // namespace neardup

#endif  // NEARDUP_CORE_INDEX_SHARDED_ROWS_H_
