#ifndef NEARDUP_EMBED_FASTTEXT_EMBEDDER_H_
#define NEARDUP_EMBED_FASTTEXT_EMBEDDER_H_

// Local embeddings without a network: a fastText model file (Debian's
// libfasttext) turns text into a vector. A long text is cut into chunks
// (core/chunking.h), each chunk becomes fastText's sentence vector (the mean
// of its words' normalized vectors), and the chunk vectors are mean-pooled
// into one unit vector. Thread-safe.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "neardup/base/sync.h"
#include "neardup/core/chunking.h"

namespace fasttext {
class FastText;
}

namespace neardup::embed {

// Which file a path names, and its version: a replaced or rewritten file
// gets another stamp.
struct FileStamp {
  uint64_t device = 0;
  uint64_t inode = 0;
  int64_t size = 0;
  int64_t modified_ns = 0;
  bool operator==(const FileStamp&) const = default;
};
// nullopt when `path` cannot be stat'ed.
std::optional<FileStamp> StampOf(const std::string& path);

class FastTextEmbedder {
 public:
  // Loads the model at `path`: hashes it, parses it, and checks that the
  // file did not change meanwhile (UNAVAILABLE if it did). NOT_FOUND when
  // it cannot be opened, INVALID_ARGUMENT when it is not a fastText model. The
  // file is trusted: it comes from the server's --models-dir or the CLI's
  // command line, never from a request.
  static absl::StatusOr<std::shared_ptr<const FastTextEmbedder>> Load(
      const std::string& path);
  ~FastTextEmbedder();

  // "fasttext-" and 16 hex digits of the XXH3-64 of the model file: another
  // file, even retrained on the same data, is another model.
  const std::string& model_id() const { return model_id_; }
  int dim() const { return dim_; }

  // The unit vector of `text` (options validated by ValidateChunking).
  // INVALID_ARGUMENT when no chunk has a word the model can place.
  absl::StatusOr<std::vector<float>> Embed(
      std::string_view text, const ChunkingOptions& chunking) const;

 private:
  FastTextEmbedder(std::unique_ptr<fasttext::FastText> model,
                   std::string model_id, int dim);

  // fastText's getSentenceVector is not const: one caller at a time.
  mutable Mutex mu_;
  const std::unique_ptr<fasttext::FastText> model_ ABSL_PT_GUARDED_BY(mu_);
  const std::string model_id_;
  const int dim_;
};

}  // namespace neardup::embed

#endif  // NEARDUP_EMBED_FASTTEXT_EMBEDDER_H_
