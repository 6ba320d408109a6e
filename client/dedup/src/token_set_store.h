#ifndef NEARDUP_CLIENT_DEDUP_SRC_TOKEN_SET_STORE_H_
#define NEARDUP_CLIENT_DEDUP_SRC_TOKEN_SET_STORE_H_

// Shingle-hash sets of the kept documents, for --verify exact: 8 bytes per
// distinct shingle in large chunks, plus a span per document. Only kept
// documents are stored: a duplicate is never compared against again.

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <span>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace neardup::dedup {

class TokenSetStore {
 public:
  TokenSetStore() = default;
  TokenSetStore(const TokenSetStore&) = delete;
  TokenSetStore& operator=(const TokenSetStore&) = delete;

  // `set` is raw (any order, repeats): sorted in place on first Get.
  void Add(uint32_t doc, std::span<const uint64_t> set) {
    if (chunks_.empty() || used_ + set.size() > chunk_capacity_) {
      NewChunk(set.size());
    }
    uint64_t* const at = chunks_.back().get() + used_;
    std::copy(set.begin(), set.end(), at);
    used_ += set.size();
    spans_[doc] = {at, set.size(), false};
  }
  // The sorted, distinct set of `doc` (empty when not kept). Most kept
  // documents are never a candidate, so they are never sorted.
  std::span<const uint64_t> GetSorted(uint32_t doc) {
    auto it = spans_.find(doc);
    if (it == spans_.end()) return {};
    Span& span = it->second;
    if (!span.sorted) {
      std::sort(span.data, span.data + span.size);
      span.size = static_cast<size_t>(
          std::unique(span.data, span.data + span.size) - span.data);
      span.sorted = true;
    }
    return {span.data, span.size};
  }
  size_t MemoryBytes() const {
    return chunk_bytes_ +
           spans_.capacity() * (sizeof(uint32_t) + sizeof(Span) + 1);
  }

 private:
  struct Free {
    void operator()(uint64_t* p) const { std::free(p); }
  };
  static constexpr size_t kHugePage = size_t{2} << 20;

  // Chunks grow from 2 MiB to 64 MiB and are never reallocated (a growing
  // vector would copy every kept hash at each doubling). They are asked to
  // be backed by huge pages: kept sets are most of dedup's memory, and
  // faulting them in 4 KiB at a time cost more than computing them.
  void NewChunk(size_t at_least) {
    size_t bytes = kHugePage
                   << std::min<size_t>(chunks_.size(), 5);  // 2 .. 64 MiB
    bytes = std::max(bytes, (at_least * sizeof(uint64_t) + kHugePage - 1) /
                                kHugePage * kHugePage);
    auto* chunk = static_cast<uint64_t*>(std::aligned_alloc(kHugePage, bytes));
    if (chunk == nullptr) throw std::bad_alloc();
    madvise(chunk, bytes, MADV_HUGEPAGE);  // advice only: errors are fine
    chunks_.emplace_back(chunk);
    chunk_capacity_ = bytes / sizeof(uint64_t);
    chunk_bytes_ += bytes;
    used_ = 0;
  }

  std::vector<std::unique_ptr<uint64_t, Free>> chunks_;
  size_t used_ = 0;
  size_t chunk_capacity_ = 0;
  size_t chunk_bytes_ = 0;
  struct Span {
    uint64_t* data;
    size_t size;
    bool sorted;
  };
  absl::flat_hash_map<uint32_t, Span> spans_;
};

}  // namespace neardup::dedup

#endif  // NEARDUP_CLIENT_DEDUP_SRC_TOKEN_SET_STORE_H_
