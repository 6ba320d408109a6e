#ifndef NEARDUP_CORE_INDEX_SIMHASH_INDEX_H_
#define NEARDUP_CORE_INDEX_SIMHASH_INDEX_H_

// In-memory index of 64-bit SimHashes answering "which documents are within
// Hamming distance k?" with permuted block tables (Manku, Jain, Das Sarma,
// WWW 2007) instead of a linear scan.
//
// The 64 bits are cut into m blocks. Two hashes at distance <= k differ in at
// most k blocks, so they agree exactly on at least m - k blocks: one table
// per choice of m - k blocks, keyed by those blocks' bits, finds every such
// pair. m = k + 1 (the default) gives k + 1 tables keyed by 64/(k+1) bits;
// a larger m gives more tables with longer keys and fewer candidates.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "neardup/core/index/query_stats.h"
#include "neardup/core/index/sharded_rows.h"

namespace neardup {

struct SimHashIndexOptions {
  int max_distance = 3;  // k: the largest radius a query may ask for
  int blocks = 0;        // m; 0 picks k + 1
  // Shards by id. A query probes every shard's tables, so more shards cost
  // query time; 4 keeps queries fast while inserts and rebuilds still run
  // in parallel.
  int shards = 4;
};

struct IdDistance {
  uint32_t id;
  int distance;  // Hamming distance

  bool operator==(const IdDistance&) const = default;
};

// The tables' key masks for `options` (max_distance and blocks; blocks 0
// picks k + 1): two hashes within k bits agree under at least one mask.
// INVALID_ARGUMENT as Create.
absl::StatusOr<std::vector<uint64_t>> SimHashTableMasks(
    const SimHashIndexOptions& options);

// Thread-safe. Ids follow the same rules as MinHashLshIndex.
class SimHashIndex {
 public:
  static inline constexpr uint32_t kMaxId = 0xFFFFFFFEu;

  // INVALID_ARGUMENT for k outside [0, 32], m outside [k + 1, 64], or more
  // than 512 tables.
  static absl::StatusOr<std::unique_ptr<SimHashIndex>> Create(
      const SimHashIndexOptions& options);
  ~SimHashIndex();

  // Inserts or replaces.
  absl::Status Insert(uint32_t id, uint64_t simhash);
  absl::Status BulkInsert(std::span<const uint32_t> ids,
                          std::span<const uint64_t> simhashes, int threads);
  // Sizes every shard for ids below `id_bound` (see MinHashLshIndex).
  void Reserve(uint32_t id_bound);
  bool Remove(uint32_t id);
  bool Contains(uint32_t id) const;
  std::optional<uint64_t> Get(uint32_t id) const;

  // Ids within `max_distance` (-1: the index's k; more than k is
  // INVALID_ARGUMENT), nearest first, ties by ascending id; the first
  // `limit` of them (0: all). Documents with equal SimHashes form a twin
  // class that sits in the tables once, so a flood of N identical ones
  // costs one distance and `limit` ids, not N. `stats` counts every
  // member of a class.
  absl::StatusOr<std::vector<IdDistance>> Query(
      uint64_t simhash, int max_distance = -1, IndexQueryStats* stats = nullptr,
      size_t limit = 0) const;

  size_t size() const;
  size_t MemoryBytes() const;
  int num_tables() const { return static_cast<int>(masks_.size()); }
  const SimHashIndexOptions& options() const { return options_; }

 private:
  struct Shard;
  SimHashIndex(const SimHashIndexOptions& options, std::vector<uint64_t> masks);

  SimHashIndexOptions options_;
  std::vector<uint64_t> masks_;  // per table: the bits of its key blocks
  ShardedRows<Shard> shards_;
};

}  // namespace neardup

#endif  // NEARDUP_CORE_INDEX_SIMHASH_INDEX_H_
