#include "neardup/core/index/minhash_lsh_index.h"

#include <algorithm>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"
#include "neardup/base/sync.h"
#include "neardup/base/worker_pool.h"
#include "neardup/core/index/internal/bitset.h"
#include "neardup/core/index/internal/key_chains.h"
#include "neardup/core/index/internal/shard_work.h"
#include "neardup/core/index/internal/slot_store.h"

namespace neardup {

using index_internal::KeyChains;
using index_internal::SlotProbe;
using index_internal::SlotStore;
using index_internal::TagOf;

struct MinHashLshIndex::Shard {
  Shard(int bands, int num_perm, int bits)
      : slots(num_perm, bits), tables(bands) {}

  mutable SharedMutex mu;
  index_internal::Bitset present ABSL_GUARDED_BY(mu);
  SlotStore slots ABSL_GUARDED_BY(mu);
  std::vector<KeyChains> tables ABSL_GUARDED_BY(mu);  // one per band
  size_t count ABSL_GUARDED_BY(mu) = 0;

  void InsertLocked(uint32_t row, const uint32_t* tags,
                    const MinHashSignature& signature)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (present.Test(row)) {
      RemoveLocked(row);
    }
    for (size_t band = 0; band < tables.size(); ++band) {
      tables[band].Insert(tags[band], row);
    }
    slots.Set(row, signature.slots);
    present.Set(row);
    ++count;
  }

  void RemoveLocked(uint32_t row) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    for (KeyChains& table : tables) table.Remove(row);
    present.Clear(row);
    --count;
  }
};

MinHashLshIndex::MinHashLshIndex(const MinHashIndexOptions& options)
    : options_(options) {
  shards_.reserve(options.shards);
  for (int i = 0; i < options.shards; ++i) {
    shards_.push_back(std::make_unique<Shard>(
        options.lsh.bands, options.num_perm, options.verify_bits));
  }
}

MinHashLshIndex::~MinHashLshIndex() = default;

absl::StatusOr<std::unique_ptr<MinHashLshIndex>> MinHashLshIndex::Create(
    const MinHashIndexOptions& options) {
  RETURN_IF_ERROR(ValidateLshParams(options.lsh, options.num_perm));
  if (options.verify_bits != 16 && options.verify_bits != 32 &&
      options.verify_bits != 64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "verify_bits must be 16, 32 or 64, got ", options.verify_bits));
  }
  if (options.shards < 1 || options.shards > 4096) {
    return absl::InvalidArgumentError(
        absl::StrCat("shards must be in [1, 4096], got ", options.shards));
  }
  return std::unique_ptr<MinHashLshIndex>(new MinHashLshIndex(options));
}

absl::Status MinHashLshIndex::CheckWidth(
    const MinHashSignature& signature) const {
  if (signature.num_perm() != num_perm()) {
    return absl::InvalidArgumentError(
        absl::StrCat("signature has ", signature.num_perm(),
                     " slots; this index expects ", num_perm()));
  }
  return absl::OkStatus();
}

void MinHashLshIndex::ComputeTags(const MinHashSignature& signature,
                                  uint32_t* tags) const {
  const int rows = options_.lsh.rows;
  for (int band = 0; band < options_.lsh.bands; ++band) {
    tags[band] = TagOf(BandKey(signature.slots.data() + band * rows, rows));
  }
}

absl::Status MinHashLshIndex::Insert(uint32_t id,
                                     const MinHashSignature& signature) {
  RETURN_IF_ERROR(CheckWidth(signature));
  if (id > kMaxId) {
    return absl::InvalidArgumentError(absl::StrCat("id ", id, " is reserved"));
  }
  std::vector<uint32_t> tags(options_.lsh.bands);
  ComputeTags(signature, tags.data());
  Shard& shard = *shards_[id % shards_.size()];
  WriterLock lock(&shard.mu);
  shard.InsertLocked(id / shards_.size(), tags.data(), signature);
  return absl::OkStatus();
}

absl::Status MinHashLshIndex::BulkInsert(
    std::span<const uint32_t> ids, std::span<const MinHashSignature> signatures,
    int threads) {
  if (ids.size() != signatures.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("bulk insert got ", ids.size(), " ids but ",
                     signatures.size(), " signatures"));
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    RETURN_IF_ERROR(CheckWidth(signatures[i]));
    if (ids[i] > kMaxId) {
      return absl::InvalidArgumentError(
          absl::StrCat("id ", ids[i], " is reserved"));
    }
  }
  const size_t num_shards = shards_.size();
  // In input order within a shard: a repeated id, last wins.
  const auto by_shard = index_internal::PositionsByShard(ids, num_shards);
  auto fill_shard = [&](size_t s) {
    Shard& shard = *shards_[s];
    const std::vector<uint32_t>& positions = by_shard[s];
    if (positions.empty()) return;
    uint32_t max_row = 0;
    for (uint32_t i : positions)
      max_row = std::max(max_row, ids[i] / uint32_t(num_shards));
    std::vector<uint32_t> tags(options_.lsh.bands);
    WriterLock lock(&shard.mu);
    shard.slots.ReserveRows(max_row + 1);
    for (KeyChains& table : shard.tables) {
      table.Reserve(table.num_keys() + positions.size(), max_row + 1);
    }
    for (uint32_t i : positions) {
      ComputeTags(signatures[i], tags.data());
      shard.InsertLocked(ids[i] / num_shards, tags.data(), signatures[i]);
    }
  };
  ParallelFor(num_shards, threads, fill_shard);
  return absl::OkStatus();
}

