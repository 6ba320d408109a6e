#ifndef NEARDUP_DEDUP_INTERNAL_REPEATED_SPANS_H_
#define NEARDUP_DEDUP_INTERNAL_REPEATED_SPANS_H_

// The suffix-array core: which byte spans of a corpus repeat earlier text.

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace neardup::dedup {

inline constexpr char kDocSeparator = '\xFF';  // never in UTF-8

struct RepeatedSpan {
  uint64_t begin;  // [begin, end) in the corpus, UTF-8 character bounds
  uint64_t end;
  uint64_t first;  // where the same bytes occur first
};

// `corpus`: document texts, each followed by kDocSeparator (the last one
// too). Returns the maximal spans, ascending, made of substrings of at
// least `min_length` bytes that occur at an earlier position. Spans never
// cross a separator. INVALID_ARGUMENT when the corpus exceeds 2^31 - 1 bytes.
absl::StatusOr<std::vector<RepeatedSpan>> FindRepeatedSpans(
    std::string_view corpus, int min_length);

}  // namespace neardup::dedup

#endif  // NEARDUP_DEDUP_INTERNAL_REPEATED_SPANS_H_
