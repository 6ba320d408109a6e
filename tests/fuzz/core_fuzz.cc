// Fuzzes canonicalize + tokenize + streaming. Checks, beyond "no crash and
// no sanitizer report":
//  - the ASCII word tokenizer equals the rule engine on ASCII input;
//  - streaming in two chunks (split at any byte) equals one-shot.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "neardup/core/canonicalizer.h"
#include "neardup/core/internal/utf8.h"
#include "neardup/core/internal/word_segmenter.h"
#include "neardup/core/minhash.h"
#include "neardup/core/simhash.h"
#include "neardup/core/streaming.h"
#include "neardup/core/tokenizer.h"

namespace {

using namespace neardup;

enum class WordPath { kAscii, kGeneral, kDispatched };

std::vector<std::string> Words(std::string_view text, WordPath path) {
  std::vector<std::string> out;
  auto sink = [&](std::string_view t) { out.emplace_back(t); };
  switch (path) {
    case WordPath::kAscii:
      internal::ForEachWordAscii(text, sink);
      break;
    case WordPath::kGeneral:
      internal::ForEachWordGeneral(text, sink);
      break;
    case WordPath::kDispatched:  // ASCII, or mixed with cuts
      internal::ForEachWord(text, sink);
      break;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t selector = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data) + 1,
                              size - 1);

  CanonicalizerOptions options;
  options.normalization = static_cast<Normalization>(selector % 3);
  options.case_fold = (selector & 4) ? CaseFold::kNone : CaseFold::kFull;
  options.strip_bidi = selector & 8;
  options.strip_format = selector & 16;
  options.confusable_skeleton = (selector & 0xE0) == 0xE0;
  options.fold_look_alikes = (selector & 0x60) == 0x40;
  static const Canonicalizer* canonicalizers[256] = {};
  if (canonicalizers[selector] == nullptr) {
    canonicalizers[selector] =
        new Canonicalizer(*Canonicalizer::Create(options));
  }
  auto canonical = canonicalizers[selector]->Canonicalize(text);
  const bool valid = internal::FindInvalidUtf8(text) == internal::kNoError;
  if (canonical.ok() != valid) std::abort();

  // Tokenizers must accept any bytes.
  static const auto* grapheme = MakeGraphemeTokenizer().release();
  static const auto* shingles =
      MakeShingleTokenizer(3, MakeWordTokenizer()).release();
  size_t total = 0;
  grapheme->ForEachToken(text, [&](std::string_view t) { total += t.size(); });
  if (total != text.size()) std::abort();  // clusters tile the input
  shingles->ForEachToken(text, [&](std::string_view t) { total += t.size(); });

  // Every fast path gives the rule engine's words, on any bytes.
  const std::vector<std::string> general = Words(text, WordPath::kGeneral);
  if (internal::IsAscii(text) && Words(text, WordPath::kAscii) != general) {
    std::abort();
  }
  if (Words(text, WordPath::kDispatched) != general) std::abort();

  // Streaming equals one-shot, split at a point chosen by the input.
  static const MinHasher* minhasher = new MinHasher(*MinHasher::Create());
  const size_t split = text.empty() ? 0 : selector % (text.size() + 1);
  MinHashStream stream(*minhasher, 1 << 20);
  absl::Status s1 = stream.Update(text.substr(0, split));
  absl::Status s2 = s1.ok() ? stream.Update(text.substr(split)) : s1;
  auto streamed =
      s2.ok() ? stream.Finalize() : absl::StatusOr<MinHashSignature>(s2);
  auto direct = minhasher->Fingerprint(text);
  if (streamed.ok() != direct.ok()) std::abort();
  if (direct.ok() && !(*streamed == *direct)) std::abort();
  return 0;
}
