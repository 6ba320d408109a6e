#include "neardup/core/index/simhash_index.h"

#include <algorithm>
#include <bit>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"
#include "neardup/base/sync.h"
#include "neardup/base/worker_pool.h"
#include "neardup/core/index/internal/bitset.h"
#include "neardup/core/index/internal/key_chains.h"
#include "neardup/core/index/internal/twin_classes.h"

namespace neardup {

using index_internal::KeyChains;
using index_internal::TagOf;
using index_internal::TwinClasses;

namespace {

constexpr int kMaxTables = 512;
constexpr uint32_t kNoRow = 0xFFFFFFFFu;

// Masks of the `blocks` contiguous bit blocks (the first 64 % m blocks get
// one extra bit).
std::vector<uint64_t> BlockMasks(int blocks) {
  std::vector<uint64_t> masks;
  int start = 0;
  for (int b = 0; b < blocks; ++b) {
    const int width = 64 / blocks + (b < 64 % blocks ? 1 : 0);
    const uint64_t ones =
        width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
    masks.push_back(ones << start);
    start += width;
  }
  return masks;
}

// One table mask per choice of `choose` blocks out of `blocks.size()`.
void Combine(const std::vector<uint64_t>& blocks, int choose, size_t first,
             uint64_t mask, std::vector<uint64_t>& out) {
  if (choose == 0) {
    out.push_back(mask);
    return;
  }
  for (size_t b = first; b + choose <= blocks.size(); ++b) {
    Combine(blocks, choose - 1, b + 1, mask | blocks[b], out);
  }
}

uint64_t Binomial(int n, int k) {
  uint64_t result = 1;
  for (int i = 1; i <= k; ++i) result = result * (n - k + i) / i;
  return result;
}

}  // namespace

struct SimHashIndex::Shard {
  explicit Shard(size_t tables) : tables(tables) {}

  mutable SharedMutex mu;
  index_internal::Bitset present ABSL_GUARDED_BY(mu);
  std::vector<uint64_t> hashes ABSL_GUARDED_BY(mu);  // per row
  std::vector<KeyChains> tables ABSL_GUARDED_BY(mu);
  // Rows with equal SimHashes: only a class's representative sits in the
  // tables, so a flood of N identical documents costs a query one
  // distance and the members it lists, not N (as MinHashLshIndex's).
  TwinClasses twins ABSL_GUARDED_BY(mu);
  size_t count ABSL_GUARDED_BY(mu) = 0;

  // At most this many rows of table 0's chain are looked at for a twin: a
  // flood's representative sits near the head (documents of other hashes
  // rarely share its table-0 key), and one missed just starts a second
  // class.
  static constexpr int kRowsLooked = 8;

  // A table row other than `row` whose SimHash is `simhash`, or kNoRow.
  uint32_t FindTwinLocked(uint32_t row, uint64_t simhash,
                          const std::vector<uint64_t>& masks) const
      ABSL_SHARED_LOCKS_REQUIRED(mu) {
    uint32_t heads[kRowsLooked];
    int looked = 0;
    tables[0].ForEachWhile(TagOf(simhash & masks[0]), [&](uint32_t candidate) {
      heads[looked++] = candidate;
      return looked < kRowsLooked;
    });
    for (int i = 0; i < looked; ++i) {
      if (heads[i] != row && hashes[heads[i]] == simhash) return heads[i];
    }
    return kNoRow;
  }

  void InsertLocked(uint32_t row, uint64_t simhash,
                    const std::vector<uint64_t>& masks)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (present.Test(row)) RemoveLocked(row);
    if (const uint32_t twin = FindTwinLocked(row, simhash, masks);
        twin != kNoRow) {
      twins.Join(twin, simhash, row);
    } else {
      for (size_t t = 0; t < tables.size(); ++t) {
        tables[t].Insert(TagOf(simhash & masks[t]), row);
      }
    }
    if (row >= hashes.size()) {
      // Grow the capacity by 25% at a time: reserving just enough on every
      // append would copy the array on each insert.
      if (row >= hashes.capacity()) {
        hashes.reserve(
            std::max<size_t>(row + 1, hashes.capacity() * 5 / 4 + 16));
      }
      hashes.resize(row + 1);
    }
    hashes[row] = simhash;
    present.Set(row);
    ++count;
  }

