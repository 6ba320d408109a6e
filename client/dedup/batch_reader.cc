#include "client/dedup/batch_reader.h"

#include <sys/stat.h>

#include "absl/strings/str_cat.h"
#include "client/dedup/input_format.h"
#include "neardup/core/status_macros.h"

namespace neardup::dedup {
namespace {

std::string_view WithoutTerminator(std::string_view s) {
  if (!s.empty() && s.back() == '\n') s.remove_suffix(1);
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

constexpr uint64_t kMaxDocs = 0xFFFFFFFFull;  // ids are 32-bit
constexpr size_t kTypicalRecordSlack = 64 << 10;

}  // namespace

BatchReader::BatchReader(std::vector<InputFile> files,
                         const DedupOptions& options)
    : files_(std::move(files)), options_(options) {
  extractors_.resize(files_.size());
}

absl::Status BatchReader::Start() {
  started_ = true;
  if (files_.empty()) return absl::OkStatus();
  return OpenFile(0);
}

absl::Status BatchReader::OpenFile(uint32_t index) {
  const InputFile& file = files_[index];
  ASSIGN_OR_RETURN(reader_,
                   RecordReader::Open(file.path, file.format,
                                      /*whole_file=*/options_.doc_per_file,
                                      options_.max_record_bytes));
  if (file.format == Format::kJsonl) {
    extractors_[index] = std::make_unique<TextExtractor>(
        TextExtractor::ForJsonl(options_.field));
  } else if (file.format == Format::kTxt) {
    extractors_[index] = std::make_unique<TextExtractor>(
        TextExtractor::ForTxt(options_.doc_per_file));
  } else {
    RawRecord header;
    ASSIGN_OR_RETURN(bool has_header, reader_->Next(&header));
    if (!has_header) {
      return absl::InvalidArgumentError(
          absl::StrCat(reader_->name(),
                       ": empty; a CSV/TSV input starts "
                       "with a header row"));
    }
    absl::StatusOr<TextExtractor> extractor = TextExtractor::ForCsv(
        header.bytes, CsvDelimiter(file.format), options_.field);
    if (!extractor.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(reader_->name(), ":", header.line, ": ",
                       extractor.status().message()));
    }
    if (index == 0) {
      header_ = std::string(header.bytes);
      if (header_.back() != '\n') header_.push_back('\n');
    } else if (WithoutTerminator(header.bytes) != WithoutTerminator(header_)) {
      return absl::InvalidArgumentError(absl::StrCat(
          reader_->name(), ":", header.line, ": header differs from ",
          files_[0].path, "'s; the output can have only one"));
    }
    extractors_[index] = std::make_unique<TextExtractor>(*std::move(extractor));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> BatchReader::Fill(size_t max_records, size_t max_bytes,
                                       Batch* batch) {
  if (!started_) RETURN_IF_ERROR(Start());
  batch->bytes.clear();
  batch->records.clear();
  // Most batches end just past max_bytes: size the buffer once so that it
  // is neither regrown (copied) nor re-faulted batch after batch.
  batch->bytes.reserve(max_bytes + kTypicalRecordSlack + ExtractPadding());
  while (batch->records.size() < max_records &&
         batch->bytes.size() < max_bytes && current_ < files_.size()) {
    RawRecord raw;
    ASSIGN_OR_RETURN(bool got, reader_->Next(&raw));
    if (!got) {
      finished_bytes_ += reader_->bytes_consumed();
      reader_.reset();
      if (++current_ < files_.size()) RETURN_IF_ERROR(OpenFile(current_));
      continue;
    }
    if (next_doc_ >= kMaxDocs) {
      return absl::ResourceExhaustedError(
          "more than 4294967295 records; split the input");
    }
    batch->records.push_back({batch->bytes.size(), raw.bytes.size(), raw.line,
                              current_, static_cast<uint32_t>(next_doc_++)});
    batch->bytes.append(raw.bytes);
  }
  batch->bytes.append(ExtractPadding(), '\0');
  return !batch->records.empty();
}

uint64_t BatchReader::bytes_consumed() const {
  return finished_bytes_ + (reader_ ? reader_->bytes_consumed() : 0);
}

uint64_t BatchReader::total_size_hint() const {
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

}  // namespace neardup::dedup
