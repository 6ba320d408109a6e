#include "neardup/core/index/minhash_lsh_index.h"

#include <algorithm>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"
#include "neardup/base/sync.h"
#include "neardup/base/worker_pool.h"
#include "neardup/core/index/internal/bitset.h"
#include "neardup/core/index/internal/key_chains.h"
#include "neardup/core/index/internal/slot_store.h"
#include "neardup/core/index/internal/twin_classes.h"

namespace neardup {

using index_internal::KeyChains;
using index_internal::kNoRow;
using index_internal::SlotProbe;
using index_internal::SlotStore;
using index_internal::TagOf;
using index_internal::TwinClasses;

// Twin keys fetched (through options.twin_key, which may read a store)
// before the shard's write lock is taken: the inserted document's own key,
// and the keys of the rows whose signatures equal its own and that belong
// to no twin class yet.
struct TwinKeys {
  std::optional<std::optional<uint64_t>> own;  // unset: not fetched
  std::vector<std::pair<uint32_t, std::optional<uint64_t>>> of_rows;

  std::optional<uint64_t> KeyOfRow(uint32_t row) const {
    for (const auto& [r, key] : of_rows) {
      if (r == row) return key;
    }
    return std::nullopt;  // not fetched: unknown
  }
};

struct MinHashLshIndex::Shard {
  Shard(const MinHashIndexOptions& options, uint32_t index)
      : options(options),
        index(index),
        slots(options.num_perm, options.slot_bits),
        tables(options.lsh.bands) {}

  const MinHashIndexOptions& options;
  const uint32_t index;  // this shard's id % shards

  mutable SharedMutex mu;
  index_internal::Bitset present ABSL_GUARDED_BY(mu);
  SlotStore slots ABSL_GUARDED_BY(mu);
  std::vector<KeyChains> tables ABSL_GUARDED_BY(mu);  // one per band
  // Twins of a table row, which the tables leave out.
  TwinClasses twins ABSL_GUARDED_BY(mu);
  size_t count ABSL_GUARDED_BY(mu) = 0;
  // Counts inserts and removals: twin keys fetched before the write lock
  // still hold if it has not moved.
  uint64_t version ABSL_GUARDED_BY(mu) = 0;

  uint32_t IdOf(uint32_t row) const { return row * options.shards + index; }

  // `keys`: what FindTwinsLocked found needed, fetched since (null when
  // the index has no twin_key). `may_have_twin` false: the caller knows,
  // under this lock, that no twin can be found (the look costs a chain
  // walk per insert).
  void InsertLocked(uint32_t row, const uint32_t* tags,
                    const MinHashSignature& signature, const TwinKeys* keys,
                    bool may_have_twin = true)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    for (size_t band = 0; band < tables.size(); ++band) {
      tables[band].Prefetch(tags[band]);
    }
    if (present.Test(row)) {
      RemoveLocked(row);
    }
    slots.Set(row, signature.slots);
    present.Set(row);
    ++count;
    ++version;
    uint64_t key = 0;
    const uint32_t twin = may_have_twin
                              ? FindTwinLocked(row, tags, signature, keys, &key)
                              : kNoRow;
    if (twin != kNoRow) {
      twins.Join(twin, key, row);
      return;
    }
    for (size_t band = 0; band < tables.size(); ++band) {
      tables[band].Insert(tags[band], row);
    }
  }

  // The rows sharing a band with `tags`, ascending and distinct (a twin
  // class by its representative), but for up to `skippable` hot band keys
  // (chains of more than options.hot_band_rows rows), the first in band
  // order; returns how many were left out.
  int CandidateRowsLocked(const uint32_t* tags, std::vector<uint32_t>* rows,
                          int skippable = 0) const
      ABSL_SHARED_LOCKS_REQUIRED(mu) {
    // Twenty-odd tables, each a few dependent misses deep: fetched a level
    // at a time for all of them, the misses overlap.
    for (size_t band = 0; band < tables.size(); ++band) {
      tables[band].Prefetch(tags[band]);
    }
    for (size_t band = 0; band < tables.size(); ++band) {
      tables[band].PrefetchHead(tags[band]);
    }
    const size_t limit = options.hot_band_rows;
    int skipped = 0;
    for (size_t band = 0; band < tables.size(); ++band) {
      if (skipped < skippable && limit > 0) {
        // Walks one row past the limit at most: a hot chain costs that.
        const size_t mark = rows->size();
        size_t walked = 0;
        tables[band].ForEachWhile(tags[band], [&](uint32_t row) {
          rows->push_back(row);
          return ++walked <= limit;
        });
        if (walked > limit) {
          rows->resize(mark);
          ++skipped;
        }
        continue;
      }
      tables[band].ForEach(tags[band],
                           [&](uint32_t row) { rows->push_back(row); });
    }
    std::sort(rows->begin(), rows->end());
    rows->erase(std::unique(rows->begin(), rows->end()), rows->end());
    return skipped;
  }