  void RemoveLocked(uint32_t row) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    index_internal::RemoveTwinOrRow(twins, tables, row);
    present.Clear(row);
    --count;
  }
};

namespace {

template <typename Shard>
std::vector<std::unique_ptr<Shard>> MakeShards(int count, size_t tables) {
  std::vector<std::unique_ptr<Shard>> shards;
  for (int i = 0; i < count; ++i) {
    shards.push_back(std::make_unique<Shard>(tables));
  }
  return shards;
}

}  // namespace

SimHashIndex::SimHashIndex(const SimHashIndexOptions& options,
                           std::vector<uint64_t> masks)
    : options_(options),
      masks_(std::move(masks)),
      shards_(MakeShards<Shard>(options.shards, masks_.size())) {}

SimHashIndex::~SimHashIndex() = default;

namespace {

// `options` with blocks chosen, or why they are out of range.
absl::StatusOr<SimHashIndexOptions> Checked(SimHashIndexOptions options) {
  const int k = options.max_distance;
  if (k < 0 || k > 32) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_distance must be in [0, 32], got ", k));
  }
  if (options.blocks == 0) options.blocks = k + 1;
  if (options.blocks < k + 1 || options.blocks > 64) {
    return absl::InvalidArgumentError(
        absl::StrCat("blocks must be in [max_distance + 1, 64] = [", k + 1,
                     ", 64], got ", options.blocks));
  }
  if (Binomial(options.blocks, options.blocks - k) > kMaxTables) {
    return absl::InvalidArgumentError(
        absl::StrCat(options.blocks, " blocks at distance ", k, " need ",
                     Binomial(options.blocks, options.blocks - k),
                     " tables; the limit is ", kMaxTables));
  }
  return options;
}

}  // namespace

absl::StatusOr<std::vector<uint64_t>> SimHashTableMasks(
    const SimHashIndexOptions& requested) {
  ASSIGN_OR_RETURN(const SimHashIndexOptions options, Checked(requested));
  std::vector<uint64_t> masks;
  Combine(BlockMasks(options.blocks), options.blocks - options.max_distance, 0,
          0, masks);
  return masks;
}

absl::StatusOr<std::unique_ptr<SimHashIndex>> SimHashIndex::Create(
    const SimHashIndexOptions& requested) {
  ASSIGN_OR_RETURN(const SimHashIndexOptions options, Checked(requested));
  if (options.shards < 1 || options.shards > 4096) {
    return absl::InvalidArgumentError(
        absl::StrCat("shards must be in [1, 4096], got ", options.shards));
  }
  ASSIGN_OR_RETURN(std::vector<uint64_t> masks, SimHashTableMasks(options));
  return std::unique_ptr<SimHashIndex>(
      new SimHashIndex(options, std::move(masks)));
}

absl::Status SimHashIndex::Insert(uint32_t id, uint64_t simhash) {
  if (id > kMaxId) {
    return absl::InvalidArgumentError(absl::StrCat("id ", id, " is reserved"));
  }
  Shard& shard = shards_.of(id);
  WriterLock lock(&shard.mu);
  shard.InsertLocked(shards_.row_of(id), simhash, masks_);
  return absl::OkStatus();
}

absl::Status SimHashIndex::BulkInsert(std::span<const uint32_t> ids,
                                      std::span<const uint64_t> simhashes,
                                      int threads) {
  if (ids.size() != simhashes.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("bulk insert got ", ids.size(), " ids but ",
                     simhashes.size(), " hashes"));
  }
  for (uint32_t id : ids) {
    if (id > kMaxId) {
      return absl::InvalidArgumentError(
          absl::StrCat("id ", id, " is reserved"));
    }
  }
  shards_.ForEachShardOf(
      ids, threads, [&](size_t s, const std::vector<uint32_t>& positions) {
        uint32_t max_row = 0;
        for (uint32_t i : positions) {
          max_row = std::max(max_row, shards_.row_of(ids[i]));
        }
        Shard& shard = shards_[s];
        WriterLock lock(&shard.mu);
        for (KeyChains& table : shard.tables) {
          table.Reserve(table.num_keys() + positions.size(), max_row + 1);
        }
        shard.hashes.reserve(max_row + 1);
        for (uint32_t i : positions) {
          shard.InsertLocked(shards_.row_of(ids[i]), simhashes[i], masks_);
        }
      });
  return absl::OkStatus();
}

