#ifndef NEARDUP_CORE_SHINGLE_SET_H_
#define NEARDUP_CORE_SHINGLE_SET_H_

// Exact evidence of a document: the sorted, distinct 64-bit hashes of its
// shingles (the low halves of the 128-bit hashes MinHash already computes),
// and a compact encoding of it for storage.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace neardup {

// Exact Jaccard of two sorted, distinct hash sets; 1.0 when both are empty.
double ExactJaccard64(std::span<const uint64_t> a, std::span<const uint64_t> b);

// Elias-Fano: varint count n, then n low parts of L = 64 - bit_width(n - 1)
// bits (at most 63), then the high parts in unary. Random 64-bit hashes
// carry about 64 - log2(n) bits of information each; this spends L + 2,
// e.g. 7 bytes per hash for a 500-shingle document instead of 8.
// `sorted` must be strictly increasing. Deterministic: same set, same bytes.
std::string EncodeShingleSet(std::span<const uint64_t> sorted);

// Replaces *out with the set. INVALID_ARGUMENT when `bytes` are not an
// encoding made by EncodeShingleSet (truncated, trailing bytes, values out
// of order).
absl::Status DecodeShingleSet(std::string_view bytes,
                              std::vector<uint64_t>* out);

// Sorts and removes duplicates in place.
void SortUniqueHashes(std::vector<uint64_t>* hashes);
// The same on memory the caller cannot resize: the distinct hashes end up
// sorted at the front, and their count is returned.
size_t SortUniqueHashes(std::span<uint64_t> hashes);

}  // namespace neardup

#endif  // NEARDUP_CORE_SHINGLE_SET_H_
