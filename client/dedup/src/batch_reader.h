#ifndef NEARDUP_DEDUP_BATCH_READER_H_
#define NEARDUP_DEDUP_BATCH_READER_H_

// Groups a dataset's records into batches that the workers can fingerprint
// independently, numbering the documents in input order.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "neardup/dataset/dataset_reader.h"
#include "neardup/dedup/dedup_options.h"

namespace neardup::dedup {

struct RecordRef {
  size_t offset;  // into Batch::bytes
  size_t size;
  uint64_t line;
  uint32_t file;  // index into the input list
  uint32_t doc;   // 0-based number in input order
};

struct Batch {
  // The records back to back, followed by dataset::ExtractPadding() zero bytes.
  std::string bytes;
  std::vector<RecordRef> records;

  std::string_view record(const RecordRef& r) const {
    return std::string_view(bytes).substr(r.offset, r.size);
  }
};

// The inputs of a run in the order their records are numbered (standard
// input with --stream); INVALID_ARGUMENT for none, or for inputs of
// different formats (one run writes one format).
absl::StatusOr<std::vector<dataset::InputFile>> ListDedupInputs(
    const DedupOptions& options);

class BatchReader {
 public:
  // Every CSV/TSV input must share the first one's header (one output).
  BatchReader(std::vector<dataset::InputFile> files,
              const DedupOptions& options)
      : reader_(std::move(files), options.input,
                {.id_field = "", .same_header = true}) {}

  // Opens the first input, so that header() is known before any batch.
  absl::Status Start() { return reader_.Start(); }
  const std::string& header() const { return reader_.header(); }

  // Replaces `batch` with up to `max_records` records / about `max_bytes`
  // bytes. False when every input is exhausted.
  absl::StatusOr<bool> Fill(size_t max_records, size_t max_bytes, Batch* batch);

  const dataset::InputFile& file(uint32_t index) const {
    return reader_.file(index);
  }
  std::string DisplayName(uint32_t index) const {
    return reader_.DisplayName(index);
  }
  const dataset::TextExtractor& extractor(uint32_t index) const {
    return reader_.text_extractor(index);
  }
  uint64_t bytes_consumed() const { return reader_.bytes_consumed(); }
  uint64_t total_size_hint() const { return reader_.total_size_hint(); }
  uint64_t docs_read() const { return next_doc_; }

 private:
  dataset::DatasetReader reader_;
  uint64_t next_doc_ = 0;
};

}  // namespace neardup::dedup

#endif  // NEARDUP_DEDUP_BATCH_READER_H_
