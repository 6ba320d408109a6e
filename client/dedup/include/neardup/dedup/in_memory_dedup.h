#ifndef NEARDUP_DEDUP_IN_MEMORY_DEDUP_H_
#define NEARDUP_DEDUP_IN_MEMORY_DEDUP_H_

// `neardup dedup` over documents handed over in batches instead of read
// from files (the Python package's neardup.dedup): the same fingerprints,
// the same finder and the same in-order decision as RunDedup, so the same
// options keep the same documents and make the same clusters. Batches are
// fingerprinted on `options.threads` threads and decided in order on the
// calling one.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "neardup/dedup/decision.h"
#include "neardup/dedup/dedup_options.h"
#include "neardup/dedup/run_stats.h"
#include "neardup/extract/content_type.h"

namespace neardup::dedup {

class InMemoryDedup {
 public:
  // One document: its text, or why the record has none (a non-empty
  // `error` makes it malformed, as a record without its text field is).
  struct Document {
    std::string_view text;
    std::string_view error;
  };
  // Turns a document of options.content_type into its text, as
  // extract::ExtractText does for a run over files. Called on the
  // fingerprinting threads concurrently: it must be thread-safe and must
  // not throw. An error makes the document malformed, as it does there.
  using TextExtraction = std::function<absl::StatusOr<std::string>(
      std::string_view content, extract::ContentType type)>;

  // Takes the method, verification, fingerprint, content type and threading
  // options of `neardup dedup`; INVALID_ARGUMENT for those only a run over
  // files has (inputs, output, stream, clusters and stats files, explain,
  // references, suffix-array), for a content type other than plain text
  // without `extract_text` (this library links no extractor: its caller
  // passes one), and for what ValidateOptions refuses. `expected_docs`
  // (options.expected_docs if set, else this; 0: a million) sizes
  // lshbloom's Bloom filters, as the input size does for a run over files
  // (and reserves the MinHash index).
  static absl::StatusOr<std::unique_ptr<InMemoryDedup>> Create(
      const DedupOptions& options, uint64_t expected_docs,
      TextExtraction extract_text = nullptr);
  ~InMemoryDedup();

  // Decides the next documents, numbered on from the previous call's. A
  // malformed document (an error, a text that is not UTF-8, or one that
  // extract_text refuses) fails the
  // call with INVALID_ARGUMENT ("record N: why"), unless skip_invalid (then
  // it is kSkipped); the documents before it are decided and in `decisions`
  // (cleared first), the ones after it are not, and the dedup takes no more
  // documents. Never kInvalid.
  absl::Status Decide(std::span<const Document> documents,
                      std::vector<Decision>* decisions);

  // The counters so far (total, unique, duplicates, empty, invalid, the
  // method's own figures); input_bytes counts the documents' bytes as given
  // (before any extraction). A malformed
  // document that stopped it is in total only. The memory figures
  // (token_set_bytes) depend on how the pool's tasks shared their chunks.
  RunStats stats() const;
  // The clusters so far as `--clusters` writes them; FAILED_PRECONDITION for
  // lshbloom, which keeps no documents to name.
  absl::StatusOr<std::string> ClustersJsonLines() const;

 private:
  struct State;
  explicit InMemoryDedup(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace neardup::dedup

#endif  // NEARDUP_DEDUP_IN_MEMORY_DEDUP_H_
