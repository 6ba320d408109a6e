#include "neardup/dataset/text_extractor.h"

#include <simdjson.h>

#include "absl/strings/str_cat.h"
#include "neardup/dataset/csv_record.h"

namespace neardup::dataset {

struct ExtractScratch::Impl {
  simdjson::dom::parser json;
  CsvFields csv;
};

ExtractScratch::ExtractScratch() : impl_(std::make_unique<Impl>()) {}
ExtractScratch::~ExtractScratch() = default;

size_t ExtractPadding() { return simdjson::SIMDJSON_PADDING; }

TextExtractor TextExtractor::ForJsonl(std::string field) {
  TextExtractor e;
  e.format_ = Format::kJsonl;
  e.field_ = std::move(field);
  return e;
}

absl::StatusOr<TextExtractor> TextExtractor::ForCsv(std::string_view header,
                                                    char delimiter,
                                                    const std::string& field) {
  CsvFields fields;
  absl::Status parsed = ParseCsvRecord(header, delimiter, &fields);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad header: ", parsed.message()));
  }
  TextExtractor e;
  e.format_ = delimiter == '\t' ? Format::kTsv : Format::kCsv;
  e.field_ = field;
  e.delimiter_ = delimiter;
  e.num_columns_ = fields.count;
  for (size_t i = 0; i < fields.count; ++i) {
    if (fields.values[i] == field) {
      e.column_ = i;
      return e;
    }
  }
  std::string names;
  for (size_t i = 0; i < fields.count; ++i) {
    absl::StrAppend(&names, i ? ", " : "", "\"", fields.values[i], "\"");
  }
  return absl::InvalidArgumentError(
      absl::StrCat("no column \"", field, "\" in the header (columns: ", names,
                   "); pick one with --field"));
}

TextExtractor TextExtractor::ForTxt(bool whole_file) {
  TextExtractor e;
  e.format_ = Format::kTxt;
  e.whole_file_ = whole_file;
  return e;
}

absl::StatusOr<std::string_view> TextExtractor::Extract(
    std::string_view record, ExtractScratch* scratch) const {
  switch (format_) {
    case Format::kJsonl: {
      simdjson::dom::element doc;
      simdjson::error_code error =
          scratch->impl()
              .json
              .parse(record.data(), record.size(), /*realloc_if_needed=*/false)
              .get(doc);
      if (error) {
        return absl::InvalidArgumentError(
            absl::StrCat("malformed JSON: ", simdjson::error_message(error)));
      }
      simdjson::dom::object object;
      if (doc.get_object().get(object)) {
        return absl::InvalidArgumentError("the JSON value is not an object");
      }
      simdjson::dom::element value;
      if (object.at_key(field_).get(value)) {
        return absl::InvalidArgumentError(
            absl::StrCat("no field \"", field_, "\""));
      }
      std::string_view text;
      if (value.get_string().get(text)) {
        return absl::InvalidArgumentError(
            absl::StrCat("field \"", field_, "\" is not a string"));
      }
      return text;
    }
    case Format::kCsv:
    case Format::kTsv: {
      CsvFields& fields = scratch->impl().csv;
      absl::Status parsed = ParseCsvRecord(record, delimiter_, &fields);
      if (!parsed.ok()) return parsed;
      if (fields.count != num_columns_) {
        return absl::InvalidArgumentError(absl::StrCat(
            "expected ", num_columns_, " fields, found ", fields.count));
      }
      return std::string_view(fields.values[column_]);
    }
    case Format::kTxt:
    case Format::kAuto:
      if (!whole_file_) {
        if (!record.empty() && record.back() == '\n') record.remove_suffix(1);
        if (!record.empty() && record.back() == '\r') record.remove_suffix(1);
      }
      return record;
  }
  return absl::InternalError("unknown format");
}

}  // namespace neardup::dataset
