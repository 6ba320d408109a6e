#include "neardup/extract/markdown.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "support/status_matchers.h"

namespace neardup::extract {
namespace {

std::string Text(std::string_view markdown, MarkdownOptions options = {}) {
  absl::StatusOr<std::string> text = MarkdownToText(markdown, options);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

TEST(Markdown, DropsSyntaxKeepsText) {
  EXPECT_EQ(Text("# Title\n\nSome *emph*, **strong**, ~~gone~~ and "
                 "[a link](http://example.com \"t\") with ![an image](i.png) "
                 "and `code`.\nSoft break.\n"),
            "Title\n\nSome emph, strong, gone and a link with an image and "
            "code. Soft break.");
}

TEST(Markdown, NestedListsAndQuotes) {
  EXPECT_EQ(Text("- one\n- two\n  - two.a\n  - two.b\n\n1. first\n\n"
                 "> quoted\n> text\n"),
            "one\ntwo\n\ntwo.a\ntwo.b\n\nfirst\n\nquoted text");
}

TEST(Markdown, CodeBlocksKeptOrDropped) {
  const std::string doc =
      "Before.\n\n```python\ndef f():\n    return 1\n```\n\n    indented "
      "code\n\nAfter.\n";
  EXPECT_EQ(Text(doc),
            "Before.\n\ndef f():\n    return 1\n\nindented code\n\nAfter.");
  EXPECT_EQ(Text(doc, {.keep_code_blocks = false}), "Before.\n\nAfter.");
}

TEST(Markdown, TablesEntitiesAndHtml) {
  EXPECT_EQ(Text("| k | v |\n|---|---|\n| a | 1 |\n"), "k v\na 1");
  EXPECT_EQ(Text("Fish &amp; chips &copy; &#65;\n"), "Fish & chips © A");
  EXPECT_EQ(Text("<div>\n<b>bold</b> block\n</div>\n\ntext <i>inline</i>\n"),
            "bold block\n\ntext inline");
}

TEST(Markdown, InvalidUtf8BecomesReplacementCharacters) {
  EXPECT_EQ(Text(std::string("a\xff"
                             "b",
                             3)),
            "a\uFFFDb");
}

TEST(Markdown, DeepNestingIsFine) {
  std::string quotes(100000, '>');
  EXPECT_EQ(Text(quotes + " deep\n"), "deep");
  std::string brackets(100000, '[');
  EXPECT_EQ(Text(brackets).size(), 100000u);
}

// Empty code blocks in a row once made every block rescan the line breaks
// before it.
TEST(Markdown, ManyEmptyCodeBlocksStayLinear) {
  std::string doc;
  for (int i = 0; i < 300000; ++i) doc += "~~~\n\n~~~\n";
  ASSERT_OK_AND_ASSIGN(const std::string text, MarkdownToText(doc));
  EXPECT_EQ(text.find_first_not_of('\n'), std::string::npos);
}

}  // namespace
}  // namespace neardup::extract
