#ifndef NEARDUP_DATASET_CSV_RECORD_H_
#define NEARDUP_DATASET_CSV_RECORD_H_

// RFC 4180 fields of one CSV/TSV record: "..." quoting, "" for a quote,
// delimiters and newlines allowed inside quotes, LF or CRLF terminators.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace neardup::dataset {

struct CsvFields {
  std::vector<std::string> values;  // unquoted
  // [begin, end) of each field as written in the record (quotes included).
  std::vector<std::pair<size_t, size_t>> raw_spans;
  size_t count = 0;  // fields in the last parsed record (vectors are reused)
};

// Parses `record` (its terminator may be included) into `fields`, reusing
// their storage. INVALID_ARGUMENT for an unterminated quote or text after a
// closing quote.
absl::Status ParseCsvRecord(std::string_view record, char delimiter,
                            CsvFields* fields);

// Appends `value` as one field, quoted when it holds the delimiter, a quote,
// CR or LF.
void AppendCsvField(std::string_view value, char delimiter, std::string* out);

}  // namespace neardup::dataset

#endif  // NEARDUP_DATASET_CSV_RECORD_H_
