#ifndef NEARDUP_CORE_EXPLAIN_H_
#define NEARDUP_CORE_EXPLAIN_H_

// "Why is this a duplicate?": the passages two texts share, as byte ranges
// of each text as given.
//
// Both texts are split into words (UAX #29, over the original bytes, so
// offsets map back), each word canonicalized on its own. Shingles of k
// words are hashed with the perceptual rolling hash and winnowed with a
// window of w shingles; a winnowed shingle found in both texts anchors a
// match, which is checked word by word and grown in both directions while
// the words agree. Overlapping matches merge, so each passage is a maximal
// run of equal words. Winnowing guarantees that every shared run of at
// least w + k - 1 words is found.
//
// The work is bounded: only the first max_text_bytes of each text are
// read, a winnowed hash anchors at most kMaxAnchorsPerHash places of the
// other text (a word run repeated more often is found through its first
// places only), and at most max_passages passages (the longest) are
// returned; `truncated` says when a bound cut something.

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "neardup/core/canonicalizer.h"
#include "neardup/core/hash.h"

namespace neardup {

struct SharedPassage {
  size_t a_begin = 0, a_end = 0;  // bytes [a_begin, a_end) of text a
  size_t b_begin = 0, b_end = 0;  // bytes [b_begin, b_end) of text b
  size_t words = 0;               // words in the passage

  bool operator==(const SharedPassage&) const = default;
};

struct ExplainOptions {
  int k = 5;  // words per shingle: the shortest passage found
  int w = 4;  // winnowing window in shingles
  size_t max_passages = 64;
  size_t max_text_bytes = 1 << 20;
  uint64_t seed = kDefaultSeed;
};

inline constexpr int kMaxAnchorsPerHash = 16;

struct Explanation {
  // In order of their start in text a (ties: start in b).
  std::vector<SharedPassage> passages;
  bool truncated = false;
};

// INVALID_ARGUMENT for k outside 1..64, w outside 1..1024 or
// max_passages 0.
absl::StatusOr<Explanation> ExplainSharedPassages(
    std::string_view a, std::string_view b, const Canonicalizer& canonicalizer,
    const ExplainOptions& options = {});

}  // namespace neardup

#endif  // NEARDUP_CORE_EXPLAIN_H_
