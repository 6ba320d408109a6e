#ifndef NEARDUP_DEDUP_INTERNAL_TOKEN_SET_STORE_H_
#define NEARDUP_DEDUP_INTERNAL_TOKEN_SET_STORE_H_

// Shingle-hash sets of the kept documents, for --verification exact. The hashes
// stay where the workers wrote them (HashChunk): the store shares those
// chunks and keeps a span per document. Only kept documents are looked up:
// a duplicate is never compared against again. Duplicates' hashes share the
// chunks, though: a chunk that is more than half duplicates is wasteful, and
// once the wasteful chunks that only the store still holds waste more than
// the slack, their kept sets are copied into one fresh chunk and they are
// freed. Memory stays within about twice the kept sets, plus the slack, plus
// the chunks the workers are still filling; each compaction copies fewer
// bytes than it frees. (Chunks still referenced by a worker or by a batch
// slot waiting for reuse, up to two per slot, are left alone until then.)

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "neardup/dedup/internal/hash_chunk.h"

namespace neardup::dedup {

class TokenSetStore {
 public:
  // Compaction waits until this much memory would be saved.
  static constexpr size_t kDefaultCompactSlackBytes = size_t{64} << 20;

  explicit TokenSetStore(size_t compact_slack_bytes = kDefaultCompactSlackBytes)
      : compact_slack_bytes_(compact_slack_bytes) {}
  TokenSetStore(const TokenSetStore&) = delete;
  TokenSetStore& operator=(const TokenSetStore&) = delete;

  // Keeps `set`, which lies in `chunk` (shared from now on): raw (any order,
  // repeats) unless `sorted` says it is already sorted and distinct. An
  // empty set needs no chunk.
  void Add(uint32_t doc, std::span<uint64_t> set, bool sorted,
           const std::shared_ptr<HashChunk>& chunk);

  // The sorted, distinct set of `doc` (empty when not kept). Most kept
  // documents are never a candidate, so they are sorted only here, once.
  std::span<const uint64_t> GetSorted(uint32_t doc);

  // Chunks held plus the per-document spans.
  size_t MemoryBytes() const;
  size_t chunks_held() const { return held_.size(); }
  int compactions() const { return compactions_; }
  size_t bytes_copied() const { return bytes_copied_; }

 private:
  struct Span {
    uint64_t* data;
    size_t size;
    HashChunk* chunk;  // null for an empty set
    bool sorted;
  };
  struct Held {
    std::shared_ptr<HashChunk> chunk;
    size_t kept_bytes = 0;  // of the kept sets in it
  };
  // More than half duplicates, and no worker or batch refers to it any more
  // (so copying its kept sets out frees it).
  static bool Wasteful(const Held& held);
  void CompactIfWorthIt();

  size_t compact_slack_bytes_;
  std::vector<Held> held_;
  size_t held_bytes_ = 0;
  int compactions_ = 0;
  size_t bytes_copied_ = 0;
  absl::flat_hash_map<uint32_t, Span> spans_;
};

}  // namespace neardup::dedup

#endif  // NEARDUP_DEDUP_INTERNAL_TOKEN_SET_STORE_H_
