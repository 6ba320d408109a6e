#ifndef NEARDUP_CORE_INDEX_MINHASH_LSH_INDEX_H_
#define NEARDUP_CORE_INDEX_MINHASH_LSH_INDEX_H_

// In-memory MinHash LSH index: b bands x r rows, sharded by document id so
// that concurrent inserts and queries lock only the shard they touch.
//
// Documents are named by 32-bit internal ids, dense from 0 (the store hands
// them out). Each document keeps, besides its band entries, the low
// `slot_bits` bits of every slot, so candidates are scored without going to
// disk. With slot_bits = 64 the score equals EstimateJaccard() exactly;
// with b bits an unequal slot reads as equal with probability 2^-b, so a
// score is never below the estimate and above it by (1 - J) / 2^b on
// average.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "neardup/core/index/lsh_params.h"
#include "neardup/core/index/query_stats.h"
#include "neardup/core/index/sharded_rows.h"
#include "neardup/core/minhash.h"

namespace neardup {

struct MinHashIndexOptions {
  int num_perm = 128;       // slots of every signature the index holds
  LshParams lsh = {16, 8};  // must cover exactly num_perm slots
  int slot_bits = 16;       // 8, 16, 32 or 64
  // Shards by id. Only bulk inserts (index rebuilds) run shards in
  // parallel, while every query probes every shard's band tables: at 1M
  // documents a query costs ~3.5 us with 1 shard, ~7 with 2, ~13 with 4
  // (bench/index_scale). So one, unless rebuilds on many cores matter more.
  int shards = 1;
  // Documents whose signatures are equal (every band key and kept slot bit)
  // are twins: they share one entry in the band tables, so deleting from
  // and querying a flood of N identical documents costs O(1), not O(N).
  // When set, twins must also have equal keys: a collection that verifies
  // exactly keys documents by a digest of their evidence, since equal
  // signatures do not imply equal shingle sets. nullopt means unknown: the
  // document is kept apart. Called with index ids, only when an inserted
  // document's signature equals an indexed one, and never under the
  // index's locks (it may read a store): queries go on meanwhile.
  std::function<std::optional<uint64_t>(uint32_t id)> twin_key = nullptr;
  // Band keys that more than this many table rows share are hot: the
  // documents that share a paragraph (boilerplate) share the band keys that
  // paragraph decides, and walking those chains makes a query's cost grow
  // with the collection. A query for a Jaccard level leaves hot keys out,
  // in band order, while its other bands would still find a document at
  // that level with probability >= kRecallFloorProbability if bands were
  // independent; a hot key then costs at most this many rows plus one. They
  // are not independent (a band is hot where documents sharing the
  // paragraph most likely match too), so this trades recall for a bounded
  // cost: docs/architecture.md, "Hot band keys". Decided from the shard's
  // tables. 0: every band is walked (datasketch's semantics; Candidates and
  // TopK always walk every band).
  size_t hot_band_rows = 0;
};

struct ScoredId {
  uint32_t id;
  double score;  // estimated Jaccard from the kept slot bits

  bool operator==(const ScoredId&) const = default;
};

// Candidates that score alike because they are twins (see twin_key).
struct ScoredGroup {
  double score;
  std::vector<uint32_t> ids;  // the first members, ascending
  size_t size;                // members in all (>= ids.size())
  // The twin key the members were grouped by (groups of two or more in an
  // index with twin_key set): callers that read one member's evidence
  // check it against this before applying it to the others.
  std::optional<uint64_t> twin_key;
};

// Thread-safe.
class MinHashLshIndex {
 public:
  static inline constexpr uint32_t kMaxId = 0xFFFFFFFEu;

  static absl::StatusOr<std::unique_ptr<MinHashLshIndex>> Create(
      const MinHashIndexOptions& options);
  ~MinHashLshIndex();

