#include "internal/token_hashing.h"

#include <algorithm>
#include <string>

#include "internal/inline_hash.h"

namespace neardup::internal {

absl::StatusOr<std::string_view> CanonicalizeToScratch(
    const Canonicalizer& canonicalizer, std::string_view text) {
  thread_local std::string scratch;
  absl::Status s = canonicalizer.CanonicalizeInto(text, &scratch);
  if (!s.ok()) return s;
  return std::string_view(scratch);
}

std::vector<Hash128>& TokenHashScratch() {
  thread_local std::vector<Hash128> hashes;
  return hashes;
}

void HashTokens(const Tokenizer& tokenizer, HashFamily family, uint64_t seed,
                std::string_view canonical, std::vector<Hash128>* out) {
  if (family == HashFamily::kXxh3) {
    tokenizer.ForEachToken(canonical, [&](std::string_view token) {
      out->push_back(InlineXxh3(token, seed));
    });
  } else {
    tokenizer.ForEachToken(canonical, [&](std::string_view token) {
      out->push_back(InlineMurmur3(token, seed));
    });
  }
}

void ForEachHashedToken(
    const Tokenizer& tokenizer, HashFamily family, uint64_t seed,
    std::string_view canonical,
    absl::FunctionRef<void(std::string_view, const Hash128&)> fn) {
  tokenizer.ForEachToken(canonical, [&](std::string_view token) {
    fn(token, family == HashFamily::kXxh3 ? InlineXxh3(token, seed)
                                          : InlineMurmur3(token, seed));
  });
}

void SortUnique(std::vector<Hash128>* hashes) {
  auto less = [](const Hash128& a, const Hash128& b) {
    return a.lo != b.lo ? a.lo < b.lo : a.hi < b.hi;
  };
  std::sort(hashes->begin(), hashes->end(), less);
  hashes->erase(std::unique(hashes->begin(), hashes->end()), hashes->end());
}

}  // namespace neardup::internal
