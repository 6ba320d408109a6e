// Fuzzes the dataset readers shared by `neardup ingest` and `dedup`: the
// record reader (JSONL/CSV/TSV/TXT framing), CSV fields, text extraction
// and the JSON field rewrite of suffix-array dedup. Checks, beyond "no
// crash and no sanitizer report":
//  - the records of a file put back together are the file (minus a leading
//    byte order mark and, outside TXT, blank lines);
//  - CSV: a record written with AppendCsvField parses back to its fields;
//  - a rewritten JSON string field extracts as the value written into it.

#include <fuzzer/FuzzedDataProvider.h>
#include <simdjson.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "neardup/dataset/csv_record.h"
#include "neardup/dataset/input_format.h"
#include "neardup/dataset/json_string_field.h"
#include "neardup/dataset/record_reader.h"
#include "neardup/dataset/text_extractor.h"

namespace {

using namespace neardup::dataset;

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "dataset_fuzz: %s\n", what);
    std::abort();
  }
}

std::string TempPath() {
  static const std::string path = [] {
    char name[] = "/tmp/dataset_fuzz_XXXXXX";
    const int fd = mkstemp(name);
    Check(fd >= 0, "mkstemp");
    close(fd);
    return std::string(name);
  }();
  return path;
}

void FuzzRecordReader(const std::string& bytes, Format format,
                      uint64_t max_record_bytes) {
  const std::string path = TempPath();
  FILE* file = std::fopen(path.c_str(), "wb");
  Check(file != nullptr, "fopen");
  std::fwrite(bytes.data(), 1, bytes.size(), file);
  std::fclose(file);
  auto reader = RecordReader::Open(path, format, false, max_record_bytes);
  Check(reader.ok(), "open");
  std::string joined;
  RawRecord record;
  ExtractScratch scratch;
  const TextExtractor text = format == Format::kJsonl
                                 ? TextExtractor::ForJsonl("text")
                                 : TextExtractor::ForTxt(false);
  while (true) {
    absl::StatusOr<bool> got = (*reader)->Next(&record);
    if (!got.ok()) return;  // an over-long record: a clean error
    if (!*got) break;
    // The limit is on the content: a line terminator does not count.
    std::string_view content = record.bytes;
    if (content.ends_with('\n')) content.remove_suffix(1);
    if (content.ends_with('\r')) content.remove_suffix(1);
    Check(content.size() <= max_record_bytes, "record over the limit");
    joined.append(record.bytes);
    std::string padded(record.bytes);
    padded.append(ExtractPadding(), '\0');
    (void)text.Extract(std::string_view(padded.data(), record.bytes.size()),
                       &scratch);
  }
  std::string_view expected = bytes;
  if (expected.starts_with("\xEF\xBB\xBF")) expected.remove_prefix(3);
  // TXT keeps blank lines, so its records are the whole file; JSONL and
  // CSV/TSV skip blank ones.
  if (format == Format::kTxt) {
    Check(joined == expected, "records do not add up to the file");
  } else {
    Check(joined.size() <= expected.size(), "records longer than the file");
  }
}

void FuzzCsv(FuzzedDataProvider& in) {
  const char delimiter = in.ConsumeBool() ? ',' : '\t';
  std::vector<std::string> values;
  std::string record;
  const int n = in.ConsumeIntegralInRange(1, 8);
  for (int i = 0; i < n; ++i) {
    values.push_back(in.ConsumeRandomLengthString(64));
    if (i) record.push_back(delimiter);
    AppendCsvField(values.back(), delimiter, &record);
  }
  record.push_back('\n');
  CsvFields fields;
  Check(ParseCsvRecord(record, delimiter, &fields).ok(), "own CSV refused");
  Check(fields.count == values.size(), "field count");
  for (size_t i = 0; i < values.size(); ++i) {
    Check(fields.values[i] == values[i], "field value");
  }
  // Arbitrary bytes: an error or fields, never a crash.
  (void)ParseCsvRecord(in.ConsumeRandomLengthString(256), delimiter, &fields);
}

void FuzzJsonField(FuzzedDataProvider& in) {
  const std::string value = in.ConsumeRandomLengthString(64);
  const std::string record = in.ConsumeRandomLengthString(512);
  auto rewritten = ReplaceJsonStringField(record, "text", value);
  if (!rewritten.ok()) return;
  if (!simdjson::validate_utf8(value.data(), value.size())) return;
  std::string padded = *rewritten;
  padded.append(ExtractPadding(), '\0');
  ExtractScratch scratch;
  auto text = TextExtractor::ForJsonl("text").Extract(
      std::string_view(padded.data(), rewritten->size()), &scratch);
  // The rest of the record may still be malformed JSON; when it is not,
  // the field holds exactly what was written.
  if (text.ok()) Check(*text == value, "rewritten field reads back wrong");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  switch (in.ConsumeIntegralInRange(0, 4)) {
    case 0:
      FuzzCsv(in);
      break;
    case 1:
      FuzzJsonField(in);
      break;
    default: {
      const Format formats[] = {Format::kJsonl, Format::kCsv, Format::kTsv,
                                Format::kTxt};
      const Format format = formats[in.ConsumeIntegralInRange(0, 3)];
      const uint64_t limit = in.ConsumeIntegralInRange<uint64_t>(1, 1 << 16);
      FuzzRecordReader(in.ConsumeRemainingBytesAsString(), format, limit);
    }
  }
  return 0;
}