void SimHashIndex::Reserve(uint32_t id_bound) {
  const size_t rows = shards_.row_of(id_bound) + 1;
  for (size_t s = 0; s < shards_.size(); ++s) {
    Shard& shard = shards_[s];
    WriterLock lock(&shard.mu);
    shard.hashes.reserve(rows);
    for (KeyChains& table : shard.tables) table.Reserve(rows, rows);
  }
}

bool SimHashIndex::Remove(uint32_t id) {
  Shard& shard = shards_.of(id);
  const uint32_t row = shards_.row_of(id);
  WriterLock lock(&shard.mu);
  if (!shard.present.Test(row)) return false;
  shard.RemoveLocked(row);
  return true;
}

bool SimHashIndex::Contains(uint32_t id) const {
  const Shard& shard = shards_.of(id);
  ReaderLock lock(&shard.mu);
  return shard.present.Test(shards_.row_of(id));
}

std::optional<uint64_t> SimHashIndex::Get(uint32_t id) const {
  const Shard& shard = shards_.of(id);
  const uint32_t row = shards_.row_of(id);
  ReaderLock lock(&shard.mu);
  if (!shard.present.Test(row)) return std::nullopt;
  return shard.hashes[row];
}

absl::StatusOr<std::vector<IdDistance>> SimHashIndex::Query(
    uint64_t simhash, int max_distance, IndexQueryStats* stats,
    size_t limit) const {
  if (max_distance < 0) max_distance = options_.max_distance;
  if (max_distance > options_.max_distance) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_distance ", max_distance,
                     " exceeds the index's radius ", options_.max_distance));
  }
  std::vector<IdDistance> out;
  std::vector<uint32_t> rows;
  for (size_t s = 0; s < shards_.size(); ++s) {
    const Shard& shard = shards_[s];
    rows.clear();
    ReaderLock lock(&shard.mu);
    for (size_t t = 0; t < masks_.size(); ++t) {
      shard.tables[t].ForEach(TagOf(simhash & masks_[t]),
                              [&](uint32_t row) { rows.push_back(row); });
    }
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    if (stats) stats->scored += rows.size();
    for (uint32_t row : rows) {
      // A twin class's members are all at the representative's distance:
      // the first `limit` of them (by id) are all an answer can use.
      const size_t size = shard.twins.SizeOf(row);
      if (stats) stats->candidates += size;
      const int distance = std::popcount(shard.hashes[row] ^ simhash);
      if (distance > max_distance) continue;
      if (stats) stats->accepted += size;
      shard.twins.ForEachMember(row, limit, [&](uint32_t member) {
        out.push_back({shards_.id_of(s, member), distance});
      });
    }
  }
  std::sort(
      out.begin(), out.end(), [](const IdDistance& a, const IdDistance& b) {
        return a.distance != b.distance ? a.distance < b.distance : a.id < b.id;
      });
  if (limit > 0 && out.size() > limit) out.resize(limit);
  return out;
}

size_t SimHashIndex::size() const {
  return shards_.Sum([](const Shard& shard) {
    ReaderLock lock(&shard.mu);
    return shard.count;
  });
}

size_t SimHashIndex::MemoryBytes() const {
  return sizeof(*this) + masks_.capacity() * sizeof(uint64_t) +
         shards_.MemoryBytes() + shards_.Sum([](const Shard& shard) {
           ReaderLock lock(&shard.mu);
           size_t bytes = sizeof(Shard) + shard.present.MemoryBytes() +
                          shard.hashes.capacity() * sizeof(uint64_t) +
                          shard.twins.MemoryBytes();
           for (const KeyChains& table : shard.tables) {
             bytes += sizeof(KeyChains) + table.MemoryBytes();
           }
           return bytes;
         });
}

}  // namespace neardup
