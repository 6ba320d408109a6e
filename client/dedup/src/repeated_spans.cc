#include "neardup/dedup/internal/repeated_spans.h"

#include <divsufsort.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"

namespace neardup::dedup {
namespace {

bool IsContinuationByte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

}  // namespace

absl::StatusOr<std::vector<RepeatedSpan>> FindRepeatedSpans(
    std::string_view corpus, int min_length) {
  const uint64_t n = corpus.size();
  if (n >= static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
    return absl::InvalidArgumentError(
        absl::StrCat("suffix-array handles at most 2 GiB of text per run (got ",
                     n, " bytes); split the input"));
  }
  std::vector<RepeatedSpan> spans;
  if (n == 0) return spans;
  const auto* text = reinterpret_cast<const sauchar_t*>(corpus.data());
  std::vector<int32_t> sa(n);
  if (divsufsort(text, sa.data(), static_cast<saidx_t>(n)) != 0) {
    return absl::InternalError("divsufsort failed");
  }
  // Phi[i] = suffix preceding i in suffix-array order; then overwritten in
  // place by PLCP[i] = LCP of suffix i with it, cut at separators (both
  // suffixes meet the separator at the same offset, so Kasai's
  // "h decreases by at most 1" still holds).
  std::vector<int32_t> plcp(n);
  plcp[sa[0]] = -1;
  for (uint64_t r = 1; r < n; ++r) plcp[sa[r]] = sa[r - 1];
  int64_t h = 0;
  const unsigned char sep = static_cast<unsigned char>(kDocSeparator);
  for (uint64_t i = 0; i < n; ++i) {
    const int32_t j = plcp[i];
    if (j < 0) {
      plcp[i] = 0;
      h = 0;
      continue;
    }
    while (text[i + h] == text[j + h] && text[i + h] != sep) ++h;
    plcp[i] = static_cast<int32_t>(h);
    if (h > 0) --h;
  }

  // Runs of suffixes sharing >= min_length bytes: all but the earliest
  // start repeat it. `origin` reuses plcp once a run has been read.
  std::vector<uint64_t> repeat(n / 64 + 1, 0);
  int32_t* origin = plcp.data();
  uint64_t run_begin = 0;
  for (uint64_t r = 1; r <= n; ++r) {
    if (r < n && plcp[sa[r]] >= min_length) continue;
    if (r - run_begin > 1) {
      int32_t first = sa[run_begin];
      for (uint64_t k = run_begin + 1; k < r; ++k)
        first = std::min(first, sa[k]);
      for (uint64_t k = run_begin; k < r; ++k) {
        const int32_t pos = sa[k];
        if (pos == first) continue;
        repeat[pos >> 6] |= uint64_t{1} << (pos & 63);
        origin[pos] = first;
      }
    }
    run_begin = r;
  }

  // Union of [i, i + min_length) over repeat starts i, left to right.
  for (uint64_t i = 0; i < n; ++i) {
    if ((repeat[i >> 6] >> (i & 63) & 1) == 0) continue;
    const uint64_t end = i + static_cast<uint64_t>(min_length);
    if (!spans.empty() && i <= spans.back().end) {
      spans.back().end = std::max(spans.back().end, end);
    } else {
      spans.push_back({i, end, static_cast<uint64_t>(origin[i])});
    }
  }
  // Cut only whole characters: shrink each span to UTF-8 boundaries.
  std::vector<RepeatedSpan> clean;
  clean.reserve(spans.size());
  for (RepeatedSpan s : spans) {
    uint64_t begin = s.begin;
    while (begin < s.end && IsContinuationByte(corpus[begin])) ++begin;
    uint64_t end = s.end;
    while (end > begin && end < n && IsContinuationByte(corpus[end])) --end;
    if (end <= begin) continue;
    clean.push_back({begin, end, s.first + (begin - s.begin)});
  }
  return clean;
}

}  // namespace neardup::dedup
