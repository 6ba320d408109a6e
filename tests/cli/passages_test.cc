#include "neardup/cli/internal/passages.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

namespace neardup::cli {
namespace {

using ::testing::HasSubstr;

TEST(Passages, HighlightMarksAndMergesRanges) {
  EXPECT_EQ(Highlight("one two three four", {{4, 7}, {14, 18}}, false),
            "one [[two]] three [[four]]");
  EXPECT_EQ(Highlight("one two three", {{0, 7}, {4, 13}}, false),
            "[[one two three]]");
  EXPECT_EQ(Highlight("one two", {{4, 7}}, true), "one \x1b[7mtwo\x1b[0m");
  EXPECT_EQ(Highlight("one two", {}, false), "one two");
  // Cut at a character boundary, never inside one.
  EXPECT_EQ(Highlight("caf\xc3\xa9 au lait", {}, false, 4), "caf ...");
  EXPECT_EQ(Highlight("abcdef", {{2, 100}}, false, 4), "ab[[cd]] ...");
}

TEST(Passages, LinesShowRangesWordsAndText) {
  std::ostringstream out;
  PrintPassageLines("the quick brown fox", {{{4, 15}, {0, 11}, 2}}, out);
  EXPECT_EQ(out.str(), "  a[4,15) b[0,11)  2 words  \"quick brown\"\n");
  std::ostringstream multiline;
  PrintPassageLines("one\ntwo\tthree", {{{0, 13}, {0, 13}, 3}}, multiline);
  EXPECT_EQ(multiline.str(), "  a[0,13) b[0,13)  3 words  \"one two three\"\n");
  std::ostringstream bad;
  PrintPassageLines("short", {{{0, 99}, {0, 99}, 9}}, bad);  // out of range
  EXPECT_THAT(bad.str(), HasSubstr("9 words  \"\""));
}

}  // namespace
}  // namespace neardup::cli
