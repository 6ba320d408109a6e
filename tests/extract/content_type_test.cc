#include "neardup/extract/content_type.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/status_matchers.h"

namespace neardup::extract {
namespace {

using ::testing::HasSubstr;

TEST(ContentType, ParsesTheFourTypesWithParameters) {
  EXPECT_EQ(*ParseContentType(""), ContentType::kPlainText);
  EXPECT_EQ(*ParseContentType("text/plain; charset=utf-8"),
            ContentType::kPlainText);
  EXPECT_EQ(*ParseContentType("Text/HTML;charset=\"UTF-8\""),
            ContentType::kHtml);
  EXPECT_EQ(*ParseContentType("text/x-markdown"), ContentType::kMarkdown);
  EXPECT_EQ(*ParseContentType("application/pdf"), ContentType::kPdf);
  for (ContentType type : {ContentType::kPlainText, ContentType::kHtml,
                           ContentType::kMarkdown, ContentType::kPdf}) {
    EXPECT_EQ(*ParseContentType(ContentTypeName(type)), type);
  }
}

TEST(ContentType, RefusesOtherTypesAndCharsets) {
  const absl::Status other = ParseContentType("image/png").status();
  EXPECT_EQ(other.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(other.message(), HasSubstr("text/markdown"));
  const absl::Status latin1 =
      ParseContentType("text/html; charset=iso-8859-1").status();
  EXPECT_THAT(latin1.message(), HasSubstr("send UTF-8"));
}

TEST(ContentType, FromTheFileExtension) {
  EXPECT_EQ(ContentTypeOfPath("a/b/page.HTM"), ContentType::kHtml);
  EXPECT_EQ(ContentTypeOfPath("notes.markdown"), ContentType::kMarkdown);
  EXPECT_EQ(ContentTypeOfPath("paper.pdf"), ContentType::kPdf);
  EXPECT_EQ(ContentTypeOfPath("x.txt"), ContentType::kPlainText);
  EXPECT_EQ(ContentTypeOfPath("dir.md/file"), std::nullopt);
  EXPECT_EQ(ContentTypeOfPath("data.jsonl"), std::nullopt);
}

}  // namespace
}  // namespace neardup::extract
