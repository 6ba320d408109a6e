// Word, grapheme and shingle tokenizers and the by-name factory.

#include <memory>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/core/internal/ascii_words.h"
#include "neardup/core/internal/unicode_props.h"
#include "neardup/core/internal/utf8.h"
#include "neardup/core/internal/word_segmenter.h"
#include "neardup/core/tokenizer.h"

namespace neardup {
namespace {

using internal::GraphemeProps;
using internal::kExtPictBit;
using internal::kWordBreakMask;

class WordTokenizer final : public Tokenizer {
 public:
  std::string Name() const override { return "word-uax29"; }
  void ForEachToken(std::string_view text, TokenSink sink) const override {
    internal::ForEachWord(text, sink);
  }
  bool CollectTokenViews(std::string_view text,
                         std::vector<std::string_view>* out) const override {
    if (!internal::IsAscii(text)) {
      return Tokenizer::CollectTokenViews(text, out);
    }
    internal::AppendAsciiWords(text, out);
    return true;
  }
};

// Extended grapheme clusters (UAX #29 GB rules).
class GraphemeTokenizer final : public Tokenizer {
 public:
  std::string Name() const override { return "grapheme-uax29"; }
  void ForEachToken(std::string_view text, TokenSink sink) const override {
    using namespace internal;  // GraphemeBreak values
    size_t start = 0;
    uint8_t prev = 0xFF;
    int ri_run = 0;               // regional indicators ending at prev
    bool pict_extends = false;    // text so far ends in ExtPict Extend*
    bool zwj_after_pict = false;  // prev is a ZWJ that followed ExtPict Extend*
    for (size_t i = 0; i < text.size();) {
      char32_t cp;
      const int len = internal::DecodeUtf8Lenient(text, i, &cp);
      const uint8_t props = GraphemeProps(cp);
      const uint8_t cur = props & kWordBreakMask;
      const bool pict = props & kExtPictBit;
      if (prev != 0xFF && Breaks(prev, cur, pict, ri_run, zwj_after_pict)) {
        sink(text.substr(start, i - start));
        start = i;
      }
      zwj_after_pict = cur == kGbZwj && pict_extends;
      if (pict) {
        pict_extends = true;
      } else if (cur != kGbExtend) {
        pict_extends = false;
      }
      ri_run = cur == kGbRegionalIndicator ? ri_run + 1 : 0;
      prev = cur;
      i += len;
    }
    if (start < text.size()) sink(text.substr(start));
  }

 private:
  static bool Breaks(uint8_t prev, uint8_t cur, bool cur_pict, int ri_run,
                     bool zwj_after_pict) {
    using namespace internal;
    if (prev == kGbCR && cur == kGbLF) return false;  // GB3
    if (prev == kGbControl || prev == kGbCR || prev == kGbLF)
      return true;                                                       // GB4
    if (cur == kGbControl || cur == kGbCR || cur == kGbLF) return true;  // GB5
    if (prev == kGbL &&
        (cur == kGbL || cur == kGbV || cur == kGbLV || cur == kGbLVT)) {
      return false;  // GB6
    }
    if ((prev == kGbLV || prev == kGbV) && (cur == kGbV || cur == kGbT)) {
      return false;  // GB7
    }
    if ((prev == kGbLVT || prev == kGbT) && cur == kGbT) return false;  // GB8
    if (cur == kGbExtend || cur == kGbZwj) return false;                // GB9
    if (cur == kGbSpacingMark) return false;                            // GB9a
    if (prev == kGbPrepend) return false;                               // GB9b
    if (zwj_after_pict && cur_pict) return false;                       // GB11
    if (prev == kGbRegionalIndicator && cur == kGbRegionalIndicator &&
        ri_run % 2 == 1) {
      return false;  // GB12/13
    }
    return true;  // GB999
  }
};

class ShingleTokenizer final : public Tokenizer {
 public:
  ShingleTokenizer(int k, std::unique_ptr<Tokenizer> inner)
      : k_(k), inner_(std::move(inner)) {}

  std::string Name() const override {
    return absl::StrCat("shingle-k=", k_, "/", inner_->Name());
  }
  std::optional<ShingleSpec> shingle_spec() const override {
    return ShingleSpec{k_, inner_.get()};
  }

