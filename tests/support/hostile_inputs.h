#ifndef NEARDUP_TESTS_SUPPORT_HOSTILE_INPUTS_H_
#define NEARDUP_TESTS_SUPPORT_HOSTILE_INPUTS_H_

// Inputs made to exhaust a parser: each small on the wire, each asking for
// memory or time far beyond its size in a naive parse. Shared by the
// extraction tests and the end-to-end attack test.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "support/pdf_builder.h"

namespace neardup::testing {

struct HostileInput {
  std::string name;
  std::string content_type;  // as a request's content_type
  std::string bytes;
};

// A GFM table whose header has `columns` cells, then `rows` one-word lines:
// cmark-gfm fills every missing cell, rows x columns nodes.
inline std::string GfmTable(int columns, int rows) {
  std::string md = "|";
  for (int i = 0; i < columns; ++i) md += "a|";
  md += "\n|";
  for (int i = 0; i < columns; ++i) md += "-|";
  md += "\n";
  for (int i = 0; i < rows; ++i) md += "x\n";
  return md;
}

inline std::string Repeat(std::string_view piece, int times) {
  std::string out;
  out.reserve(piece.size() * static_cast<size_t>(times));
  for (int i = 0; i < times; ++i) out += piece;
  return out;
}

inline std::vector<HostileInput> HostileMarkdown() {
  std::string references;
  for (int i = 0; i < 20000; ++i)
    absl::StrAppend(&references, "[r", i, "]: /u\n");
  for (int i = 0; i < 20000; ++i)
    absl::StrAppend(&references, "[x][r", i, "] ");
  return {
      {"gfm table 4000 x 8000", "text/markdown", GfmTable(4000, 8000)},
      {"gfm table 2000 x 30000", "text/markdown", GfmTable(2000, 30000)},
      {"nested blockquotes", "text/markdown", Repeat(">", 50000) + " a\n"},
      {"nested lists", "text/markdown", Repeat("- ", 30000) + "a\n"},
      {"link reference flood", "text/markdown", references},
      {"emphasis runs", "text/markdown",
       Repeat("*a _b ", 30000) + Repeat("**", 30000)},
      {"backtick runs", "text/markdown", Repeat("`a``b", 30000)},
      {"unclosed link brackets", "text/markdown", Repeat("[a](", 30000)},
  };
}

inline std::vector<HostileInput> HostileHtml() {
  return {
      {"formatting re-opens", "text/html",
       Repeat("<b><i><u><s><em><strong><code><small>", 8) +
           Repeat("<p>x", 100000)},
      {"deep nesting", "text/html", Repeat("<div>", 100000)},
      {"table cells", "text/html", "<table>" + Repeat("<td>x", 200000)},
      {"unclosed comments and attributes", "text/html",
       Repeat("<a b='", 50000) + Repeat("<!--", 50000)},
  };
}

inline std::vector<HostileInput> HostilePdf() {
  // A page tree `depth` levels deep, one page at the bottom.
  auto deep_tree = [](int depth) {
    std::vector<std::string> objects = {"<< /Type /Catalog /Pages 2 0 R >>"};
    for (int i = 0; i < depth; ++i) {
      objects.push_back(
          absl::StrCat("<< /Type /Pages /Kids [", i + 3, " 0 R] /Count 1 >>"));
    }
    objects.push_back(
        "<< /Type /Page /MediaBox [0 0 612 792] /Contents 1 0 R >>");
    return PdfOfObjects(objects);
  };
  return {
      {"deflate bomb", "application/pdf", DeflateBombPdf()},
      {"deep page tree", "application/pdf", deep_tree(20000)},
      {"cyclic page tree", "application/pdf",
       PdfOfObjects(
           {"<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 1000000000 >>",
            "<< /Type /Pages /Kids [2 0 R] /Parent 2 0 R /Count 1 >>"})},
      {"page count claim", "application/pdf",
       PdfOfObjects(
           {"<< /Type /Catalog /Pages 2 0 R >>",
            absl::StrCat("<< /Type /Pages /Kids [", Repeat("3 0 R ", 200000),
                         "] /Count 200000 >>"),
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            "/Contents 4 0 R >>",
            PdfStream(Repeat("BT /F1 1 Tf (x) Tj ET ", 2000))})},
  };
}

inline std::vector<HostileInput> AllHostileInputs() {
  std::vector<HostileInput> all = HostileMarkdown();
  for (auto* more : {&HostileHtml, &HostilePdf}) {
    for (HostileInput& input : (*more)()) all.push_back(std::move(input));
  }
  return all;
}

}  // namespace neardup::testing

#endif  // NEARDUP_TESTS_SUPPORT_HOSTILE_INPUTS_H_
