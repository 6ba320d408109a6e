#ifndef NEARDUP_EXTRACT_CONTENT_TYPE_H_
#define NEARDUP_EXTRACT_CONTENT_TYPE_H_

// The kinds of input neardup turns into text before fingerprinting.

#include <optional>
#include <string_view>

#include "absl/status/statusor.h"

namespace neardup::extract {

enum class ContentType {
  kPlainText,  // UTF-8 text, fingerprinted as it is
  kHtml,       // visible text of the document (html.h)
  kMarkdown,   // text without the syntax (markdown.h)
  kPdf,        // text of every page, parsed in a child process (pdf.h)
};

// "text/plain" (also ""), "text/html", "text/markdown" (also
// "text/x-markdown") or "application/pdf", case-insensitive; parameters are
// allowed, and a charset must be UTF-8 (or US-ASCII). INVALID_ARGUMENT
// otherwise, listing the accepted types.
absl::StatusOr<ContentType> ParseContentType(std::string_view mime);
// The canonical MIME type: "text/plain", "text/html", ...
std::string_view ContentTypeName(ContentType type);
// By file extension (case-insensitive): .txt, .html/.htm/.xhtml,
// .md/.markdown, .pdf. nullopt for anything else.
std::optional<ContentType> ContentTypeOfPath(std::string_view path);

}  // namespace neardup::extract

#endif  // NEARDUP_EXTRACT_CONTENT_TYPE_H_
