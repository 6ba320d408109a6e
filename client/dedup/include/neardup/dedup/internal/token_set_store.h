#ifndef NEARDUP_DEDUP_INTERNAL_TOKEN_SET_STORE_H_
#define NEARDUP_DEDUP_INTERNAL_TOKEN_SET_STORE_H_

// Shingle-hash sets of the kept documents, for --verify exact. The hashes
// stay where the workers wrote them (HashChunk): the store shares those
// chunks and keeps a span per document. Only kept documents are looked up:
// a duplicate is never compared against again, and when duplicates' hashes
// make up most of the chunks held, the kept sets are compacted into fresh
// memory so that memory stays within about twice the kept sets.

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

 private:
  struct Span {
    uint64_t* data;
    size_t size;
    bool sorted;
  };
  // Copies every kept set into one new chunk and lets go of the others.
  void Compact();

  size_t compact_slack_bytes_;
  std::vector<std::shared_ptr<HashChunk>> held_;
  size_t held_bytes_ = 0;
  size_t kept_bytes_ = 0;
  absl::flat_hash_map<uint32_t, Span> spans_;
};

}  // namespace neardup::dedup

#endif  // NEARDUP_DEDUP_INTERNAL_TOKEN_SET_STORE_H_
