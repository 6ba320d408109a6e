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

namespace {

template <Hash128 (*kHash)(std::string_view, uint64_t)>
void HashAll(const Tokenizer& tokenizer, uint64_t seed,
             std::string_view canonical, std::vector<Hash128>* out) {
  tokenizer.ForEachToken(canonical, [&](std::string_view token) {
    out->push_back(kHash(token, seed));
  });
}

// Shingles over an inner tokenizer whose tokens are views into `canonical`:
// collect the inner tokens once, then hash each window directly. A window
// whose tokens are separated by single spaces is hashed in place; others are
// joined into a buffer. Same tokens, same order as ShingleTokenizer. Returns
// false (having added nothing) if the inner tokens are not views.
template <Hash128 (*kHash)(std::string_view, uint64_t)>
bool HashShingles(const Tokenizer& inner, size_t k, uint64_t seed,
                  std::string_view canonical, std::vector<Hash128>* out) {
  thread_local std::vector<std::string_view> tokens;
  thread_local std::string joined;
  tokens.clear();
  const char* text_end = canonical.data() + canonical.size();
  bool all_views = true;
  inner.ForEachToken(canonical, [&](std::string_view token) {
    all_views &= token.data() >= canonical.data() &&
                 token.data() + token.size() <= text_end;
    tokens.push_back(token);
  });
  if (!all_views) {  // a custom inner tokenizer with transient tokens
    tokens.clear();
    return false;
  }
  const size_t n = tokens.size();
  if (n == 0) return true;
  const size_t windows = n >= k ? n - k + 1 : 1;
  const size_t width = n >= k ? k : n;
  // good_run = consecutive single-space gaps ending before token i.
  size_t good_run = 0;
  auto single_space_gap = [&](size_t i) {  // between tokens i-1 and i
    const char* prev_end = tokens[i - 1].data() + tokens[i - 1].size();
    return tokens[i].data() == prev_end + 1 && prev_end < text_end &&
           *prev_end == ' ';
  };
  for (size_t i = 1; i < width; ++i) {
    good_run = single_space_gap(i) ? good_run + 1 : 0;
  }
  for (size_t w = 0; w < windows; ++w) {
    const size_t last = w + width - 1;
    if (w > 0) good_run = single_space_gap(last) ? good_run + 1 : 0;
    const std::string_view first_token = tokens[w];
    if (good_run >= width - 1) {
      const char* end = tokens[last].data() + tokens[last].size();
      out->push_back(
          kHash(std::string_view(first_token.data(), end - first_token.data()),
                seed));
      continue;
    }
    joined.clear();
    for (size_t j = w; j <= last; ++j) {
      if (j > w) joined.push_back(' ');
      joined.append(tokens[j]);
    }
    out->push_back(kHash(joined, seed));
  }
  return true;
}

template <Hash128 (*kHash)(std::string_view, uint64_t)>
void HashTokensWith(const Tokenizer& tokenizer, uint64_t seed,
                    std::string_view canonical, std::vector<Hash128>* out) {
  const auto spec = tokenizer.shingle_spec();
  if (spec && !spec->inner->shingle_spec() && spec->k > 0) {
    if (HashShingles<kHash>(*spec->inner, static_cast<size_t>(spec->k), seed,
                            canonical, out)) {
      return;
    }
  }
  HashAll<kHash>(tokenizer, seed, canonical, out);
}

}  // namespace

void HashTokens(const Tokenizer& tokenizer, HashFamily family, uint64_t seed,
                std::string_view canonical, std::vector<Hash128>* out) {
  if (family == HashFamily::kXxh3) {
    HashTokensWith<InlineXxh3>(tokenizer, seed, canonical, out);
  } else {
    HashTokensWith<InlineMurmur3>(tokenizer, seed, canonical, out);
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