void MinHashLshIndex::Reserve(uint32_t id_bound) {
  const size_t rows = id_bound / shards_.size() + 1;
  for (const auto& shard : shards_) {
    WriterLock lock(&shard->mu);
    shard->slots.ReserveRows(rows);
    for (KeyChains& table : shard->tables) table.Reserve(rows, rows);
  }
}

bool MinHashLshIndex::Remove(uint32_t id) {
  Shard& shard = *shards_[id % shards_.size()];
  const uint32_t row = id / shards_.size();
  WriterLock lock(&shard.mu);
  if (!shard.present.Test(row)) return false;
  shard.RemoveLocked(row);
  return true;
}

bool MinHashLshIndex::Contains(uint32_t id) const {
  const Shard& shard = *shards_[id % shards_.size()];
  ReaderLock lock(&shard.mu);
  return shard.present.Test(id / shards_.size());
}

std::optional<std::vector<uint64_t>> MinHashLshIndex::Get(uint32_t id) const {
  const Shard& shard = *shards_[id % shards_.size()];
  const uint32_t row = id / shards_.size();
  ReaderLock lock(&shard.mu);
  if (!shard.present.Test(row)) return std::nullopt;
  return shard.slots.Get(row);
}

template <typename Keep>
std::vector<ScoredId> MinHashLshIndex::ScoreCandidates(
    const MinHashSignature& signature, Keep keep,
    IndexQueryStats* stats) const {
  std::vector<uint32_t> tags(options_.lsh.bands);
  ComputeTags(signature, tags.data());
  const SlotProbe probe(signature.slots, options_.verify_bits);
  const double inverse_h = 1.0 / num_perm();
  const uint32_t num_shards = shards_.size();
  std::vector<ScoredId> out;
  std::vector<uint32_t> rows;
  for (uint32_t s = 0; s < num_shards; ++s) {
    const Shard& shard = *shards_[s];
    rows.clear();
    ReaderLock lock(&shard.mu);
    for (size_t band = 0; band < shard.tables.size(); ++band) {
      shard.tables[band].ForEach(tags[band],
                                 [&](uint32_t row) { rows.push_back(row); });
    }
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    if (stats) stats->candidates += rows.size();
    for (uint32_t row : rows) {
      const double score = shard.slots.CountEqual(row, probe) * inverse_h;
      if (keep(score)) out.push_back({row * num_shards + s, score});
    }
  }
  if (stats) stats->accepted += out.size();
  return out;
}

namespace {
bool BetterFirst(const ScoredId& a, const ScoredId& b) {
  return a.score != b.score ? a.score > b.score : a.id < b.id;
}
}  // namespace

absl::StatusOr<std::vector<uint32_t>> MinHashLshIndex::Candidates(
    const MinHashSignature& signature) const {
  RETURN_IF_ERROR(CheckWidth(signature));
  std::vector<ScoredId> scored = ScoreCandidates(
      signature, [](double) { return true; }, nullptr);
  std::vector<uint32_t> ids;
  ids.reserve(scored.size());
  for (const ScoredId& c : scored) ids.push_back(c.id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

absl::StatusOr<std::vector<ScoredId>> MinHashLshIndex::Query(
    const MinHashSignature& signature, double threshold,
    IndexQueryStats* stats) const {
  RETURN_IF_ERROR(CheckWidth(signature));
  if (!(threshold >= 0.0 && threshold <= 1.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("threshold must be in [0, 1], got ", threshold));
  }
  std::vector<ScoredId> out = ScoreCandidates(
      signature, [threshold](double score) { return score >= threshold; },
      stats);
  std::sort(out.begin(), out.end(), BetterFirst);
  return out;
}

absl::StatusOr<std::vector<ScoredId>> MinHashLshIndex::TopK(
    const MinHashSignature& signature, size_t k, IndexQueryStats* stats) const {
  RETURN_IF_ERROR(CheckWidth(signature));
  std::vector<ScoredId> out = ScoreCandidates(
      signature, [](double) { return true; }, stats);
  const size_t keep = std::min(k, out.size());
  std::partial_sort(out.begin(), out.begin() + keep, out.end(), BetterFirst);
  out.resize(keep);
  return out;
}

size_t MinHashLshIndex::size() const {
  size_t total = 0;
  for (const auto& shard : shards_) {
    ReaderLock lock(&shard->mu);
    total += shard->count;
  }
  return total;
}

size_t MinHashLshIndex::MemoryBytes() const {
  size_t total = sizeof(*this) + shards_.capacity() * sizeof(shards_[0]);
  for (const auto& shard : shards_) {
    ReaderLock lock(&shard->mu);
    total += sizeof(Shard) + shard->present.MemoryBytes() +
             shard->slots.MemoryBytes();
    for (const KeyChains& table : shard->tables) {
      total += sizeof(KeyChains) + table.MemoryBytes();
    }
  }
  return total;
}

}  // namespace neardup
