#include "neardup/core/chunking.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/core/enum_tables.h"

namespace neardup {
namespace {

// Half-open ranges of word indexes.
struct WordSpan {
  size_t first = 0;
  size_t last = 0;  // one past
  size_t size() const { return last - first; }
};

// fastText's separators: it reads words with istream >> string semantics
// on these bytes.
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
         c == '\f' || c == '\0';
}

bool EndsWith(std::string_view word, std::string_view suffix) {
  return word.size() >= suffix.size() &&
         word.substr(word.size() - suffix.size()) == suffix;
}

// A word ending a sentence: terminal punctuation, possibly followed by
// closing quotes or brackets.
bool EndsSentence(std::string_view word) {
  for (bool stripped = true; stripped && !word.empty();) {
    stripped = false;
    for (std::string_view closer : {"\"", "'", ")", "]", "\u201d", "\u2019"}) {
      if (EndsWith(word, closer)) {
        word.remove_suffix(closer.size());
        stripped = true;
      }
    }
  }
  for (std::string_view end : {".", "!", "?", "\u3002", "\uff01", "\uff1f"}) {
    if (EndsWith(word, end)) return true;
  }
  return false;
}

class Chunker {
 public:
  Chunker(std::string_view text, const ChunkingOptions& options)
      : options_(options), max_(static_cast<size_t>(options.max_tokens)) {
    size_t newlines = 0;
    for (size_t i = 0; i < text.size();) {
      if (IsSpace(text[i])) {
        newlines += text[i] == '\n';
        ++i;
        continue;
      }
      size_t end = i;
      while (end < text.size() && !IsSpace(text[end])) ++end;
      // A blank line before this word ends the paragraph (and sentence).
      if (!words_.empty() && newlines >= 2) {
        paragraph_ends_.push_back(words_.size());
        if (sentence_ends_.empty() || sentence_ends_.back() != words_.size()) {
          sentence_ends_.push_back(words_.size());
        }
      }
      newlines = 0;
      words_.push_back({i, end});
      if (EndsSentence(text.substr(i, end - i))) {
        sentence_ends_.push_back(words_.size());
      }
      i = end;
    }
    for (std::vector<size_t>* ends : {&sentence_ends_, &paragraph_ends_}) {
      if (ends->empty() || ends->back() != words_.size()) {
        ends->push_back(words_.size());
      }
    }
  }

  std::vector<ByteRange> Run() {
    if (words_.empty()) return {};
    const WordSpan all{0, words_.size()};
    switch (options_.mode) {
      case ChunkMode::kFixedTokens:
        Windows(all);
        break;
      case ChunkMode::kSentenceBounded:
        Pack(Units(all, sentence_ends_), [&](WordSpan s) { Windows(s); });
        break;
      case ChunkMode::kRecursive:
        Pack(Units(all, paragraph_ends_), [&](WordSpan paragraph) {
          Pack(Units(paragraph, sentence_ends_),
               [&](WordSpan s) { Windows(s); });
        });
        break;
    }
    return std::move(out_);
  }

 private:
  // The pieces of `span` cut at `ends` (sorted word indexes).
  static std::vector<WordSpan> Units(WordSpan span,
                                     const std::vector<size_t>& ends) {
    std::vector<WordSpan> units;
    size_t first = span.first;
    auto it = std::upper_bound(ends.begin(), ends.end(), span.first);
    for (; it != ends.end() && *it <= span.last; ++it) {
      units.push_back({first, *it});
      first = *it;
    }
    if (first < span.last) units.push_back({first, span.last});
    return units;
  }

  // Consecutive units packed into chunks of at most max_ words; a unit
  // alone over the limit goes to `oversized`.
  template <typename Oversized>
  void Pack(const std::vector<WordSpan>& units, Oversized oversized) {
    WordSpan current{0, 0};
    auto flush = [&] {
      if (current.size() > 0) Emit(current);
      current = {0, 0};
    };
    for (const WordSpan& unit : units) {
      if (unit.size() > max_) {
        flush();
        oversized(unit);
        continue;
      }
      if (current.size() > 0 && current.size() + unit.size() > max_) flush();
      if (current.size() == 0) current.first = unit.first;
      current.last = unit.last;
    }
    flush();
  }

  void Windows(WordSpan span) {
    const size_t step = max_ - static_cast<size_t>(options_.overlap);
    for (size_t first = span.first;; first += step) {
      const size_t last = std::min(first + max_, span.last);
      Emit({first, last});
      if (last == span.last) break;
    }
  }

  void Emit(WordSpan span) {
    out_.push_back({words_[span.first].begin, words_[span.last - 1].end});
  }

  const ChunkingOptions options_;
  const size_t max_;
  std::vector<ByteRange> words_;
  // Word indexes where sentences / paragraphs end (one past their last
  // word), ascending, the last one words_.size().
  std::vector<size_t> sentence_ends_;
  std::vector<size_t> paragraph_ends_;
  std::vector<ByteRange> out_;
};

}  // namespace

std::string_view ChunkModeName(ChunkMode mode) {
  return kChunkModes.Name(mode);
}

absl::StatusOr<ChunkMode> ParseChunkMode(std::string_view name) {
  return kChunkModes.Parse(name);
}

int DefaultChunkOverlap(int max_tokens) {
  return std::min(32, std::max(max_tokens, 0) / 4);
}

absl::Status ValidateChunking(const ChunkingOptions& options) {
  if (options.max_tokens < 1 || options.max_tokens > 65536) {
    return absl::InvalidArgumentError(absl::StrCat(
        "chunk max_tokens must be in [1, 65536], got ", options.max_tokens));
  }
  if (options.overlap < 0 || options.overlap > options.max_tokens / 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("chunk overlap must be in [0, max_tokens / 2 = ",
                     options.max_tokens / 2, "], got ", options.overlap));
  }
  return absl::OkStatus();
}

std::vector<ByteRange> ChunkText(std::string_view text,
                                 const ChunkingOptions& options) {
  return Chunker(text, options).Run();
}

}  // namespace neardup