  // At most this many rows of band 0's chain are looked at for a twin.
  static constexpr int kRowsLooked = 8;
  struct EqualRows {
    uint32_t rows[kRowsLooked];
    int size = 0;
  };

  // The first rows of band 0's chain whose signature equals `signature`
  // (other than `row`), in chain order. Only the first rows: a flood's
  // representative sits near the chain's head, since later documents of
  // other signatures rarely share band 0 with it; one missed just starts a
  // second class.
  EqualRows EqualRowsLocked(uint32_t row, const uint32_t* tags,
                            const MinHashSignature& signature) const
      ABSL_SHARED_LOCKS_REQUIRED(mu) {
    uint32_t heads[kRowsLooked];
    int looked = 0;
    tables[0].ForEachWhile(tags[0], [&](uint32_t candidate) {
      heads[looked++] = candidate;
      return looked < kRowsLooked;
    });
    EqualRows equal;
    std::optional<SlotProbe> probe;
    for (int i = 0; i < looked; ++i) {
      const uint32_t candidate = heads[i];
      if (candidate == row) continue;
      bool same_tags = true;
      for (size_t band = 1; band < tables.size() && same_tags; ++band) {
        same_tags = tables[band].tag(candidate) == tags[band];
      }
      if (!same_tags) continue;
      if (!probe) probe.emplace(signature.slots, options.slot_bits);
      if (slots.CountEqual(candidate, *probe) != options.num_perm) continue;
      equal.rows[equal.size++] = candidate;
    }
    return equal;
  }

  // Which twin keys inserting `signature` at `row` needs: whether any
  // equal row exists (then the document's own key), and the equal rows in
  // no twin class (theirs). Runs under the read lock.
  TwinKeys KeysNeededLocked(uint32_t row, const uint32_t* tags,
                            const MinHashSignature& signature) const
      ABSL_SHARED_LOCKS_REQUIRED(mu) {
    TwinKeys needed;
    const EqualRows equal = EqualRowsLocked(row, tags, signature);
    if (equal.size > 0) needed.own.emplace();  // "needed": fetched later
    for (int i = 0; i < equal.size; ++i) {
      if (twins.KeyOf(equal.rows[i]) == nullptr) {
        needed.of_rows.push_back({equal.rows[i], std::nullopt});
      }
    }
    return needed;
  }

  // A table row whose signature and twin key equal those of `row` (whose
  // slots are set), or kNoRow. Twin keys come from `keys` (null: the index
  // has none, equal signatures suffice); a key not there is unknown, and
  // an unknown key keeps the document apart.
  uint32_t FindTwinLocked(uint32_t row, const uint32_t* tags,
                          const MinHashSignature& signature,
                          const TwinKeys* keys, uint64_t* key)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    const EqualRows equal = EqualRowsLocked(row, tags, signature);
    for (int i = 0; i < equal.size; ++i) {
      const uint32_t candidate = equal.rows[i];
      if (keys == nullptr) return candidate;
      if (!keys->own || !keys->own->has_value()) return kNoRow;  // apart
      const uint64_t* class_key = twins.KeyOf(candidate);
      const std::optional<uint64_t> candidate_key =
          class_key != nullptr ? std::optional<uint64_t>(*class_key)
                               : keys->KeyOfRow(candidate);
      if (candidate_key == *keys->own) {
        *key = **keys->own;
        return candidate;
      }
    }
    return kNoRow;
  }

  void RemoveLocked(uint32_t row) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    index_internal::RemoveTwinOrRow(twins, tables, row);
    present.Clear(row);
    --count;
    ++version;
  }
};

namespace {

template <typename Shard>
std::vector<std::unique_ptr<Shard>> MakeShards(
    const MinHashIndexOptions& options) {
  std::vector<std::unique_ptr<Shard>> shards;
  shards.reserve(options.shards);
  for (int i = 0; i < options.shards; ++i) {
    shards.push_back(std::make_unique<Shard>(options, i));
  }
  return shards;
}

}  // namespace