  void ForEachToken(std::string_view text, TokenSink sink) const override {
    if (k_ <= 0) return;
    const size_t k = static_cast<size_t>(k_);
    // The last k inner tokens in a mirrored ring: token j is stored at j % k
    // and j % k + k, so any window is a contiguous run of `ring`. Tokens that
    // are not views into `text` (from a nested shingler) are copied, since
    // their views die with the callback.
    absl::InlinedVector<std::string_view, 16> ring(2 * k);
    absl::InlinedVector<std::string, 8> owned;
    std::string joined;
    size_t count = 0;
    size_t slot = 0;  // count % k, without dividing
    const char* text_end = text.data() + text.size();
    auto emit = [&](const std::string_view* window, size_t n) {
      // Fast path: the window is one stretch of `text` with single spaces
      // between tokens, so it can be passed without copying.
      const std::string_view head = window[0];
      bool contiguous = head.data() >= text.data() && head.data() <= text_end;
      for (size_t j = 1; j < n && contiguous; ++j) {
        const char* prev_end = window[j - 1].data() + window[j - 1].size();
        contiguous = window[j].data() == prev_end + 1 && prev_end < text_end &&
                     *prev_end == ' ';
      }
      if (contiguous) {
        const std::string_view last = window[n - 1];
        sink(std::string_view(head.data(),
                              last.data() + last.size() - head.data()));
        return;
      }
      joined.clear();
      for (size_t j = 0; j < n; ++j) {
        if (j > 0) joined.push_back(' ');
        joined.append(window[j]);
      }
      sink(joined);
    };
    inner_->ForEachToken(text, [&](std::string_view token) {
      const bool inside = token.data() >= text.data() &&
                          token.data() + token.size() <= text_end;
      if (!inside) {
        if (owned.empty()) owned.resize(k);
        owned[slot].assign(token);
        token = owned[slot];
      }
      ring[slot] = ring[slot + k] = token;
      ++count;
      if (++slot == k) slot = 0;
      // After the write, the window of the last k tokens starts at `slot`.
      if (count >= k) emit(&ring[slot], k);
    });
    if (count > 0 && count < k) emit(&ring[0], count);
  }

 private:
  const int k_;
  const std::unique_ptr<Tokenizer> inner_;
};

}  // namespace

bool Tokenizer::CollectTokenViews(std::string_view text,
                                  std::vector<std::string_view>* out) const {
  const size_t old_size = out->size();
  const char* const text_end = text.data() + text.size();
  bool all_views = true;
  ForEachToken(text, [&](std::string_view token) {
    all_views &=
        token.data() >= text.data() && token.data() + token.size() <= text_end;
    out->push_back(token);
  });
  if (!all_views)
    out->resize(old_size);  // transient tokens: views would dangle
  return all_views;
}

std::unique_ptr<Tokenizer> MakeWordTokenizer() {
  return std::make_unique<WordTokenizer>();
}

std::unique_ptr<Tokenizer> MakeGraphemeTokenizer() {
  return std::make_unique<GraphemeTokenizer>();
}

std::unique_ptr<Tokenizer> MakeShingleTokenizer(
    int k, std::unique_ptr<Tokenizer> inner) {
  return std::make_unique<ShingleTokenizer>(k, std::move(inner));
}

absl::StatusOr<std::unique_ptr<Tokenizer>> MakeTokenizer(
    std::string_view name) {
  if (name == "word-uax29") return MakeWordTokenizer();
  if (name == "grapheme-uax29") return MakeGraphemeTokenizer();
  if (name == "cjk-icu") return MakeCjkTokenizer();
  std::string_view rest = name;
  constexpr std::string_view kShingle = "shingle-k=";
  if (rest.starts_with(kShingle)) {
    rest.remove_prefix(kShingle.size());
    const size_t slash = rest.find('/');
    // Strict decimal K, as Name() prints it: no sign, spaces or leading 0s.
    const std::string_view digits =
        slash == std::string_view::npos ? "" : rest.substr(0, slash);
    bool well_formed = !digits.empty() && digits.size() <= 2 &&
                       (digits.size() == 1 || digits[0] != '0');
    int k = 0;
    for (char c : digits) {
      if (!well_formed) break;  // also bounds k: at most two digits
      well_formed = c >= '0' && c <= '9';
      k = k * 10 + (c - '0');
    }
    if (well_formed && k <= kMaxShingleK) {
      auto inner = MakeTokenizer(rest.substr(slash + 1));
      if (!inner.ok()) return inner.status();
      return MakeShingleTokenizer(k, *std::move(inner));
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown tokenizer \"", AbslView(name),
                   "\": expected word-uax29, grapheme-uax29, cjk-icu or "
                   "shingle-k=K/<inner> with 0 <= K <= ",
                   kMaxShingleK));
}

}  // namespace neardup
