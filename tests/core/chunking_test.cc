#include "neardup/core/chunking.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "support/status_matchers.h"

namespace neardup {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<std::string> Chunks(std::string_view text, ChunkMode mode,
                                int max_tokens, int overlap = 0) {
  const ChunkingOptions options{mode, max_tokens, overlap};
  EXPECT_OK(ValidateChunking(options));
  std::vector<std::string> out;
  for (const ByteRange& r : ChunkText(text, options)) {
    out.emplace_back(text.substr(r.begin, r.end - r.begin));
  }
  return out;
}

TEST(Chunking, FixedWindowsOverlap) {
  EXPECT_THAT(Chunks("a b c d e f g", ChunkMode::kFixedTokens, 3, 1),
              ElementsAre("a b c", "c d e", "e f g"));
  EXPECT_THAT(Chunks("  a\tb\n", ChunkMode::kFixedTokens, 4, 2),
              ElementsAre("a\tb"));
  EXPECT_THAT(Chunks(" \n\t ", ChunkMode::kFixedTokens, 3), IsEmpty());
}

TEST(Chunking, SentencesArePackedWholeAndLongOnesCut) {
  const std::string text =
      "One two three. Four five? \"Six seven!\" Eight nine ten eleven twelve "
      "thirteen. End";
  EXPECT_THAT(Chunks(text, ChunkMode::kSentenceBounded, 5),
              ElementsAre("One two three. Four five?", "\"Six seven!\"",
                          "Eight nine ten eleven twelve", "thirteen.", "End"));
  // CJK full stops end sentences too (words are whitespace-separated).
  EXPECT_THAT(Chunks("甲 乙。 丙 丁！ 戊", ChunkMode::kSentenceBounded, 2),
              ElementsAre("甲 乙。", "丙 丁！", "戊"));
}

TEST(Chunking, RecursiveKeepsParagraphsThenSentences) {
  const std::string text = "p1 a b.\n\np2 c d.\n\np3 e f. g h i j k l m.\n\np4";
  EXPECT_THAT(
      Chunks(text, ChunkMode::kRecursive, 6),
      ElementsAre("p1 a b.\n\np2 c d.", "p3 e f.", "g h i j k l", "m.", "p4"));
  // A blank line ends a sentence even without punctuation.
  EXPECT_THAT(Chunks("a b\n\nc d", ChunkMode::kSentenceBounded, 3),
              ElementsAre("a b", "c d"));
}

TEST(Chunking, EveryWordIsCoveredInOrder) {
  std::string text;
  for (int i = 0; i < 500; ++i) {
    absl::StrAppend(&text, "w", i, (i % 7 == 6 ? ". " : " "),
                    (i % 41 == 40 ? "\n\n" : ""));
  }
  for (ChunkMode mode : {ChunkMode::kFixedTokens, ChunkMode::kSentenceBounded,
                         ChunkMode::kRecursive}) {
    const auto chunks = ChunkText(text, {mode, 16, 0});
    ASSERT_FALSE(chunks.empty());
    size_t words = 0, at = 0;
    for (const ByteRange& r : chunks) {
      EXPECT_GE(r.begin, at);
      at = r.end;
      std::string_view chunk(text.data() + r.begin, r.end - r.begin);
      size_t in_chunk = 0;
      for (size_t i = 0; i < chunk.size(); ++i) {
        in_chunk += chunk[i] == 'w';
      }
      EXPECT_LE(in_chunk, 16u) << ChunkModeName(mode);
      words += in_chunk;
    }
    EXPECT_EQ(words, 500u) << ChunkModeName(mode);
  }
}

TEST(Chunking, OptionsAndNames) {
  EXPECT_FALSE(ValidateChunking({ChunkMode::kFixedTokens, 0, 0}).ok());
  EXPECT_FALSE(ValidateChunking({ChunkMode::kFixedTokens, 8, 5}).ok());
  EXPECT_OK(ValidateChunking({ChunkMode::kFixedTokens, 8, 4}));
  EXPECT_EQ(DefaultChunkOverlap(256), 32);
  EXPECT_EQ(DefaultChunkOverlap(16), 4);
  EXPECT_EQ(DefaultChunkOverlap(1), 0);
  EXPECT_FALSE(ValidateChunking({ChunkMode::kFixedTokens, 8, -1}).ok());
  for (ChunkMode mode : {ChunkMode::kFixedTokens, ChunkMode::kSentenceBounded,
                         ChunkMode::kRecursive}) {
    ASSERT_OK_AND_ASSIGN(const ChunkMode parsed,
                         ParseChunkMode(ChunkModeName(mode)));
    EXPECT_EQ(parsed, mode);
  }
  EXPECT_FALSE(ParseChunkMode("words").ok());
}

}  // namespace
}  // namespace neardup