MinHashLshIndex::MinHashLshIndex(const MinHashIndexOptions& options)
    : options_(options), shards_(MakeShards<Shard>(options_)) {}

MinHashLshIndex::~MinHashLshIndex() = default;

absl::StatusOr<std::unique_ptr<MinHashLshIndex>> MinHashLshIndex::Create(
    const MinHashIndexOptions& options) {
  RETURN_IF_ERROR(ValidateLshParams(options.lsh, options.num_perm));
  if (options.slot_bits != 8 && options.slot_bits != 16 &&
      options.slot_bits != 32 && options.slot_bits != 64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "slot_bits must be 8, 16, 32 or 64, got ", options.slot_bits));
  }
  if (options.shards < 1 || options.shards > 4096) {
    return absl::InvalidArgumentError(
        absl::StrCat("shards must be in [1, 4096], got ", options.shards));
  }
  return std::unique_ptr<MinHashLshIndex>(new MinHashLshIndex(options));
}

absl::Status MinHashLshIndex::CheckWidth(
    std::span<const uint64_t> slots) const {
  if (slots.size() != static_cast<size_t>(num_perm())) {
    return absl::InvalidArgumentError(
        absl::StrCat("signature has ", slots.size(),
                     " slots; this index expects ", num_perm()));
  }
  return absl::OkStatus();
}

void MinHashLshIndex::ComputeTags(std::span<const uint64_t> slots,
                                  uint32_t* tags) const {
  const int rows = options_.lsh.rows;
  for (int band = 0; band < options_.lsh.bands; ++band) {
    tags[band] = BandTag(slots.data() + band * rows, rows);
  }
}

absl::Status MinHashLshIndex::Insert(uint32_t id,
                                     const MinHashSignature& signature) {
  RETURN_IF_ERROR(CheckWidth(signature.slots));
  if (id > kMaxId) {
    return absl::InvalidArgumentError(absl::StrCat("id ", id, " is reserved"));
  }
  std::vector<uint32_t> tags(options_.lsh.bands);
  ComputeTags(signature.slots, tags.data());
  InsertInShard(shards_.of(id), shards_.row_of(id), tags.data(), signature);
  return absl::OkStatus();
}

void MinHashLshIndex::InsertInShard(Shard& shard, uint32_t row,
                                    const uint32_t* tags,
                                    const MinHashSignature& signature) {
  if (!options_.twin_key) {
    WriterLock lock(&shard.mu);
    shard.InsertLocked(row, tags, signature, nullptr);
    return;
  }
  // Twin keys may cost a read of a store: when an insert needs some, the
  // lock is let go while they are fetched, and they are used if the shard
  // has not changed meanwhile (else looked for again; after a few tries the
  // document is kept apart). Most inserts need none and take the lock once.
  constexpr int kTries = 3;
  std::optional<std::pair<uint64_t, TwinKeys>> fetched;  // at a version
  for (int attempt = 1;; ++attempt) {
    TwinKeys needed;
    uint64_t version;
    {
      WriterLock lock(&shard.mu);
      if (fetched && fetched->first == shard.version) {
        shard.InsertLocked(row, tags, signature, &fetched->second);
        return;
      }
      needed = shard.KeysNeededLocked(row, tags, signature);
      if (!needed.own || attempt == kTries) {
        // No equal row, so no key is needed (or, out of tries, the keys
        // stay unknown and the document is kept apart): no twin either way.
        const TwinKeys none;
        shard.InsertLocked(row, tags, signature, &none,
                           /*may_have_twin=*/false);
        return;
      }
      version = shard.version;
    }
    needed.own = options_.twin_key(shard.IdOf(row));
    for (auto& [other, key] : needed.of_rows) {
      key = options_.twin_key(shard.IdOf(other));
    }
    fetched.emplace(version, std::move(needed));
  }
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
    RETURN_IF_ERROR(CheckWidth(signatures[i].slots));
    if (ids[i] > kMaxId) {
      return absl::InvalidArgumentError(
          absl::StrCat("id ", ids[i], " is reserved"));
    }
  }
  // In input order within a shard: a repeated id, last wins.
  shards_.ForEachShardOf(
      ids, threads, [&](size_t s, const std::vector<uint32_t>& positions) {
        Shard& shard = shards_[s];
        uint32_t max_row = 0;
        for (uint32_t i : positions) {
          max_row = std::max(max_row, shards_.row_of(ids[i]));
        }
        std::vector<uint32_t> tags(options_.lsh.bands);
        {
          WriterLock lock(&shard.mu);
          shard.slots.ReserveRows(max_row + 1);
          for (KeyChains& table : shard.tables) {
            table.Reserve(table.num_keys() + positions.size(), max_row + 1);
          }
          if (!options_.twin_key) {
            for (uint32_t i : positions) {
              ComputeTags(signatures[i].slots, tags.data());
              shard.InsertLocked(shards_.row_of(ids[i]), tags.data(),
                                 signatures[i], nullptr);
            }
            return;
          }
        }
        // With twin keys, one document at a time: keys are fetched unlocked.
        for (uint32_t i : positions) {
          ComputeTags(signatures[i].slots, tags.data());
          InsertInShard(shard, shards_.row_of(ids[i]), tags.data(),
                        signatures[i]);
        }
      });
  return absl::OkStatus();
}

