#ifndef NEARDUP_TESTS_SUPPORT_PDF_BUILDER_H_
#define NEARDUP_TESTS_SUPPORT_PDF_BUILDER_H_

// Small PDFs made in the tests: one Helvetica line per page, with a correct
// cross-reference table, plus the pieces to break them on purpose.

#include <zlib.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace neardup::testing {

// Objects 1..n of a PDF, numbered in order, with trailer and xref.
inline std::string PdfOfObjects(const std::vector<std::string>& objects,
                                int root = 1) {
  std::string pdf = "%PDF-1.4\n";
  std::vector<size_t> offsets;
  for (size_t i = 0; i < objects.size(); ++i) {
    offsets.push_back(pdf.size());
    absl::StrAppend(&pdf, i + 1, " 0 obj\n", objects[i], "\nendobj\n");
  }
  const size_t xref = pdf.size();
  absl::StrAppend(&pdf, "xref\n0 ", objects.size() + 1,
                  "\n0000000000 65535 f \n");
  for (size_t offset : offsets) {
    absl::StrAppend(&pdf, absl::StrFormat("%010d 00000 n \n", offset));
  }
  absl::StrAppend(&pdf, "trailer\n<< /Size ", objects.size() + 1, " /Root ",
                  root, " 0 R >>\nstartxref\n", xref, "\n%%EOF\n");
  return pdf;
}

inline std::string PdfStream(const std::string& data,
                             const std::string& extra = "") {
  return absl::StrCat("<< /Length ", data.size(), extra, " >>\nstream\n", data,
                      "\nendstream");
}

// A PDF with one page per line of `pages` (ASCII, no parentheses).
inline std::string SimplePdf(const std::vector<std::string>& pages) {
  // 1 catalog, 2 pages, 3 font, then page i at 4 + 2i, its content after.
  std::string kids;
  for (size_t i = 0; i < pages.size(); ++i) {
    absl::StrAppend(&kids, 4 + 2 * i, " 0 R ");
  }
  std::vector<std::string> objects = {
      "<< /Type /Catalog /Pages 2 0 R >>",
      absl::StrCat("<< /Type /Pages /Kids [", kids, "] /Count ", pages.size(),
                   " >>"),
      "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  };
  for (size_t i = 0; i < pages.size(); ++i) {
    objects.push_back(absl::StrCat(
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ",
        5 + 2 * i, " 0 R /Resources << /Font << /F1 3 0 R >> >> >>"));
    // Six words per line, so that lines stay inside the page (poppler
    // reads only what is on it).
    std::string content = "BT /F1 12 Tf 72 720 Td 14 TL";
    size_t words = 0;
    std::string line;
    for (const char c : pages[i] + " ") {
      if (c == ' ' && !line.empty() && ++words % 6 == 0) {
        absl::StrAppend(&content, " (", line, ") Tj T*");
        line.clear();
        continue;
      }
      if (c != ' ' || !line.empty()) line.push_back(c);
    }
    if (!line.empty() && line.back() == ' ') line.pop_back();
    if (!line.empty()) absl::StrAppend(&content, " (", line, ") Tj");
    objects.push_back(PdfStream(content + " ET"));
  }
  return PdfOfObjects(objects);
}

// A one-page PDF whose content stream inflates to `gib` GiB of spaces
// (about 5 MB per GiB deflated): poppler reads through all of it.
inline std::string DeflateBombPdf(int gib = 1) {
  const std::string spaces(size_t{1} << 22, ' ');
  z_stream z{};
  if (deflateInit(&z, Z_BEST_SPEED) != Z_OK) std::abort();
  std::string deflated(size_t{16} << 20, '\0');
  z.next_out = reinterpret_cast<Bytef*>(deflated.data());
  z.avail_out = static_cast<uInt>(deflated.size());
  for (int i = 0; i < 256 * gib; ++i) {
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(spaces.data()));
    z.avail_in = static_cast<uInt>(spaces.size());
    if (deflate(&z, Z_NO_FLUSH) != Z_OK) std::abort();
  }
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
  deflated.resize(z.total_out);
  deflateEnd(&z);
  return PdfOfObjects({
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
      ">>",
      PdfStream(deflated, " /Filter /FlateDecode"),
  });
}

}  // namespace neardup::testing

#endif  // NEARDUP_TESTS_SUPPORT_PDF_BUILDER_H_
