#ifndef NEARDUP_CORE_INTERNAL_TOKEN_HASHING_H_
#define NEARDUP_CORE_INTERNAL_TOKEN_HASHING_H_

// Shared front half of every token-based fingerprint: canonicalize into
// per-thread scratch, then hash each token into a per-thread vector.

#include <cstddef>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "neardup/core/canonicalizer.h"
#include "neardup/core/hash.h"
#include "neardup/core/tokenizer.h"

namespace neardup::internal {

// The view stays valid until the next call on this thread.
absl::StatusOr<std::string_view> CanonicalizeToScratch(
    const Canonicalizer& canonicalizer, std::string_view text);

// Per-thread vector the hashers below fill; reused across calls, and freed
// first when a much larger text left it over the scratch budget
// (internal/scratch.h).
std::vector<Hash128>& TokenHashScratch(size_t text_bytes);

// Bytes this thread's token-hashing scratch holds (for tests).
size_t ThreadScratchBytes();

// Appends hash128(token) for every token of `canonical` to `*out`.
void HashTokens(const Tokenizer& tokenizer, HashFamily family, uint64_t seed,
                std::string_view canonical, std::vector<Hash128>* out);

// Calls `fn(token, hash)` for every token.
void ForEachHashedToken(
    const Tokenizer& tokenizer, HashFamily family, uint64_t seed,
    std::string_view canonical,
    absl::FunctionRef<void(std::string_view, const Hash128&)> fn);

// Sorts and removes duplicates.
void SortUnique(std::vector<Hash128>* hashes);

}  // namespace neardup::internal

#endif  // NEARDUP_CORE_INTERNAL_TOKEN_HASHING_H_
