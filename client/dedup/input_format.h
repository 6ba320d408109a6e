#ifndef NEARDUP_CLIENT_DEDUP_INPUT_FORMAT_H_
#define NEARDUP_CLIENT_DEDUP_INPUT_FORMAT_H_

// Which record format an input is in, from --format or its extension.

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "client/dedup/dedup_options.h"

namespace neardup::dedup {

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

}  // namespace neardup::dedup

#endif  // NEARDUP_CLIENT_DEDUP_INPUT_FORMAT_H_