  // Inserts or, when `id` is present, replaces. INVALID_ARGUMENT when the
  // signature width is not num_perm or id > kMaxId.
  absl::Status Insert(uint32_t id, const MinHashSignature& signature);
  // Inserts many documents using up to `threads` threads (ids must be
  // distinct). Sizes the tables once up front.
  absl::Status BulkInsert(std::span<const uint32_t> ids,
                          std::span<const MinHashSignature> signatures,
                          int threads);
  // Sizes every shard for ids below `id_bound`, so that loading that many
  // documents never rehashes (the rebuild at start calls this once).
  void Reserve(uint32_t id_bound);
  // Returns false when `id` was not present.
  bool Remove(uint32_t id);
  bool Contains(uint32_t id) const;
  // The kept low bits of each slot of `id`, or nullopt.
  std::optional<std::vector<uint64_t>> Get(uint32_t id) const;

  // Ids sharing at least one band with `signature`, ascending.
  absl::StatusOr<std::vector<uint32_t>> Candidates(
      const MinHashSignature& signature) const;
  // The same for a signature's slots.
  absl::StatusOr<std::vector<uint32_t>> Candidates(
      std::span<const uint64_t> slots) const;
  // Candidates whose estimated Jaccard is >= threshold, best first (ties by
  // ascending id); the best `limit` of them unless limit is 0. Hot band
  // keys (see hot_band_rows) are left out as a query for Jaccard `found_at`
  // may (negative: for `threshold`; 0: none).
  absl::StatusOr<std::vector<ScoredId>> Query(const MinHashSignature& signature,
                                              double threshold,
                                              IndexQueryStats* stats = nullptr,
                                              size_t limit = 0,
                                              double found_at = -1) const;
  // The same candidates as twin groups, each listing its first `max_ids`
  // members (0: all), best first (ties by first id). A flood is one group:
  // callers that verify candidates verify one member for all. Hot band keys
  // are left out as a query for Jaccard `found_at` may (negative: for
  // `threshold`; 0: none; a caller whose score filter is looser than the
  // Jaccard it answers for passes the latter).
  absl::StatusOr<std::vector<ScoredGroup>> QueryGroups(
      const MinHashSignature& signature, double threshold, size_t max_ids,
      IndexQueryStats* stats = nullptr, double found_at = -1) const;
  // The k best-scoring candidates, best first.
  absl::StatusOr<std::vector<ScoredId>> TopK(
      const MinHashSignature& signature, size_t k,
      IndexQueryStats* stats = nullptr) const;

  size_t size() const;
  // Heap bytes held by the index (tables, chains, kept signatures).
  size_t MemoryBytes() const;
  const MinHashIndexOptions& options() const { return options_; }
  int num_perm() const { return options_.num_perm; }

 private:
  struct Shard;
  struct Probe;
  explicit MinHashLshIndex(const MinHashIndexOptions& options);

  absl::Status CheckWidth(std::span<const uint64_t> slots) const;
  // Inserts into one shard, fetching twin keys before its write lock.
  void InsertInShard(Shard& shard, uint32_t row, const uint32_t* tags,
                     const MinHashSignature& signature);
  void ComputeTags(std::span<const uint64_t> slots, uint32_t* tags) const;
  // Scores every candidate once per twin group; keeps those passing `keep`,
  // each with its first `max_ids` members (0: all). Up to `skippable` hot
  // band keys per shard are left out.
  template <typename Keep>
  std::vector<ScoredGroup> ScoreCandidates(const MinHashSignature& signature,
                                           Keep keep, size_t max_ids,
                                           int skippable,
                                           IndexQueryStats* stats) const;
  // How many hot band keys a query for Jaccard `s` may leave out.
  int SkippableHotBands(double s) const;

  MinHashIndexOptions options_;
  ShardedRows<Shard> shards_;
};

}  // namespace neardup

#endif  // NEARDUP_CORE_INDEX_MINHASH_LSH_INDEX_H_