void MinHashLshIndex::Reserve(uint32_t id_bound) {
  const size_t rows = shards_.row_of(id_bound) + 1;
  for (size_t s = 0; s < shards_.size(); ++s) {
    Shard& shard = shards_[s];
    WriterLock lock(&shard.mu);
    shard.slots.ReserveRows(rows);
    for (KeyChains& table : shard.tables) table.Reserve(rows, rows);
  }
}

bool MinHashLshIndex::Remove(uint32_t id) {
  Shard& shard = shards_.of(id);
  const uint32_t row = shards_.row_of(id);
  WriterLock lock(&shard.mu);
  if (!shard.present.Test(row)) return false;
  shard.RemoveLocked(row);
  return true;
}

bool MinHashLshIndex::Contains(uint32_t id) const {
  const Shard& shard = shards_.of(id);
  ReaderLock lock(&shard.mu);
  return shard.present.Test(shards_.row_of(id));
}

std::optional<std::vector<uint64_t>> MinHashLshIndex::Get(uint32_t id) const {
  const Shard& shard = shards_.of(id);
  const uint32_t row = shards_.row_of(id);
  ReaderLock lock(&shard.mu);
  if (!shard.present.Test(row)) return std::nullopt;
  return shard.slots.Get(row);
}

int MinHashLshIndex::SkippableHotBands(double s) const {
  if (options_.hot_band_rows == 0) return 0;
  return SkippableBands(options_.lsh, s, kRecallFloorProbability);
}

template <typename Keep>
std::vector<ScoredGroup> MinHashLshIndex::ScoreCandidates(
    const MinHashSignature& signature, Keep keep, size_t max_ids, int skippable,
    IndexQueryStats* stats) const {
  std::vector<uint32_t> tags(options_.lsh.bands);
  ComputeTags(signature.slots, tags.data());
  const SlotProbe probe(signature.slots, options_.slot_bits);
  const double inverse_h = 1.0 / num_perm();
  std::vector<ScoredGroup> out;
  std::vector<uint32_t> rows;
  for (size_t s = 0; s < shards_.size(); ++s) {
    const Shard& shard = shards_[s];
    rows.clear();
    ReaderLock lock(&shard.mu);
    const int skipped =
        shard.CandidateRowsLocked(tags.data(), &rows, skippable);
    if (stats) {
      stats->scored += rows.size();
      stats->hot_bands_skipped += skipped;
    }
    constexpr size_t kPrefetchAhead = 8;
    for (size_t i = 0; i < std::min(rows.size(), kPrefetchAhead); ++i) {
      shard.slots.Prefetch(rows[i]);
    }
    for (size_t i = 0; i < rows.size(); ++i) {
      const uint32_t row = rows[i];
      if (i + kPrefetchAhead < rows.size()) {
        shard.slots.Prefetch(rows[i + kPrefetchAhead]);
      }
      const size_t size = shard.twins.SizeOf(row);
      if (stats) stats->candidates += size;
      const double score = shard.slots.CountEqual(row, probe) * inverse_h;
      if (!keep(score)) continue;
      if (stats) stats->accepted += size;
      ScoredGroup& group = out.emplace_back(ScoredGroup{score, {}, size, {}});
      if (size > 1 && options_.twin_key) {
        if (const uint64_t* key = shard.twins.KeyOf(row)) group.twin_key = *key;
      }
      shard.twins.ForEachMember(row, max_ids, [&](uint32_t member) {
        group.ids.push_back(shard.IdOf(member));
      });
    }
  }
  return out;
}

