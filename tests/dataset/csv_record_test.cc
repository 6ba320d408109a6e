#include "neardup/dataset/csv_record.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/status_matchers.h"

namespace neardup::dataset {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Fields(std::string_view record, char delimiter = ',') {
  CsvFields fields;
  absl::Status status = ParseCsvRecord(record, delimiter, &fields);
  EXPECT_OK(status);
  return {fields.values.begin(), fields.values.begin() + fields.count};
}

TEST(CsvRecord, PlainAndQuotedFields) {
  EXPECT_THAT(Fields("a,b,c\n"), ElementsAre("a", "b", "c"));
  EXPECT_THAT(Fields("a,,c\r\n"), ElementsAre("a", "", "c"));
  EXPECT_THAT(Fields("1,\"x, y\",\"say \"\"hi\"\"\"\n"),
              ElementsAre("1", "x, y", "say \"hi\""));
  EXPECT_THAT(Fields("a,b,"), ElementsAre("a", "b", ""));
}

TEST(CsvRecord, QuotedNewlinesStayInTheField) {
  EXPECT_THAT(Fields("7,\"line one\nline two\r\nthree\",end\n"),
              ElementsAre("7", "line one\nline two\r\nthree", "end"));
}

TEST(CsvRecord, TabDelimited) {
  EXPECT_THAT(Fields("a\t\"b\tc\"\td\n", '\t'), ElementsAre("a", "b\tc", "d"));
}

TEST(CsvRecord, RawSpansCoverQuotes) {
  CsvFields fields;
  ASSERT_OK(ParseCsvRecord("x,\"q,q\",z\n", ',', &fields));
  ASSERT_EQ(fields.count, 3u);
  EXPECT_EQ(fields.raw_spans[1], std::make_pair(size_t{2}, size_t{7}));
}

TEST(CsvRecord, MalformedQuotesAreErrors) {
  CsvFields fields;
  EXPECT_THAT(ParseCsvRecord("a,\"open\n", ',', &fields).message(),
              HasSubstr("unterminated quoted field 2"));
  EXPECT_THAT(ParseCsvRecord("\"a\"b,c\n", ',', &fields).message(),
              HasSubstr("after the closing quote of field 1"));
}

TEST(CsvRecord, AppendQuotesOnlyWhenNeeded) {
  std::string out;
  AppendCsvField("plain", ',', &out);
  out += ',';
  AppendCsvField("has, comma and \"quote\"\nnewline", ',', &out);
  EXPECT_EQ(out, "plain,\"has, comma and \"\"quote\"\"\nnewline\"");
  EXPECT_THAT(Fields(out),
              ElementsAre("plain", "has, comma and \"quote\"\nnewline"));
}

}  // namespace
}  // namespace neardup::dataset
