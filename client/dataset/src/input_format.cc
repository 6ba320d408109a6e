#include "neardup/dataset/input_format.h"

#include <algorithm>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"

namespace neardup::dataset {
namespace {

std::string LowerExtension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return ext;
}

}  // namespace

absl::StatusOr<Format> ParseFormatName(std::string_view name) {
  if (name == "auto") return Format::kAuto;
  if (name == "jsonl" || name == "json" || name == "ndjson") {
    return Format::kJsonl;
  }
  if (name == "csv") return Format::kCsv;
  if (name == "tsv") return Format::kTsv;
  if (name == "txt" || name == "text") return Format::kTxt;
  if (name == "parquet") {
    return absl::InvalidArgumentError(
        "Parquet is not supported: Apache Arrow is not packaged for this "
        "system. Convert it to JSON Lines first, e.g. with pandas: "
        "python3 -c \"import pandas as p; p.read_parquet('in.parquet')"
        ".to_json('in.jsonl', orient='records', lines=True, "
        "force_ascii=False)\" or DuckDB: duckdb -c \"COPY 'in.parquet' TO "
        "'in.jsonl' (FORMAT JSON)\"");
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--format must be auto, jsonl, csv, tsv or txt (got \"",
                   AbslView(name), "\")"));
}

const char* FormatName(Format format) {
  switch (format) {
    case Format::kAuto:
      return "auto";
    case Format::kJsonl:
      return "jsonl";
    case Format::kCsv:
      return "csv";
    case Format::kTsv:
      return "tsv";
    case Format::kTxt:
      return "txt";
  }
  return "?";
}

absl::StatusOr<Format> ResolveFormat(const std::string& path,
                                     Format requested) {
  if (requested != Format::kAuto) return requested;
  const std::string ext = LowerExtension(path);
  if (ext == ".jsonl" || ext == ".ndjson" || ext == ".json") {
    return Format::kJsonl;
  }
  if (ext == ".csv") return Format::kCsv;
  if (ext == ".tsv" || ext == ".tab") return Format::kTsv;
  if (ext == ".txt" || ext == ".text") return Format::kTxt;
  if (ext == ".parquet" || ext == ".pq") {
    return Prefixed(path, ParseFormatName("parquet").status());
  }
  if (ext == ".gz" || ext == ".zst" || ext == ".bz2" || ext == ".xz") {
    return absl::InvalidArgumentError(absl::StrCat(
        path,
        ": compressed input is not read directly; decompress it and "
        "pipe it in, e.g. zcat FILE | neardup dedup --stream --format "
        "jsonl"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": cannot tell the format from the extension \"", ext,
                   "\"; pass --format jsonl|csv|tsv|txt"));
}

}  // namespace neardup::dataset
