#include "neardup/dataset/record_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace neardup::dataset {
namespace {

using ::neardup::testing::TempDir;

struct Read {
  std::string bytes;
  uint64_t line;
  bool operator==(const Read&) const = default;
};

void PrintTo(const Read& r, std::ostream* os) {
  *os << "{line " << r.line << ": \"" << r.bytes << "\"}";
}

std::vector<Read> ReadAll(const std::string& path, Format format,
                          bool whole_file = false) {
  auto reader = RecordReader::Open(path, format, whole_file);
  EXPECT_OK(reader);
  std::vector<Read> out;
  RawRecord record;
  while (true) {
    absl::StatusOr<bool> got = (*reader)->Next(&record);
    EXPECT_OK(got);
    if (!got.ok() || !*got) break;
    out.push_back({std::string(record.bytes), record.line});
  }
  return out;
}

// The buffer stops growing at the limit: a newline-free input is an error,
// not a read of the whole stream into memory.
TEST(RecordReader, RecordLongerThanTheLimitFailsNamingTheLine) {
  TempDir dir;
  const std::string path = dir.Write(
      "long.jsonl", "{\"text\":\"short\"}\n" + std::string(3 << 20, 'x'));
  auto reader = RecordReader::Open(path, Format::kJsonl, false, 1 << 20);
  ASSERT_OK(reader);
  RawRecord record;
  ASSERT_TRUE(*(*reader)->Next(&record));
  const absl::StatusOr<bool> got = (*reader)->Next(&record);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(got.status().message(), ::testing::HasSubstr("line 2"));
  // Also when the whole over-long line arrived in one read.
  const std::string line =
      dir.Write("line.txt", "ok\n" + std::string(5000, 'z') + "\n");
  auto lines = RecordReader::Open(line, Format::kTxt, false, 1000);
  ASSERT_TRUE(lines.ok());
  ASSERT_TRUE(*(*lines)->Next(&record));
  EXPECT_EQ((*lines)->Next(&record).status().code(),
            absl::StatusCode::kInvalidArgument);
  // The terminator does not count: a 1000-byte line ending in CRLF fits.
  const std::string crlf =
      dir.Write("crlf.txt", std::string(1000, 'w') + "\r\n" + "next\n");
  auto at_limit = RecordReader::Open(crlf, Format::kTxt, false, 1000);
  ASSERT_TRUE(at_limit.ok());
  ASSERT_TRUE(*(*at_limit)->Next(&record));
  EXPECT_EQ(record.bytes.size(), 1002u);
  // Exactly at the limit is still a record.
  const std::string fits = dir.Write("fits.txt", std::string(1 << 20, 'y'));
  auto ok = RecordReader::Open(fits, Format::kTxt, false, 1 << 20);
  ASSERT_OK(ok);
  EXPECT_TRUE(*(*ok)->Next(&record));
}

TEST(RecordReader, JsonlLinesSkipBlanksAndKeepTerminators) {
  TempDir dir;
  const std::string path =
      dir.Write("a.jsonl", "\xEF\xBB\xBF{\"a\":1}\r\n\n  \n{\"b\":2}");
  EXPECT_THAT(
      ReadAll(path, Format::kJsonl),
      ::testing::ElementsAre(Read{"{\"a\":1}\r\n", 1}, Read{"{\"b\":2}", 4}));
}

TEST(RecordReader, TxtBlankLinesAreDocuments) {
  TempDir dir;
  const std::string path = dir.Write("a.txt", "one\n\nthree\n");
  EXPECT_THAT(ReadAll(path, Format::kTxt),
              ::testing::ElementsAre(Read{"one\n", 1}, Read{"\n", 2},
                                     Read{"three\n", 3}));
}

TEST(RecordReader, CsvRecordsSpanQuotedNewlines) {
  TempDir dir;
  const std::string path = dir.Write(
      "a.csv", "id,text\n1,\"two\nlines\"\n2,\"a \"\"q\"\"\n\"\n3,plain");
  EXPECT_THAT(ReadAll(path, Format::kCsv),
              ::testing::ElementsAre(
                  Read{"id,text\n", 1}, Read{"1,\"two\nlines\"\n", 2},
                  Read{"2,\"a \"\"q\"\"\n\"\n", 4}, Read{"3,plain", 6}));
}

TEST(RecordReader, RecordsLongerThanOneReadChunk) {
  TempDir dir;
  const std::string big(3 << 20, 'x');  // spans several 1 MiB reads
  const std::string path = dir.Write(
      "big.csv", "id,text\n1,\"" + big + "\n" + big + "\"\n2,short\n");
  const std::vector<Read> records = ReadAll(path, Format::kCsv);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[1].bytes.size(), 2 * big.size() + 6);
  EXPECT_EQ(records[2], (Read{"2,short\n", 4}));
}

TEST(RecordReader, JsonlRecordsAcrossManyReadsKeepBytesAndLines) {
  // ~5 MiB of lines of varied length (one longer than a read chunk, blank
  // lines between some): every record comes back whole, with its line.
  TempDir dir;
  std::string file;
  std::vector<Read> expected;
  uint64_t line = 1;
  for (int i = 0; i < 6000; ++i) {
    const size_t width = i == 2500 ? (3 << 19) : 100 + (i * 7919) % 1500;
    const std::string record = "{\"i\":" + std::to_string(i) + ",\"t\":\"" +
                               std::string(width, 'a' + i % 26) + "\"}\n";
    file += record;
    expected.push_back({record, line++});
    if (i % 97 == 0) {
      file += "\n";
      ++line;
    }
  }
  EXPECT_EQ(ReadAll(dir.Write("many.jsonl", file), Format::kJsonl), expected);
}

TEST(RecordReader, WholeFileIsOneRecord) {
  TempDir dir;
  EXPECT_THAT(ReadAll(dir.Write("d.txt", "a\nb\n"), Format::kTxt, true),
              ::testing::ElementsAre(Read{"a\nb\n", 1}));
  EXPECT_THAT(ReadAll(dir.Write("e.txt", ""), Format::kTxt, true),
              ::testing::ElementsAre(Read{"", 1}));
}

TEST(RecordReader, MissingFileNamesIt) {
  auto reader = RecordReader::Open("/no/such/file.jsonl", Format::kJsonl);
  ASSERT_FALSE(reader.ok());
  EXPECT_THAT(reader.status().message(),
              ::testing::HasSubstr("/no/such/file.jsonl"));
}

}  // namespace
}  // namespace neardup::dataset
