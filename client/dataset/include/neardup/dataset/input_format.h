#ifndef NEARDUP_DATASET_INPUT_FORMAT_H_
#define NEARDUP_DATASET_INPUT_FORMAT_H_

// Which record format an input is in, from --format or its extension.

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace neardup::dataset {

// Default limit on one record's bytes (--max-record-bytes).
inline constexpr uint64_t kDefaultMaxRecordBytes = uint64_t{64} << 20;

// kAuto: from each input's extension.
enum class Format { kAuto, kJsonl, kCsv, kTsv, kTxt };

// The format of `path`: `requested` unless it is kAuto, else by extension
// (.jsonl .ndjson .json, .csv, .tsv, .txt). Parquet and unknown extensions
// are INVALID_ARGUMENT with a message that says what to do instead.
absl::StatusOr<Format> ResolveFormat(const std::string& path, Format requested);

absl::StatusOr<Format> ParseFormatName(std::string_view name);
const char* FormatName(Format format);

// ',' for CSV, '\t' for TSV.
inline char CsvDelimiter(Format format) {
  return format == Format::kTsv ? '\t' : ',';
}
inline bool IsCsvLike(Format format) {
  return format == Format::kCsv || format == Format::kTsv;
}

}  // namespace neardup::dataset

#endif  // NEARDUP_DATASET_INPUT_FORMAT_H_
