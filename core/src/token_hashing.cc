#include "neardup/core/internal/token_hashing.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "neardup/base/scratch.h"
#include "neardup/core/internal/inline_hash.h"

namespace neardup::internal {
namespace {

// This thread's scratch (see scratch.h for how it is kept small).
thread_local std::string canonical_scratch;
thread_local std::vector<Hash128> hash_scratch;
thread_local std::vector<std::string_view> token_scratch;
thread_local std::vector<size_t> start_scratch;
thread_local std::string joined_scratch;

}  // namespace

absl::StatusOr<std::string_view> CanonicalizeToScratch(
    const Canonicalizer& canonicalizer, std::string_view text) {
  TrimScratch(canonical_scratch, text.size());
  absl::Status s = canonicalizer.CanonicalizeInto(text, &canonical_scratch);
  if (!s.ok()) return s;
  return std::string_view(canonical_scratch);
}

std::vector<Hash128>& TokenHashScratch(size_t text_bytes) {
  // A text has at most one token per byte.
  TrimScratch(hash_scratch, text_bytes);
  return hash_scratch;
}

size_t ThreadScratchBytes() {
  return canonical_scratch.capacity() +
         hash_scratch.capacity() * sizeof(Hash128) +
         token_scratch.capacity() * sizeof(std::string_view) +
         start_scratch.capacity() * sizeof(size_t) + joined_scratch.capacity();
}

namespace {

template <Hash128 (*kHash)(std::string_view, uint64_t)>
void HashAll(const Tokenizer& tokenizer, uint64_t seed,
             std::string_view canonical, std::vector<Hash128>* out) {
  // Batch when the tokens are views (shingles never are: skip the attempt).
  std::vector<std::string_view>& tokens = token_scratch;
  TrimScratch(tokens, canonical.size());
  tokens.clear();
  if (!tokenizer.shingle_spec() &&
      tokenizer.CollectTokenViews(canonical, &tokens)) {
    const size_t first = out->size();
    out->resize(first + tokens.size());
    for (size_t i = 0; i < tokens.size(); ++i) {
      (*out)[first + i] = kHash(tokens[i], seed);
    }
    return;
  }
  tokenizer.ForEachToken(canonical, [&](std::string_view token) {
    out->push_back(kHash(token, seed));
  });
}

// Shingles over an inner tokenizer whose tokens are views into `canonical`:
// collect the inner tokens, join them all with single spaces once, then hash
// each window of k tokens in place in that buffer. Same bytes, same order as
// ShingleTokenizer. Returns false (having added nothing) if the inner tokens
// are not views.
template <Hash128 (*kHash)(std::string_view, uint64_t)>
bool HashShingles(const Tokenizer& inner, size_t k, uint64_t seed,
                  std::string_view canonical, std::vector<Hash128>* out) {
  std::vector<std::string_view>& tokens = token_scratch;
  std::vector<size_t>& starts = start_scratch;  // of token i in `joined`
  std::string& joined = joined_scratch;
  TrimScratch(tokens, canonical.size());
  TrimScratch(starts, canonical.size());
  TrimScratch(joined, canonical.size());
  tokens.clear();
  if (!inner.CollectTokenViews(canonical, &tokens)) return false;
  const size_t n = tokens.size();
  if (n == 0) return true;
  // Plain pointers from here: the scratch vectors are thread_locals, whose
  // addresses the loops below would otherwise reload after every store.
  const std::string_view* const tok = tokens.data();

  // Exactly the joined size: a custom inner tokenizer may yield overlapping
  // views, so the canonical text's size is no bound.
  size_t joined_size = n - 1;
  for (size_t i = 0; i < n; ++i) joined_size += tok[i].size();
  joined.resize(joined_size);
  // Copy maximal runs of tokens already separated by one space at once;
  // ends[i] is where token i ends in `joined`.
  starts.resize(2 * n);
  size_t* const start = starts.data();
  size_t* const ends = start + n;
  char* const dst = joined.data();
  size_t written = 0;
  const char* run_begin = tok[0].data();
  const char* run_end = run_begin + tok[0].size();
  start[0] = 0;
  ends[0] = tok[0].size();
  for (size_t i = 1; i < n; ++i) {
    const char* const data = tok[i].data();
    const size_t size = tok[i].size();
    if (data == run_end + 1 && *run_end == ' ') {
      start[i] = written + static_cast<size_t>(data - run_begin);
    } else {
      const size_t run_size = static_cast<size_t>(run_end - run_begin);
      std::memcpy(dst + written, run_begin, run_size);
      written += run_size;
      dst[written++] = ' ';
      run_begin = data;
      start[i] = written;
    }
    ends[i] = start[i] + size;
    run_end = data + size;
  }
  std::memcpy(dst + written, run_begin,
              static_cast<size_t>(run_end - run_begin));

  const size_t windows = n >= k ? n - k + 1 : 1;
  const size_t width = n >= k ? k : n;
  const size_t first = out->size();
  out->resize(first + windows);
  Hash128* const hashes = out->data() + first;
  for (size_t w = 0; w < windows; ++w) {
    const size_t begin = start[w];
    hashes[w] =
        kHash(std::string_view(dst + begin, ends[w + width - 1] - begin), seed);
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
