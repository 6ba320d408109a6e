#include "neardup/dedup/internal/repeated_spans.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/status_matchers.h"

namespace neardup::dedup {
namespace {

std::string Corpus(const std::vector<std::string>& docs) {
  std::string corpus;
  for (const std::string& d : docs) corpus += d + kDocSeparator;
  return corpus;
}

const std::string kShared =
    "this passage of text is repeated word for word in two documents";

TEST(RepeatedSpans, LaterCopyIsReportedWithItsFirstOccurrence) {
  const std::string a = "AAAA\n" + kShared + "\nZZZZ";
  const std::string b = "BBBB\t" + kShared + "\tYYYY";
  const std::string corpus = Corpus({a, b});
  auto spans = FindRepeatedSpans(corpus, 20);
  ASSERT_OK(spans);
  ASSERT_EQ(spans->size(), 1u);
  const RepeatedSpan& s = spans->front();
  const uint64_t b_start = a.size() + 1;
  EXPECT_EQ(corpus.substr(s.begin, s.end - s.begin), kShared);
  EXPECT_EQ(s.begin, b_start + 5);
  EXPECT_EQ(s.first, 5u);
  EXPECT_LT(s.first, b_start);
}

TEST(RepeatedSpans, ShortRepeatsAndSeparatorsDoNotCount) {
  // "end|start" across the boundary repeats, but never as one span.
  const std::string corpus =
      Corpus({"unique one tail", "head two tail", "head three"});
  auto spans = FindRepeatedSpans(corpus, 8);
  ASSERT_OK(spans);
  EXPECT_TRUE(spans->empty());
}

TEST(RepeatedSpans, CutsWholeUtf8Characters) {
  // The repeat starts in the middle of "é" (2 bytes) in the second copy.
  const std::string shared = "\xC3\xA9t\xC3\xA9 " + kShared;
  const std::string corpus = Corpus({"x" + shared, "y" + shared});
  auto spans = FindRepeatedSpans(corpus, 20);
  ASSERT_OK(spans);
  ASSERT_EQ(spans->size(), 1u);
  const RepeatedSpan& s = spans->front();
  EXPECT_NE(static_cast<unsigned char>(corpus[s.begin]) & 0xC0, 0x80u);
  EXPECT_EQ(corpus.substr(s.begin, s.end - s.begin), shared);
}

TEST(RepeatedSpans, EveryCopyAfterTheFirstIsCut) {
  const std::string corpus = Corpus({kShared, kShared, kShared});
  auto spans = FindRepeatedSpans(corpus, 30);
  ASSERT_OK(spans);
  ASSERT_EQ(spans->size(), 2u);
  for (const RepeatedSpan& s : *spans) {
    EXPECT_EQ(s.end - s.begin, kShared.size());
    EXPECT_EQ(s.first, 0u);
  }
}

}  // namespace
}  // namespace neardup::dedup
