#ifndef NEARDUP_CORE_TOKENIZER_H_
#define NEARDUP_CORE_TOKENIZER_H_

// Stage 2 of the pipeline: canonical text -> a stream of tokens. Tokens are
// handed to a callback as views; nothing is allocated per token.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"

namespace neardup {

using TokenSink = absl::FunctionRef<void(std::string_view token)>;

// Thread-safe: one instance may be shared by all threads.
class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  // Stable name baked into config hashes, e.g. "shingle-k=5/word-uax29".
  virtual std::string Name() const = 0;
  // Calls `sink` once per token, in text order. The view is valid only during
  // the call. Input should be valid UTF-8; invalid bytes are treated as
  // U+FFFD, never as undefined behaviour.
  virtual void ForEachToken(std::string_view text, TokenSink sink) const = 0;

  // Appends every token to `*out` as a view into `text` and returns true; or
  // returns false, leaving `*out` as it was, when this tokenizer's tokens are
  // not views into `text`. Lets fingerprinting batch the tokens of one text.
  virtual bool CollectTokenViews(std::string_view text,
                                 std::vector<std::string_view>* out) const;

  // Shingle tokenizers describe themselves so fingerprinting can fuse
  // shingling with hashing (same tokens, fewer indirections).
  struct ShingleSpec {
    int k;
    const Tokenizer* inner;
  };
  virtual std::optional<ShingleSpec> shingle_spec() const {
    return std::nullopt;
  }
};

// "word-uax29": UAX #29 word segments that contain at least one alphabetic or
// numeric character. Each Han ideograph is its own segment; "don't", "3.14",
// "1,000" and "example.com" are one token each; "64-bit" is two.
std::unique_ptr<Tokenizer> MakeWordTokenizer();

// "grapheme-uax29": every extended grapheme cluster, whitespace included.
std::unique_ptr<Tokenizer> MakeGraphemeTokenizer();

// Largest shingle size accepted by the factory and the fingerprint configs.
inline constexpr int kMaxShingleK = 64;

// "shingle-k=K/<inner>": K consecutive inner tokens joined by one U+0020.
// 0 < n < K inner tokens give one shingle of all n; n == 0 or K == 0 give none.
std::unique_ptr<Tokenizer> MakeShingleTokenizer(
    int k, std::unique_ptr<Tokenizer> inner);

// "cjk-icu": ICU dictionary-based word segmentation (Chinese, Japanese, Thai,
// and UAX #29 elsewhere), keeping segments with a letter or digit.
absl::StatusOr<std::unique_ptr<Tokenizer>> MakeCjkTokenizer();

// Builds a tokenizer from its Name(), e.g. "shingle-k=3/word-uax29".
absl::StatusOr<std::unique_ptr<Tokenizer>> MakeTokenizer(std::string_view name);

}  // namespace neardup

#endif  // NEARDUP_CORE_TOKENIZER_H_
