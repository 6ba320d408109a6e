#include "neardup/dedup/internal/token_set_store.h"

#include <algorithm>
#include <vector>

#include "neardup/core/shingle_set.h"

namespace neardup::dedup {

void TokenSetStore::Add(uint32_t doc, std::span<uint64_t> set, bool sorted,
                        const std::shared_ptr<HashChunk>& chunk) {
  if (set.empty()) {
    spans_[doc] = {nullptr, 0, nullptr, true};
    return;
  }
  HashChunk* const owner = chunk.get();
  spans_[doc] = {set.data(), set.size(), owner, sorted};
  const bool adopted = owner->store_slot < 0;
  if (adopted) {
    owner->store_slot = static_cast<int>(held_.size());
    held_.push_back({chunk, 0});
    held_bytes_ += owner->capacity_bytes();
  }
  held_[owner->store_slot].kept_bytes += set.size_bytes();
  // Checked once per chunk: a chunk is many documents.
  if (adopted) CompactIfWorthIt();
}

std::span<const uint64_t> TokenSetStore::GetSorted(uint32_t doc) {
  auto it = spans_.find(doc);
  if (it == spans_.end()) return {};
  Span& span = it->second;
  if (!span.sorted) {
    const size_t distinct = SortUniqueHashes(std::span(span.data, span.size));
    held_[span.chunk->store_slot].kept_bytes -=
        (span.size - distinct) * sizeof(uint64_t);
    span.size = distinct;
    span.sorted = true;
  }
  return {span.data, span.size};
}

size_t TokenSetStore::MemoryBytes() const {
  return held_bytes_ +
         spans_.capacity() * (sizeof(uint32_t) + sizeof(Span) + 1) +
         held_.capacity() * sizeof(Held);
}

bool TokenSetStore::Wasteful(const Held& held) {
  // 1: only the store refers to it. No other thread can add a reference
  // then, since there is none left to copy from.
  return held.chunk.use_count() == 1 &&
         held.chunk->capacity_bytes() > 2 * held.kept_bytes;
}

void TokenSetStore::CompactIfWorthIt() {
  // Decided once: a worker may let go of a chunk meanwhile, which would make
  // it wasteful halfway through (and its sets uncounted in `to_copy`).
  std::vector<size_t> emptied;
  size_t waste = 0;
  size_t to_copy = 0;
  for (size_t i = 0; i < held_.size(); ++i) {
    if (!Wasteful(held_[i])) continue;
    emptied.push_back(i);
    waste += held_[i].chunk->capacity_bytes() - held_[i].kept_bytes;
    to_copy += held_[i].kept_bytes;
  }
  if (waste <= compact_slack_bytes_) return;
  // Everything that can fail to allocate, before anything changes.
  auto fresh = std::make_shared<HashChunk>(to_copy / sizeof(uint64_t));
  std::vector<Held> kept;
  kept.reserve(held_.size() - emptied.size() + 1);
  ++compactions_;
  bytes_copied_ += to_copy;
  // Marks the chunks to empty with a slot no chunk has.
  constexpr int kEmptying = -2;
  for (size_t i : emptied) held_[i].chunk->store_slot = kEmptying;
  for (auto& [doc, span] : spans_) {
    if (span.chunk == nullptr || span.chunk->store_slot != kEmptying) continue;
    span.data = fresh->Append({span.data, span.size}).data();
    span.chunk = fresh.get();
  }
  held_bytes_ = 0;
  for (Held& held : held_) {
    if (held.chunk->store_slot == kEmptying) {
      held.chunk->store_slot = -1;  // freed as `held_` goes
      continue;
    }
    held.chunk->store_slot = static_cast<int>(kept.size());
    held_bytes_ += held.chunk->capacity_bytes();
    kept.push_back(std::move(held));
  }
  fresh->store_slot = static_cast<int>(kept.size());
  held_bytes_ += fresh->capacity_bytes();
  kept.push_back({std::move(fresh), to_copy});
  held_ = std::move(kept);
}

}  // namespace neardup::dedup
