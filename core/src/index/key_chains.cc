#include "neardup/core/index/internal/key_chains.h"

#include <algorithm>
#include <utility>

namespace neardup::index_internal {
namespace {

// Grow at 85% full to 70% full (not lower: an index of 1M documents must
// stay under 640 bytes each while it grows): linear probing over one control
// byte per slot stays within a cache line or two at this load.
constexpr double kMaxLoad = 0.85;
constexpr double kLoadAfterGrowth = 0.7;
constexpr size_t kMinCapacity = 16;

}  // namespace

void KeyChains::EnsureRow(uint32_t row) {
  if (row < tags_.size()) return;
  // Grow by 12.5%, reserving exactly: vector doubling would leave up to half
  // of these per-row arrays unused.
  const size_t size = tags_.size();
  const size_t wanted = std::max<size_t>(row + 1, size + size / 8 + 16);
  tags_.reserve(wanted);
  next_.reserve(wanted);
  tags_.resize(wanted, 0);
  next_.resize(wanted, kNoRow);
}

void KeyChains::Insert(uint32_t tag, uint32_t row) {
  EnsureRow(row);
  tags_[row] = tag;
  if (static_cast<double>(num_keys_ + 1) >
      kMaxLoad * static_cast<double>(heads_.size())) {
    Rehash(std::max(kMinCapacity,
                    static_cast<size_t>((num_keys_ + 1) / kLoadAfterGrowth)));
  }
  const size_t slot = FindSlot(tag);
  if (control_[slot] == kEmpty) {
    control_[slot] = Fragment(tag);
    heads_[slot] = row;
    next_[row] = kNoRow;
    ++num_keys_;
  } else {
    const uint32_t second = heads_[slot];
    next_[row] = second;
    heads_[slot] = row;
    if (!previous_.empty()) {
      // A chain with back-links keeps them.
      if (auto it = previous_.find(second); it != previous_.end()) {
        it->second = row;
        previous_[row] = kNoRow;
      }
    }
  }
}

void KeyChains::AddBackLinks(size_t slot) {
  uint32_t previous = kNoRow;
  for (uint32_t r = heads_[slot]; r != kNoRow; r = next_[r]) {
    previous_[r] = previous;
    previous = r;
  }
}

void KeyChains::Remove(uint32_t row) {
  const size_t slot = FindSlot(tags_[row]);
  if (!previous_.empty()) {
    if (auto it = previous_.find(row); it != previous_.end()) {
      const uint32_t previous = it->second;
      const uint32_t next = next_[row];
      previous_.erase(it);
      if (next != kNoRow) previous_[next] = previous;
      // The last flood row gone: give its memory back.
      if (previous_.empty()) decltype(previous_)().swap(previous_);
      if (previous != kNoRow) {
        next_[previous] = next;
      } else if (next != kNoRow) {
        heads_[slot] = next;
      } else {
        EraseSlot(slot);
        --num_keys_;
      }
      next_[row] = kNoRow;
      return;
    }
  }
  if (heads_[slot] == row) {
    if (next_[row] == kNoRow) {
      EraseSlot(slot);
      --num_keys_;
    } else {
      heads_[slot] = next_[row];
    }
  } else {
    uint32_t previous = heads_[slot];
    int walked = 0;
    while (next_[previous] != row) {
      previous = next_[previous];
      ++walked;
    }
    next_[previous] = next_[row];
    // A deep chain (a flood): later removes from it take O(1).
    if (walked > kLongChain) AddBackLinks(slot);
  }
  next_[row] = kNoRow;
}

// Backward-shift deletion: keeps every probe run free of holes, so lookups
// never need tombstones.
void KeyChains::EraseSlot(size_t hole) {
  const size_t capacity = heads_.size();
  for (size_t slot = hole + 1 == capacity ? 0 : hole + 1;
       control_[slot] != kEmpty; slot = slot + 1 == capacity ? 0 : slot + 1) {
    const size_t home = Home(tags_[heads_[slot]]);
    const bool home_between = hole <= slot ? (hole < home && home <= slot)
                                           : (hole < home || home <= slot);
    if (!home_between) {
      control_[hole] = control_[slot];
      heads_[hole] = heads_[slot];
      hole = slot;
    }
  }
  control_[hole] = kEmpty;
  heads_[hole] = kNoRow;
}

void KeyChains::Rehash(size_t capacity) {
  PodVector<uint8_t> old_control = std::move(control_);
  PodVector<uint32_t> old_heads = std::move(heads_);
  control_.assign(capacity, kEmpty);
  heads_.assign(capacity, kNoRow);
  // Slots are visited in order, and land in order (a slot's home grows with
  // its tag): only the head rows' tags are random reads. Fetching them a
  // few slots ahead overlaps those cache misses.
  constexpr size_t kAhead = 16;
  const size_t old_capacity = old_heads.size();
  for (size_t i = 0; i < old_capacity; ++i) {
    if (i + kAhead < old_capacity && old_control[i + kAhead] != kEmpty) {
      __builtin_prefetch(tags_.data() + old_heads[i + kAhead]);
    }
    if (old_control[i] == kEmpty) continue;
    const uint32_t tag = tags_[old_heads[i]];
    const size_t slot = FindSlot(tag);
    control_[slot] = Fragment(tag);
    heads_[slot] = old_heads[i];
  }
}

void KeyChains::Reserve(size_t keys, size_t rows) {
  if (rows > tags_.capacity()) {
    const size_t wanted =
        std::max(rows, tags_.capacity() + tags_.capacity() / 2);
    tags_.reserve(wanted);
    next_.reserve(wanted);
  }
  if (rows > tags_.size()) {
    tags_.resize(rows, 0);
    next_.resize(rows, kNoRow);
  }
  const size_t capacity = static_cast<size_t>(keys / kMaxLoad) + 1;
  if (capacity > heads_.size()) {
    // Grow by at least half: callers that reserve batch by batch would
    // otherwise rehash the whole table for every batch.
    Rehash(
        std::max({kMinCapacity, capacity, heads_.size() + heads_.size() / 2}));
  }
}

size_t KeyChains::MemoryBytes() const {
  return control_.capacity() * sizeof(uint8_t) +
         heads_.capacity() * sizeof(uint32_t) +
         tags_.capacity() * sizeof(uint32_t) +
         next_.capacity() * sizeof(uint32_t) +
         previous_.capacity() *
             (sizeof(std::pair<uint32_t, uint32_t>) + 1);  // slot + control
}

}  // namespace neardup::index_internal
