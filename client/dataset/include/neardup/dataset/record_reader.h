#ifndef NEARDUP_DATASET_RECORD_READER_H_
#define NEARDUP_DATASET_RECORD_READER_H_

// Splits a file or standard input into raw records without interpreting them:
// lines for JSONL and TXT, RFC 4180 rows (quoted fields may hold newlines)
// for CSV/TSV. Reads with read(2) in chunks, so memory is bounded by the
// largest record, and a record from a pipe is returned as soon as its line
// ends (what --stream needs).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "neardup/dataset/input_format.h"

namespace neardup::dataset {

struct RawRecord {
  std::string_view bytes;  // the record with its line terminator, if any
  uint64_t line = 0;       // 1-based line where the record starts
};

class RecordReader {
 public:
  // "-" reads standard input. NOT_FOUND names the path. `whole_file`: the
  // entire input is one record (TXT --doc-per-file). A record longer than
  // `max_record_bytes` makes Next fail with INVALID_ARGUMENT instead of
  // growing the buffer without bound.
  static absl::StatusOr<std::unique_ptr<RecordReader>> Open(
      const std::string& path, Format format, bool whole_file = false,
      uint64_t max_record_bytes = kDefaultMaxRecordBytes);
  ~RecordReader();
  RecordReader(const RecordReader&) = delete;
  RecordReader& operator=(const RecordReader&) = delete;

  // The next record; false at the end. `record->bytes` stays valid until
  // the next call. JSONL blank lines are skipped; a leading UTF-8 byte order
  // mark is dropped.
  absl::StatusOr<bool> Next(RawRecord* record);

  uint64_t bytes_consumed() const { return bytes_consumed_; }
  // Size of the file, or 0 when unknown (a pipe).
  uint64_t size_hint() const { return size_hint_; }
  const std::string& name() const { return name_; }

 private:
  enum class CsvState : uint8_t { kFieldStart, kUnquoted, kQuoted, kQuoteSeen };

  RecordReader(int fd, bool owns_fd, std::string name, Format format,
               uint64_t size_hint, bool whole_file, uint64_t max_record_bytes);
  // Offset one past the record's '\n', or npos when it has not arrived yet.
  size_t FindRecordEnd();
  absl::Status ReadMore();
  absl::Status TooLong() const;
  size_t ContentBytes(size_t begin, size_t end) const;

  int fd_;
  bool owns_fd_;
  std::string name_;
  Format format_;
  char delimiter_;
  uint64_t size_hint_;
  bool whole_file_;
  uint64_t max_record_bytes_;
  std::string buffer_;  // bytes [0, size_) hold data; the rest is free room
  size_t size_ = 0;
  size_t begin_ = 0;  // start of the unreturned bytes in buffer_
  size_t scan_ = 0;   // where FindRecordEnd resumes
  CsvState csv_state_ = CsvState::kFieldStart;
  bool eof_ = false;
  bool at_file_start_ = true;
  bool returned_whole_ = false;
  uint64_t line_ = 1;
  uint64_t bytes_consumed_ = 0;
};

}  // namespace neardup::dataset

#endif  // NEARDUP_DATASET_RECORD_READER_H_
