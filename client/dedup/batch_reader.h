#ifndef NEARDUP_CLIENT_DEDUP_BATCH_READER_H_
#define NEARDUP_CLIENT_DEDUP_BATCH_READER_H_

// Reads the inputs, file after file, into batches of raw records that the
// workers can fingerprint independently. Numbers the documents in input
// order and handles CSV headers (one output header; later files must match).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/dedup/dedup_options.h"
#include "client/dedup/input_files.h"
#include "client/dedup/record_reader.h"
#include "client/dedup/text_extractor.h"

namespace neardup::dedup {

struct RecordRef {
  size_t offset;  // into Batch::bytes
  size_t size;
  uint64_t line;
  uint32_t file;  // index into the input list
  uint32_t doc;   // 0-based number in input order
};

struct Batch {
  // The records back to back, followed by ExtractPadding() zero bytes.
  std::string bytes;
  std::vector<RecordRef> records;

  std::string_view record(const RecordRef& r) const {
    return std::string_view(bytes).substr(r.offset, r.size);
  }
};

class BatchReader {
 public:
  BatchReader(std::vector<InputFile> files, const DedupOptions& options);

  // Opens the first input; for CSV/TSV reads its header, which Header()
  // then returns (with its terminator) for the output.
  absl::Status Start();
  const std::string& header() const { return header_; }

  // Replaces `batch` with up to `max_records` records / about `max_bytes`
  // bytes. False when every input is exhausted.
  absl::StatusOr<bool> Fill(size_t max_records, size_t max_bytes, Batch* batch);

  const InputFile& file(uint32_t index) const { return files_[index]; }
  const TextExtractor& extractor(uint32_t index) const {
    return *extractors_[index];
  }
  uint64_t bytes_consumed() const;
  uint64_t total_size_hint() const;  // 0 when any input size is unknown
  uint64_t docs_read() const { return next_doc_; }

 private:
  absl::Status OpenFile(uint32_t index);

  std::vector<InputFile> files_;
  const DedupOptions& options_;
  std::vector<std::unique_ptr<TextExtractor>> extractors_;
  std::unique_ptr<RecordReader> reader_;
  uint32_t current_ = 0;
  bool started_ = false;
  std::string header_;
  uint64_t finished_bytes_ = 0;  // consumed by closed readers
  uint64_t next_doc_ = 0;
};

}  // namespace neardup::dedup

#endif  // NEARDUP_CLIENT_DEDUP_BATCH_READER_H_
