#ifndef NEARDUP_CORE_INDEX_INTERNAL_KEY_CHAINS_H_
#define NEARDUP_CORE_INDEX_INTERNAL_KEY_CHAINS_H_

// One hash table of an index: a multimap from 32-bit key tags to the rows
// that carry them. Implementation detail of the indexes; not thread-safe.
//
// Layout, chosen for bytes per document:
// - an open-addressing table (linear probing) of chain heads, one slot per
//   distinct tag: a control byte (7 bits of the tag, or empty) and the row
//   of the chain's first member;
// - per row: its tag and the next row of its chain.
// Inserting is O(1) even when thousands of rows share a key (exact
// duplicates), which a plain linear-probing multimap is not.
//
// Removing walks the chain to the row's predecessor: O(1) for ordinary
// chains of one or two rows, but O(N) in a flood of N identical documents,
// and O(N^2) to delete them all. So when a remove walks more than
// kLongChain rows, the chain gets back-links, in a side map that only such
// chains' rows use: from then on removing from it is O(1) too. Inserts
// never walk, and tables without deep removes pay no byte for it (SimHash
// tables of a large collection hold chains of tens of rows by nature).
//
// Different keys whose 32-bit tags are equal share a chain; callers verify
// candidates against the stored signature, so this only costs a comparison.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "neardup/core/index/internal/pod_vector.h"

namespace neardup::index_internal {

inline constexpr uint32_t kNoRow = 0xFFFFFFFFu;

// Mixes a 64-bit key into a well-spread 32-bit tag (murmur3 fmix64).
inline uint32_t TagOf(uint64_t key) {
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdULL;
  key ^= key >> 33;
  key *= 0xc4ceb9fe1a85ec53ULL;
  key ^= key >> 33;
  return static_cast<uint32_t>(key);
}

class KeyChains {
 public:
  // `row` must not already be in the table.
  void Insert(uint32_t tag, uint32_t row);
  // `row` must be in the table.
  void Remove(uint32_t row);
  // Calls f(row) for every row whose tag equals `tag`.
  template <typename F>
  void ForEach(uint32_t tag, F&& f) const {
    if (heads_.empty()) return;
    const size_t slot = FindSlot(tag);
    if (control_[slot] == kEmpty) return;
    for (uint32_t row = heads_[slot]; row != kNoRow; row = next_[row]) f(row);
  }
  // Like ForEach, but stops once f(row) returns false.
  template <typename F>
  void ForEachWhile(uint32_t tag, F&& f) const {
    if (heads_.empty()) return;
    const size_t slot = FindSlot(tag);
    if (control_[slot] == kEmpty) return;
    for (uint32_t row = heads_[slot]; row != kNoRow; row = next_[row]) {
      if (!f(row)) return;
    }
  }
  // Asks the CPU to fetch where `tag` will be looked up. Inserting one
  // document touches a random slot in each of 20-odd tables: prefetching
  // them all first overlaps those cache (and TLB) misses instead of taking
  // them one after another.
  void Prefetch(uint32_t tag) const {
    if (heads_.empty()) return;
    const size_t slot = Home(tag);
    __builtin_prefetch(control_.data() + slot);
    __builtin_prefetch(heads_.data() + slot);
  }
  // After Prefetch: when `tag` seems to be at its home slot, fetches the
  // chain head's tag and link too, which confirming it reads next.
  void PrefetchHead(uint32_t tag) const {
    if (heads_.empty()) return;
    const size_t slot = Home(tag);
    if (control_[slot] != Fragment(tag)) return;
    const uint32_t head = heads_[slot];
    __builtin_prefetch(tags_.data() + head);
    __builtin_prefetch(next_.data() + head);
  }
  // The tag `row` was inserted with (`row` must be in the table).
  uint32_t tag(uint32_t row) const { return tags_[row]; }
  // Sizes the tables for `keys` distinct tags and rows below `rows`.
  void Reserve(size_t keys, size_t rows);
  size_t num_keys() const { return num_keys_; }
  size_t MemoryBytes() const;

 private:
  // A remove that walks more rows than this gives the chain back-links.
  static constexpr int kLongChain = 64;
  static constexpr uint8_t kEmpty = 0x80;
  static uint8_t Fragment(uint32_t tag) { return tag & 0x7F; }
  size_t Home(uint32_t tag) const {
    return (static_cast<uint64_t>(tag) * heads_.size()) >> 32;
  }
  // The slot holding `tag`'s chain, or the empty slot where it would go.
  size_t FindSlot(uint32_t tag) const {
    const size_t capacity = heads_.size();
    const uint8_t fragment = Fragment(tag);
    for (size_t slot = Home(tag);; slot = slot + 1 == capacity ? 0 : slot + 1) {
      const uint8_t control = control_[slot];
      if (control == kEmpty) return slot;
      if (control == fragment && tags_[heads_[slot]] == tag) return slot;
    }
  }
  void EnsureRow(uint32_t row);
  void Rehash(size_t capacity);
  void EraseSlot(size_t slot);
  // Gives every row of the chain in `slot` its back-link.
  void AddBackLinks(size_t slot);

  PodVector<uint8_t> control_;  // per slot: kEmpty or Fragment(tag)
  PodVector<uint32_t> heads_;   // per slot: first row of the chain
  PodVector<uint32_t> tags_;    // per row
  PodVector<uint32_t> next_;    // per row: next row of its chain
  // Per row of a long chain: the previous row (kNoRow for its head).
  absl::flat_hash_map<uint32_t, uint32_t> previous_;
  size_t num_keys_ = 0;
};

}  // namespace neardup::index_internal

#endif  // NEARDUP_CORE_INDEX_INTERNAL_KEY_CHAINS_H_
