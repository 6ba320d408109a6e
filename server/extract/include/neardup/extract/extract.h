#ifndef NEARDUP_EXTRACT_EXTRACT_H_
#define NEARDUP_EXTRACT_EXTRACT_H_

// One entry point for every content type: the text neardup fingerprints.

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "neardup/extract/content_type.h"
#include "neardup/extract/markdown.h"
#include "neardup/extract/pdf.h"

namespace neardup::extract {

struct ExtractOptions {
  MarkdownOptions markdown;
  PdfOptions pdf;
};

// Plain text comes back as it is (callers that hold it may skip the copy).
// Errors are INVALID_ARGUMENT naming the content type.
absl::StatusOr<std::string> ExtractText(std::string_view content,
                                        ContentType type,
                                        const ExtractOptions& options = {});

}  // namespace neardup::extract

#endif  // NEARDUP_EXTRACT_EXTRACT_H_
