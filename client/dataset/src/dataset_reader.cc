#include "neardup/dataset/dataset_reader.h"

#include <sys/stat.h>

#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"

namespace neardup::dataset {
namespace {

std::string_view WithoutTerminator(std::string_view s) {
  if (!s.empty() && s.back() == '\n') s.remove_suffix(1);
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

}  // namespace

DatasetReader::DatasetReader(std::vector<InputFile> files,
                             const DatasetOptions& options,
                             DatasetReaderOptions reader_options)
    : files_(std::move(files)),
      options_(options),
      reader_options_(std::move(reader_options)),
      text_(files_.size()),
      id_(files_.size()) {}

DatasetReader::~DatasetReader() = default;

std::string DatasetReader::DisplayName(uint32_t index) const {
  return files_[index].path == "-" ? "<stdin>" : files_[index].path;
}

absl::Status DatasetReader::Start() {
  started_ = true;
  if (files_.empty()) return absl::OkStatus();
  failed_ = OpenFile(0);
  return failed_;
}

absl::StatusOr<std::unique_ptr<TextExtractor>> DatasetReader::CsvExtractor(
    std::string_view header, uint64_t line, Format format,
    const std::string& field) const {
  absl::StatusOr<TextExtractor> extractor =
      TextExtractor::ForCsv(header, CsvDelimiter(format), field);
  if (!extractor.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        reader_->name(), ":", line, ": ", extractor.status().message()));
  }
  return std::make_unique<TextExtractor>(*std::move(extractor));
}

absl::Status DatasetReader::OpenFile(uint32_t index) {
  const InputFile& file = files_[index];
  const std::string& id_field = reader_options_.id_field;
  ASSIGN_OR_RETURN(
      reader_, RecordReader::Open(file.path, file.format, options_.doc_per_file,
                                  options_.max_record_bytes));
  switch (file.format) {
    case Format::kJsonl:
      text_[index] = std::make_unique<TextExtractor>(
          TextExtractor::ForJsonl(options_.field));
      if (!id_field.empty()) {
        id_[index] =
            std::make_unique<TextExtractor>(TextExtractor::ForJsonl(id_field));
      }
      return absl::OkStatus();
    case Format::kCsv:
    case Format::kTsv:
      break;
    default:
      if (!id_field.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            DisplayName(index), ": an id field needs JSONL, CSV or TSV"));
      }
      text_[index] = std::make_unique<TextExtractor>(
          TextExtractor::ForTxt(options_.doc_per_file));
      return absl::OkStatus();
  }
  RawRecord header;
  ASSIGN_OR_RETURN(bool has_header, reader_->Next(&header));
  if (!has_header) {
    return absl::InvalidArgumentError(absl::StrCat(
        reader_->name(), ": empty; a CSV/TSV input starts with a header row"));
  }
  ASSIGN_OR_RETURN(text_[index], CsvExtractor(header.bytes, header.line,
                                              file.format, options_.field));
  if (!id_field.empty()) {
    ASSIGN_OR_RETURN(id_[index], CsvExtractor(header.bytes, header.line,
                                              file.format, id_field));
  }
  if (index == 0) {
    header_ = std::string(header.bytes);
    if (header_.back() != '\n') header_.push_back('\n');
  } else if (reader_options_.same_header &&
             WithoutTerminator(header.bytes) != WithoutTerminator(header_)) {
    return absl::InvalidArgumentError(absl::StrCat(
        reader_->name(), ":", header.line, ": header differs from ",
        files_[0].path, "'s; the output can have only one"));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> DatasetReader::Next(DatasetRecord* record) {
  if (!started_) RETURN_IF_ERROR(Start());
  RETURN_IF_ERROR(failed_);  // the same error again, never a null reader
  while (current_ < files_.size()) {
    RawRecord raw;
    ASSIGN_OR_RETURN(bool got, reader_->Next(&raw));
    if (got) {
      record->bytes = raw.bytes;
      record->line = raw.line;
      record->file = current_;
      return true;
    }
    finished_bytes_ += reader_->bytes_consumed();
    reader_.reset();
    if (++current_ < files_.size()) {
      failed_ = OpenFile(current_);
      RETURN_IF_ERROR(failed_);
    }
  }
  return false;
}

uint64_t DatasetReader::bytes_consumed() const {
  return finished_bytes_ + (reader_ ? reader_->bytes_consumed() : 0);
}

uint64_t DatasetReader::total_size_hint() const {
  uint64_t total = 0;
  for (const InputFile& file : files_) {
    struct stat st;
    if (file.path == "-" || ::stat(file.path.c_str(), &st) != 0 ||
        !S_ISREG(st.st_mode)) {
      return 0;
    }
    total += static_cast<uint64_t>(st.st_size);
  }
  return total;
}

}  // namespace neardup::dataset
