#ifndef NEARDUP_DATASET_DATASET_READER_H_
#define NEARDUP_DATASET_DATASET_READER_H_

// Reads a dataset's inputs file after file, record by record, the same way
// for every command: opens each input, reads a CSV/TSV header (an empty
// CSV/TSV input is an error: it has no header), and picks each file's text
// extractor (and id extractor, when asked for one).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "neardup/dataset/input_files.h"
#include "neardup/dataset/record_reader.h"
#include "neardup/dataset/text_extractor.h"

namespace neardup::dataset {

struct DatasetRecord {
  std::string_view bytes;  // with its terminator; valid until the next Next
  uint64_t line = 0;       // 1-based line where the record starts
  uint32_t file = 0;       // index into the input list
};

struct DatasetReaderOptions {
  // Column or JSON field of each record's id; empty: records have no id.
  // TXT inputs have no fields, so an id field with TXT is an error.
  std::string id_field;
  // Every CSV/TSV input must have the first one's header (dedup writes one
  // output with one header).
  bool same_header = false;
};

class DatasetReader {
 public:
  DatasetReader(std::vector<InputFile> files, const DatasetOptions& options,
                DatasetReaderOptions reader_options = {});
  ~DatasetReader();

  // Opens the first input (and reads its header). Next calls it if needed.
  absl::Status Start();
  // The next record; false after the last record of the last input.
  absl::StatusOr<bool> Next(DatasetRecord* record);

  // The first input's CSV/TSV header with its terminator; empty otherwise.
  const std::string& header() const { return header_; }
  const InputFile& file(uint32_t index) const { return files_[index]; }
  // "<stdin>" for standard input, else the path.
  std::string DisplayName(uint32_t index) const;
  // Valid once the file was opened (a record of it was returned).
  const TextExtractor& text_extractor(uint32_t index) const {
    return *text_[index];
  }
  // Null when there is no id field.
  const TextExtractor* id_extractor(uint32_t index) const {
    return id_[index].get();
  }
  uint64_t bytes_consumed() const;
  // Sum of the inputs' sizes; 0 when any is unknown (a pipe).
  uint64_t total_size_hint() const;

 private:
  absl::Status OpenFile(uint32_t index);
  absl::StatusOr<std::unique_ptr<TextExtractor>> CsvExtractor(
      std::string_view header, uint64_t line, Format format,
      const std::string& field) const;

  std::vector<InputFile> files_;
  DatasetOptions options_;
  DatasetReaderOptions reader_options_;
  std::vector<std::unique_ptr<TextExtractor>> text_;
  std::vector<std::unique_ptr<TextExtractor>> id_;
  std::unique_ptr<RecordReader> reader_;
  uint32_t current_ = 0;
  bool started_ = false;
  std::string header_;
  uint64_t finished_bytes_ = 0;  // consumed by closed readers
  absl::Status failed_;          // an input that could not be opened
};

}  // namespace neardup::dataset

#endif  // NEARDUP_DATASET_DATASET_READER_H_