namespace {

bool BetterFirst(const ScoredId& a, const ScoredId& b) {
  return a.score != b.score ? a.score > b.score : a.id < b.id;
}

// The best `limit` (0: all) members of `groups`, best first.
std::vector<ScoredId> BestMembers(const std::vector<ScoredGroup>& groups,
                                  size_t limit) {
  std::vector<ScoredId> out;
  for (const ScoredGroup& group : groups) {
    for (uint32_t id : group.ids) out.push_back({id, group.score});
  }
  const size_t keep = limit == 0 ? out.size() : std::min(limit, out.size());
  std::partial_sort(out.begin(), out.begin() + keep, out.end(), BetterFirst);
  out.resize(keep);
  return out;
}

}  // namespace

absl::StatusOr<std::vector<uint32_t>> MinHashLshIndex::Candidates(
    const MinHashSignature& signature) const {
  return Candidates(signature.slots);
}

absl::StatusOr<std::vector<uint32_t>> MinHashLshIndex::Candidates(
    std::span<const uint64_t> slots) const {
  RETURN_IF_ERROR(CheckWidth(slots));
  // Unscored: no candidate's slots are read.
  std::vector<uint32_t> tags(options_.lsh.bands);
  ComputeTags(slots, tags.data());
  std::vector<uint32_t> ids;
  std::vector<uint32_t> rows;
  for (size_t s = 0; s < shards_.size(); ++s) {
    const Shard& shard = shards_[s];
    rows.clear();
    ReaderLock lock(&shard.mu);
    shard.CandidateRowsLocked(tags.data(), &rows);
    for (uint32_t row : rows) {
      shard.twins.ForEachMember(
          row, 0, [&](uint32_t member) { ids.push_back(shard.IdOf(member)); });
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

absl::StatusOr<std::vector<ScoredGroup>> MinHashLshIndex::QueryGroups(
    const MinHashSignature& signature, double threshold, size_t max_ids,
    IndexQueryStats* stats, double found_at) const {
  RETURN_IF_ERROR(CheckWidth(signature.slots));
  if (!(threshold >= 0.0 && threshold <= 1.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("threshold must be in [0, 1], got ", threshold));
  }
  if (!(found_at <= 1.0)) {  // NaN too
    return absl::InvalidArgumentError(
        absl::StrCat("found_at must be at most 1, got ", found_at));
  }
  std::vector<ScoredGroup> groups = ScoreCandidates(
      signature, [threshold](double score) { return score >= threshold; },
      max_ids, SkippableHotBands(found_at < 0 ? threshold : found_at), stats);
  std::sort(groups.begin(), groups.end(),
            [](const ScoredGroup& a, const ScoredGroup& b) {
              return a.score != b.score ? a.score > b.score
                                        : a.ids.front() < b.ids.front();
            });
  return groups;
}

absl::StatusOr<std::vector<ScoredId>> MinHashLshIndex::Query(
    const MinHashSignature& signature, double threshold, IndexQueryStats* stats,
    size_t limit, double found_at) const {
  ASSIGN_OR_RETURN(const std::vector<ScoredGroup> groups,
                   QueryGroups(signature, threshold, limit, stats, found_at));
  return BestMembers(groups, limit);
}

absl::StatusOr<std::vector<ScoredId>> MinHashLshIndex::TopK(
    const MinHashSignature& signature, size_t k, IndexQueryStats* stats) const {
  RETURN_IF_ERROR(CheckWidth(signature.slots));
  if (k == 0) return std::vector<ScoredId>();
  const std::vector<ScoredGroup> groups = ScoreCandidates(
      signature, [](double) { return true; }, k, /*skippable=*/0, stats);
  return BestMembers(groups, k);
}

size_t MinHashLshIndex::size() const {
  return shards_.Sum([](const Shard& shard) {
    ReaderLock lock(&shard.mu);
    return shard.count;
  });
}

size_t MinHashLshIndex::MemoryBytes() const {
  return sizeof(*this) + shards_.MemoryBytes() +
         shards_.Sum([](const Shard& shard) {
           ReaderLock lock(&shard.mu);
           size_t bytes = sizeof(Shard) + shard.present.MemoryBytes() +
                          shard.slots.MemoryBytes() + shard.twins.MemoryBytes();
           for (const KeyChains& table : shard.tables) {
             bytes += sizeof(KeyChains) + table.MemoryBytes();
           }
           return bytes;
         });
}

}  // namespace neardup
