#ifndef NEARDUP_CORE_CHUNKING_H_
#define NEARDUP_CORE_CHUNKING_H_

// Splitting a long text into model-sized chunks before embedding, as txtfp's
// ChunkingStrategy does. A token here is a whitespace-separated word, which
// is what fastText reads (no BPE estimate needed). Chunks are byte ranges of
// the text, in order; together they cover every word.

#include <cstddef>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace neardup {

// The values are stored in collection records: never renumber.
enum class ChunkMode {
  // Greedy windows of max_tokens words, each starting max_tokens - overlap
  // words after the previous one.
  kFixedTokens = 0,
  // Whole sentences packed up to max_tokens words (the default); a sentence
  // longer than that is cut into fixed windows.
  kSentenceBounded = 1,
  // Whole paragraphs (split at blank lines) packed up to max_tokens; a
  // longer paragraph falls back to sentences, a longer sentence to windows.
  kRecursive = 2,
};

// "fixed", "sentence" or "recursive".
std::string_view ChunkModeName(ChunkMode mode);
absl::StatusOr<ChunkMode> ParseChunkMode(std::string_view name);

struct ChunkingOptions {
  ChunkMode mode = ChunkMode::kSentenceBounded;
  int max_tokens = 256;  // 1..65536
  // Words two windows share, 0..max_tokens / 2: a word is in at most two
  // chunks, so embedding costs at most twice the text.
  int overlap = 32;

  bool operator==(const ChunkingOptions&) const = default;
};

// min(32, max_tokens / 4): the overlap when none is given.
int DefaultChunkOverlap(int max_tokens);

// INVALID_ARGUMENT naming the field out of range.
absl::Status ValidateChunking(const ChunkingOptions& options);

struct ByteRange {
  size_t begin = 0;
  size_t end = 0;
  bool operator==(const ByteRange&) const = default;
};

// The chunks of `text` (validated options). Empty for a text without words.
// Each chunk begins at its first word and ends after its last.
std::vector<ByteRange> ChunkText(std::string_view text,
                                 const ChunkingOptions& options);

}  // namespace neardup

#endif  // NEARDUP_CORE_CHUNKING_H_
