#ifndef NEARDUP_CLIENT_DEDUP_SRC_TOKEN_SET_STORE_H_
#define NEARDUP_CLIENT_DEDUP_SRC_TOKEN_SET_STORE_H_

// Shingle-hash sets of the kept documents, for --verify exact: one flat
// array of 64-bit hashes (8 bytes per distinct shingle) plus a span per
// document. Only kept documents are stored: a duplicate is never compared
// against again.

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace neardup::dedup {

class TokenSetStore {
 public:
  void Add(uint32_t doc, const std::vector<uint64_t>& set) {
    spans_[doc] = {hashes_.size(), static_cast<uint32_t>(set.size())};
    hashes_.insert(hashes_.end(), set.begin(), set.end());
  }
  std::span<const uint64_t> Get(uint32_t doc) const {
    auto it = spans_.find(doc);
    if (it == spans_.end()) return {};
    return {hashes_.data() + it->second.first, it->second.second};
  }
  size_t MemoryBytes() const {
    return hashes_.capacity() * sizeof(uint64_t) +
           spans_.capacity() * (sizeof(uint32_t) + sizeof(Span) + 1);
  }

 private:
  using Span = std::pair<uint64_t, uint32_t>;  // offset, length
  std::vector<uint64_t> hashes_;
  absl::flat_hash_map<uint32_t, Span> spans_;
};

}  // namespace neardup::dedup

#endif  // NEARDUP_CLIENT_DEDUP_SRC_TOKEN_SET_STORE_H_
