#include "neardup/dataset/csv_record.h"

#include "absl/strings/str_cat.h"

namespace neardup::dataset {
namespace {

std::string_view StripTerminator(std::string_view record) {
  if (!record.empty() && record.back() == '\n') record.remove_suffix(1);
  if (!record.empty() && record.back() == '\r') record.remove_suffix(1);
  return record;
}

}  // namespace

absl::Status ParseCsvRecord(std::string_view record, char delimiter,
                            CsvFields* fields) {
  record = StripTerminator(record);
  fields->count = 0;
  size_t i = 0;
  while (true) {
    if (fields->values.size() <= fields->count) {
      fields->values.emplace_back();
      fields->raw_spans.emplace_back();
    }
    std::string& value = fields->values[fields->count];
    value.clear();
    const size_t begin = i;
    if (i < record.size() && record[i] == '"') {
      ++i;
      while (true) {
        const size_t quote = record.find('"', i);
        if (quote == std::string_view::npos) {
          return absl::InvalidArgumentError(
              absl::StrCat("unterminated quoted field ", fields->count + 1));
        }
        value.append(record.substr(i, quote - i));
        i = quote + 1;
        if (i < record.size() && record[i] == '"') {
          value.push_back('"');
          ++i;
          continue;
        }
        break;
      }
      if (i < record.size() && record[i] != delimiter) {
        return absl::InvalidArgumentError(
            absl::StrCat("unexpected text after the closing quote of field ",
                         fields->count + 1));
      }
    } else {
      size_t end = record.find(delimiter, i);
      if (end == std::string_view::npos) end = record.size();
      value.assign(record.substr(i, end - i));
      i = end;
    }
    fields->raw_spans[fields->count] = {begin, i};
    ++fields->count;
    if (i >= record.size()) return absl::OkStatus();
    ++i;  // the delimiter
  }
}

void AppendCsvField(std::string_view value, char delimiter, std::string* out) {
  const bool needs_quotes =
      value.find_first_of(std::string{delimiter, '"', '\r', '\n'}) !=
      std::string_view::npos;
  if (!needs_quotes) {
    out->append(value);
    return;
  }
  out->push_back('"');
  for (char c : value) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

}  // namespace neardup::dataset
