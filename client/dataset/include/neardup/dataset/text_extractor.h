#ifndef NEARDUP_DATASET_TEXT_EXTRACTOR_H_
#define NEARDUP_DATASET_TEXT_EXTRACTOR_H_

// Pulls the document text out of one raw record: a JSON string field
// (simdjson, fully validated), a CSV/TSV column, or a TXT line / whole file.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "neardup/dataset/input_format.h"

namespace neardup::dataset {

// Bytes that must be readable after a record handed to Extract (simdjson
// reads ahead); the batch buffers reserve them.
size_t ExtractPadding();

// Per-thread parser state; reuse one per worker.
class ExtractScratch {
 public:
  ExtractScratch();
  ~ExtractScratch();
  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

class TextExtractor {
 public:
  static TextExtractor ForJsonl(std::string field);
  // `header` is the file's first record; INVALID_ARGUMENT when it has no
  // column named `field`.
  static absl::StatusOr<TextExtractor> ForCsv(std::string_view header,
                                              char delimiter,
                                              const std::string& field);
  // A line without its terminator, or a whole file.
  static TextExtractor ForTxt(bool whole_file);

  // The text of `record`, valid until `scratch` is used again.
  // ExtractPadding() bytes after the record must be readable.
  // INVALID_ARGUMENT (without file or line: the caller adds them) for
  // malformed records.
  absl::StatusOr<std::string_view> Extract(std::string_view record,
                                           ExtractScratch* scratch) const;

  Format format() const { return format_; }
  const std::string& field() const { return field_; }
  size_t column() const { return column_; }
  size_t num_columns() const { return num_columns_; }
  char delimiter() const { return delimiter_; }

 private:
  Format format_ = Format::kTxt;
  std::string field_;
  size_t column_ = 0;
  size_t num_columns_ = 0;
  char delimiter_ = ',';
  bool whole_file_ = false;
};

}  // namespace neardup::dataset

#endif  // NEARDUP_DATASET_TEXT_EXTRACTOR_H_
