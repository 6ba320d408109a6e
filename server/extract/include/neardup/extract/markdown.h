#ifndef NEARDUP_EXTRACT_MARKDOWN_H_
#define NEARDUP_EXTRACT_MARKDOWN_H_

// The text of a Markdown document without its syntax, parsed by cmark-gfm
// (CommonMark with GitHub's tables, strikethrough, autolinks and task
// lists): emphasis marks, link targets, heading and list markers dropped,
// link and image texts kept, entities decoded, embedded HTML reduced to its
// text (html.h), each block on its own lines. Invalid UTF-8 becomes U+FFFD.

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace neardup::extract {

struct MarkdownOptions {
  // Keep the contents of code blocks (fenced or indented), as they are.
  // Inline code is always kept: it is part of its sentence.
  bool keep_code_blocks = true;
};

// Memory a parse may hold at once: cmark-gfm fills every cell a table row
// leaves out, so a few KB of table can ask for gigabytes.
inline constexpr size_t kMarkdownMemoryPerByte = 256;
inline constexpr size_t kMarkdownMemoryBase = size_t{64} << 20;

// INVALID_ARGUMENT for inputs over 4 GiB and for those whose parse needs
// more than kMarkdownMemoryPerByte per input byte + kMarkdownMemoryBase.
absl::StatusOr<std::string> MarkdownToText(std::string_view markdown,
                                           const MarkdownOptions& options = {});

}  // namespace neardup::extract

#endif  // NEARDUP_EXTRACT_MARKDOWN_H_
