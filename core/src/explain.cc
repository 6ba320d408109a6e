#include "neardup/core/explain.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "neardup/core/internal/look_alikes.h"
#include "neardup/core/perceptual.h"
#include "neardup/core/tokenizer.h"

namespace neardup {
namespace {

// The words of a text: each canonicalized alone, with its bytes in the text.
struct Words {
  std::vector<std::string> canonical;
  std::vector<std::pair<size_t, size_t>> bytes;

  size_t size() const { return canonical.size(); }
};

// Where the canonicalizer's fold_look_alikes reads `text` as Latin: it
// looks at a word's neighbours, which a word canonicalized alone lacks.
std::vector<std::pair<size_t, size_t>> LatinizedSpans(
    std::string_view text, const Canonicalizer& canonicalizer) {
  std::vector<std::pair<size_t, size_t>> spans;
  // Invalid bytes (a text cut at max_text_bytes) read as not letters.
  if (canonicalizer.options().fold_look_alikes) {
    internal::ForEachLatinizedWord(text, [&](size_t begin, size_t end) {
      spans.emplace_back(begin, end);
    });
  }
  return spans;
}

// `view` of `text` with the parts in `spans` (sorted, from `*next` on)
// Latinized.
std::string_view LatinizedView(
    std::string_view text, std::string_view view,
    const std::vector<std::pair<size_t, size_t>>& spans, size_t* next,
    std::string* buffer) {
  const size_t begin = static_cast<size_t>(view.data() - text.data());
  const size_t end = begin + view.size();
  while (*next < spans.size() && spans[*next].second <= begin) ++*next;
  if (*next == spans.size() || spans[*next].first >= end) return view;
  buffer->clear();
  size_t at = begin;
  for (size_t k = *next; k < spans.size() && spans[k].first < end; ++k) {
    const size_t from = std::max(spans[k].first, at);
    const size_t to = std::min(spans[k].second, end);
    buffer->append(text.data() + at, from - at);
    internal::AppendLatinized(text.substr(from, to - from), buffer);
    at = to;
  }
  buffer->append(text.data() + at, end - at);
  return *buffer;
}

Words SplitWords(std::string_view text, const Canonicalizer& canonicalizer,
                 const Tokenizer& tokenizer) {
  std::vector<std::string_view> views;
  tokenizer.CollectTokenViews(text, &views);
  Words words;
  words.canonical.reserve(views.size());
  words.bytes.reserve(views.size());
  const std::vector<std::pair<size_t, size_t>> spans =
      LatinizedSpans(text, canonicalizer);
  size_t next_span = 0;
  std::string buffer, latinized;
  for (std::string_view view : views) {
    const size_t begin = static_cast<size_t>(view.data() - text.data());
    const std::string_view word =
        LatinizedView(text, view, spans, &next_span, &latinized);
    if (canonicalizer.CanonicalizeInto(word, &buffer).ok()) {
      words.canonical.push_back(buffer);
    } else {
      words.canonical.emplace_back(view);  // invalid UTF-8: as it is
    }
    words.bytes.emplace_back(begin, begin + view.size());
  }
  return words;
}

// A maximal run of equal words: a[a_word, a_word + length) equals
// b[b_word, b_word + length).
struct Run {
  size_t a_word, b_word, length;
};

}  // namespace

absl::StatusOr<Explanation> ExplainSharedPassages(
    std::string_view a, std::string_view b, const Canonicalizer& canonicalizer,
    const ExplainOptions& options) {
  if (options.k < 1 || options.k > 64) {
    return absl::InvalidArgumentError(
        absl::StrCat("explain: k must be in [1, 64], got ", options.k));
  }
  if (options.w < 1 || options.w > 1024) {
    return absl::InvalidArgumentError(
        absl::StrCat("explain: w must be in [1, 1024], got ", options.w));
  }
  if (options.max_passages == 0) {
    return absl::InvalidArgumentError("explain: max_passages must be >= 1");
  }
  Explanation result;
  if (a.size() > options.max_text_bytes) {
    a = a.substr(0, options.max_text_bytes);
    result.truncated = true;
  }
  if (b.size() > options.max_text_bytes) {
    b = b.substr(0, options.max_text_bytes);
    result.truncated = true;
  }
  const std::unique_ptr<Tokenizer> tokenizer = MakeWordTokenizer();
  const Words wa = SplitWords(a, canonicalizer, *tokenizer);
  const Words wb = SplitWords(b, canonicalizer, *tokenizer);
  const size_t k = static_cast<size_t>(options.k);
  if (wa.size() < k || wb.size() < k) return result;

  const std::vector<std::string_view> va(wa.canonical.begin(),
                                         wa.canonical.end());
  const std::vector<std::string_view> vb(wb.canonical.begin(),
                                         wb.canonical.end());
  const std::vector<WinnowedShingle> anchors_a =
      WinnowMinQ(RollingShingles(va, options.k, options.seed), options.w);
  const std::vector<WinnowedShingle> anchors_b =
      WinnowMinQ(RollingShingles(vb, options.k, options.seed), options.w);
  absl::flat_hash_map<uint64_t, std::vector<size_t>> places_in_b;
  for (const WinnowedShingle& s : anchors_b) {
    std::vector<size_t>& places = places_in_b[s.hash];
    if (places.size() < kMaxAnchorsPerHash) {
      places.push_back(s.start);
    } else {
      result.truncated = true;
    }
  }

  // Anchors come in increasing position of a, so a run already grown on a
  // diagonal covers every later anchor inside it: only the last run of
  // each diagonal needs remembering.
  std::vector<Run> runs;
  absl::flat_hash_map<int64_t, size_t> covered_until;  // diagonal -> a end
  for (const WinnowedShingle& anchor : anchors_a) {
    const auto found = places_in_b.find(anchor.hash);
    if (found == places_in_b.end()) continue;
    for (const size_t j : found->second) {
      const size_t i = anchor.start;
      const int64_t diagonal =
          static_cast<int64_t>(i) - static_cast<int64_t>(j);
      if (const auto it = covered_until.find(diagonal);
          it != covered_until.end() && i < it->second) {
        continue;
      }
      if (!std::equal(va.begin() + i, va.begin() + i + k, vb.begin() + j)) {
        continue;  // a hash collision, not shared words
      }
      size_t start_a = i, start_b = j;
      while (start_a > 0 && start_b > 0 && va[start_a - 1] == vb[start_b - 1]) {
        --start_a;
        --start_b;
      }
      size_t end_a = i + k, end_b = j + k;
      while (end_a < va.size() && end_b < vb.size() && va[end_a] == vb[end_b]) {
        ++end_a;
        ++end_b;
      }
      runs.push_back({start_a, start_b, end_a - start_a});
      covered_until[diagonal] = end_a;
    }
  }

  if (runs.size() > options.max_passages) {
    std::partial_sort(runs.begin(), runs.begin() + options.max_passages,
                      runs.end(), [](const Run& x, const Run& y) {
                        return x.length != y.length ? x.length > y.length
                                                    : x.a_word < y.a_word;
                      });
    runs.resize(options.max_passages);
    result.truncated = true;
  }
  std::sort(runs.begin(), runs.end(), [](const Run& x, const Run& y) {
    return x.a_word != y.a_word ? x.a_word < y.a_word : x.b_word < y.b_word;
  });
  result.passages.reserve(runs.size());
  for (const Run& run : runs) {
    SharedPassage passage;
    passage.a_begin = wa.bytes[run.a_word].first;
    passage.a_end = wa.bytes[run.a_word + run.length - 1].second;
    passage.b_begin = wb.bytes[run.b_word].first;
    passage.b_end = wb.bytes[run.b_word + run.length - 1].second;
    passage.words = run.length;
    result.passages.push_back(passage);
  }
  return result;
}

}  // namespace neardup
