#include "neardup/extract/extract.h"

#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/extract/html.h"

namespace neardup::extract {

absl::StatusOr<std::string> ExtractText(std::string_view content,
                                        ContentType type,
                                        const ExtractOptions& options) {
  absl::StatusOr<std::string> text;
  switch (type) {
    case ContentType::kPlainText:
      return std::string(content);
    case ContentType::kHtml:
      text = HtmlToText(content);
      break;
    case ContentType::kMarkdown:
      text = MarkdownToText(content, options.markdown);
      break;
    case ContentType::kPdf:
      return PdfToText(content, options.pdf);  // its messages say "PDF"
  }
  if (!text.ok() && absl::IsInvalidArgument(text.status())) {
    return absl::InvalidArgumentError(absl::StrCat(
        AbslView(ContentTypeName(type)), ": ", text.status().message()));
  }
  return text;
}

}  // namespace neardup::extract
