#include "neardup/extract/html.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "support/status_matchers.h"

namespace neardup::extract {
namespace {

std::string Text(std::string_view html) {
  absl::StatusOr<std::string> text = HtmlToText(html);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

TEST(Html, DropsScriptStyleTemplateNoscriptAndComments) {
  EXPECT_EQ(Text("<html><head><title>The title</title>"
                 "<style>p { color: red }</style>"
                 "<script>var hidden = 1;</script></head>"
                 "<body><script>alert('x')</script><p>Shown</p>"
                 "<template><p>template text</p></template>"
                 "<noscript>enable scripts</noscript>"
                 "<!-- a comment --></body></html>"),
            "The title\n\nShown");
}

TEST(Html, DecodesEntities) {
  EXPECT_EQ(Text("<p>Fish &amp; chips &lt;3 &eacute;t&eacute; &#x41;&#66; "
                 "&copy;&nbsp;2024</p>"),
            "Fish & chips <3 été AB ©\u00a02024");
}

TEST(Html, BlocksOnTheirOwnLinesInlinesFlow) {
  EXPECT_EQ(Text("<h1>Head</h1><p>one <b>bo</b>ld <a href=x>link</a></p>"
                 "<div>a</div><div>b<br>c</div><p>last</p>"),
            "Head\n\none bold link\n\na\nb\nc\n\nlast");
}

TEST(Html, NestedListsAndTables) {
  EXPECT_EQ(Text("<ul><li>one</li><li>two<ul><li>two.a</li><li>two.b</li>"
                 "</ul></li></ul><ol><li>x</li></ol>"),
            "one\ntwo\n\ntwo.a\ntwo.b\n\nx");
  EXPECT_EQ(Text("<table><tr><th>k</th><th>v</th></tr>"
                 "<tr><td>a</td><td>1</td></tr></table>after"),
            "k v\na 1\n\nafter");
}

TEST(Html, WhitespaceCollapsesExceptInPre) {
  EXPECT_EQ(Text("<p>  many \n\t spaces  </p><pre>  keep\n    this</pre>"),
            "many spaces\n\n  keep\n    this");
}

TEST(Html, BrokenMarkupParsesAsBrowsersDo) {
  EXPECT_EQ(Text("<p>unclosed <b>bold <i>both</p>next"),
            "unclosed bold both\n\nnext");
  EXPECT_EQ(Text("plain text, no tags"), "plain text, no tags");
  EXPECT_EQ(Text(""), "");
}

TEST(Html, InvalidUtf8AndNulBecomeReplacementCharacters) {
  EXPECT_EQ(Text(std::string("a\xff"
                             "b",
                             3)),
            "a\uFFFDb");
  // NUL in body text is dropped by the HTML5 tree builder.
  EXPECT_EQ(Text(std::string("<p>x\0y</p>", 11)), "xy");
}

std::string Repeated(std::string_view piece, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += piece;
  return out;
}

// Parsing time grows with depth times tags (and freeing gumbo's tree took
// one stack frame per level): deep documents are refused before parsing.
TEST(Html, DeepNestingIsRefusedBeforeParsing) {
  EXPECT_EQ(Text(Repeated("<div>", kMaxHtmlDepth - 10) + "deep"), "deep");
  for (std::string_view tag : {"<div>", "<b>", "<span class=x>"}) {
    const absl::Status deep =
        HtmlToText(Repeated(tag, 300000) + "deep").status();
    EXPECT_EQ(deep.code(), absl::StatusCode::kInvalidArgument) << tag;
    EXPECT_THAT(deep.message(), ::testing::HasSubstr("nest more than 1000"));
  }
  // Closed elements, elements closed by their siblings, void elements,
  // comments and script text do not add depth.
  for (std::string_view piece :
       {"<div>x</div>", "<p>x", "<li>x", "<td>x", "<br>", "<img src=a>",
        "<!-- <div> -->", "<script>var s = '<div>';</script>"}) {
    EXPECT_TRUE(HtmlToText(Repeated(piece, 20000)).ok()) << piece;
  }
}

// Tricks that once slipped past the depth scan: unknown end tags, comment
// openers inside attribute values, <noscript> (markup when scripting is off)
// and end tags the tree builder ignores.
TEST(Html, DepthScanIsNotFooled) {
  const std::string divs = Repeated("<div>", 300000);
  for (const std::string& html :
       {Repeated("<div></x>", 300000), "<a title=\"<!--\">" + divs,
        "<a title='x>y'>" + divs, "<body><noscript>" + divs,
        "<span>" + Repeated(Repeated("<div>", 900) + "</span><span>", 400)}) {
    const absl::Status status = HtmlToText(html).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument)
        << html.substr(0, 40);
    EXPECT_THAT(status.message(), ::testing::HasSubstr("nest more than"));
  }
}

// A formatting element left open is re-created for every later paragraph:
// under 2 MB of input would ask for gigabytes. The parse has a budget.
TEST(Html, FormattingAmplificationHitsTheMemoryBudget) {
  std::string html = "<p>";
  for (int i = 0; i < 999; ++i) html += "<b id=" + std::to_string(i) + ">";
  html += Repeated("<p>x</p>", 200000);
  const absl::Status status = HtmlToText(html).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), ::testing::HasSubstr("bytes of memory"));
  // The same paragraphs without the open elements parse.
  EXPECT_TRUE(HtmlToText(Repeated("<p>x</p>", 200000)).ok());
}

// Line breaks inside <pre> once made every later break rescan all of them.
TEST(Html, LongRunsOfLineBreaksStayLinear) {
  ASSERT_OK_AND_ASSIGN(const std::string text,
                       HtmlToText("<pre>a" + Repeated("<br>\n", 1000000)));
  EXPECT_EQ(text.substr(0, 2), "a\n");
  EXPECT_EQ(text.find_first_not_of('\n', 1), std::string::npos);
}

}  // namespace
}  // namespace neardup::extract
