#include "neardup/dedup/internal/token_set_store.h"

#include <algorithm>

#include "neardup/core/shingle_set.h"

namespace neardup::dedup {

void TokenSetStore::Add(uint32_t doc, std::span<uint64_t> set, bool sorted,
                        const std::shared_ptr<HashChunk>& chunk) {
  spans_[doc] = {set.data(), set.size(), sorted};
  kept_bytes_ += set.size_bytes();
  if (set.empty() || chunk->held_by_store) return;
  chunk->held_by_store = true;
  held_.push_back(chunk);
  held_bytes_ += chunk->capacity_bytes();
  if (held_bytes_ > 2 * kept_bytes_ + compact_slack_bytes_) Compact();
}

std::span<const uint64_t> TokenSetStore::GetSorted(uint32_t doc) {
  auto it = spans_.find(doc);
  if (it == spans_.end()) return {};
  Span& span = it->second;
  if (!span.sorted) {
    const size_t distinct = SortUniqueHashes(std::span(span.data, span.size));
    kept_bytes_ -= (span.size - distinct) * sizeof(uint64_t);
    span.size = distinct;
    span.sorted = true;
  }
  return {span.data, span.size};
}

size_t TokenSetStore::MemoryBytes() const {
  return held_bytes_ +
         spans_.capacity() * (sizeof(uint32_t) + sizeof(Span) + 1) +
         held_.capacity() * sizeof(held_[0]);
}

void TokenSetStore::Compact() {
  auto fresh = std::make_shared<HashChunk>(kept_bytes_ / sizeof(uint64_t));
  for (auto& [doc, span] : spans_) {
    span.data = fresh->Append({span.data, span.size}).data();
  }
  // The writers may still fill the old chunks; their documents kept later
  // bring them back.
  for (const std::shared_ptr<HashChunk>& old : held_) {
    old->held_by_store = false;
  }
  held_.clear();
  fresh->held_by_store = true;
  held_.push_back(std::move(fresh));
  held_bytes_ = held_.back()->capacity_bytes();
}

}  // namespace neardup::dedup
