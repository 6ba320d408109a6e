#ifndef NEARDUP_CORE_SHINGLE_SET_H_
#define NEARDUP_CORE_SHINGLE_SET_H_

// Exact evidence of a document: the sorted, distinct hashes of its shingles
// (the low halves of the 128-bit hashes MinHash already computes, or their
// top 32 bits: a collection's evidence_bits), and a compact encoding of it
// for storage.

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace neardup {

// Exact Jaccard of two sorted, distinct hash sets; 1.0 when both are empty.
double ExactJaccard64(std::span<const uint64_t> a, std::span<const uint64_t> b);

// Elias-Fano over values below 2^U (U = universe_bits, 1..64): varint
// count n, then n low parts of L = clamp(U - bit_width(n - 1), 0, U - 1)
// bits (at least 1 in the width), then the high parts in unary. Random
// U-bit hashes carry about U - log2(n) bits of information each; this spends
// L + 2, e.g. 7 bytes per 64-bit hash for a 500-shingle document instead of
// 8, and 3.1 bytes per 32-bit one. `sorted` must be strictly increasing and
// below 2^U; the decoder must be given the same U. Deterministic: same set,
// same bytes.
std::string EncodeShingleSet(std::span<const uint64_t> sorted,
                             int universe_bits = 64);

// Replaces *out with the set. INVALID_ARGUMENT when `bytes` are not an
// encoding made by EncodeShingleSet with this universe (truncated, trailing
// bytes, values out of order or not below 2^universe_bits), or hold more
// than max_count values (checked before allocating: a dense set of narrow
// hashes takes few bytes a value).
absl::Status DecodeShingleSet(
    std::string_view bytes, std::vector<uint64_t>* out, int universe_bits = 64,
    uint64_t max_count = std::numeric_limits<uint64_t>::max());

// A collection's evidence width: its shingle hashes keep their top
// `evidence_bits` bits (32 or 64). 32 bits halve the stored evidence; two
// distinct shingles then collide with probability 2^-32, so a pair of
// 250-word documents gains a false shared shingle about once in 70,000
// pairs (moving its Jaccard by about 1/500).
inline constexpr int kDefaultEvidenceBits = 32;
// Only these two widths are accepted.
bool ValidEvidenceBits(int evidence_bits);
// Keeps the top `evidence_bits` bits of each of a sorted, distinct set, which
// stays sorted and becomes distinct again (in place).
void NarrowEvidence(int evidence_bits, std::vector<uint64_t>* sorted);
// The config hash stamped on stored evidence: the MinHash config hash for
// 64-bit evidence (as before widths existed), mixed with the width
// otherwise, so evidence of one width is never read as another's.
uint64_t EvidenceConfigHash(uint64_t minhash_config_hash, int evidence_bits);

// Sorts and removes duplicates in place.
void SortUniqueHashes(std::vector<uint64_t>* hashes);
// The same on memory the caller cannot resize: the distinct hashes end up
// sorted at the front, and their count is returned.
size_t SortUniqueHashes(std::span<uint64_t> hashes);

}  // namespace neardup

#endif  // NEARDUP_CORE_SHINGLE_SET_H_
