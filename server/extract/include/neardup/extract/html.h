#ifndef NEARDUP_EXTRACT_HTML_H_
#define NEARDUP_EXTRACT_HTML_H_

// The text a reader sees in an HTML document, parsed by gumbo (the HTML5
// parsing algorithm, so any input parses): entities decoded, script,
// style, template, noscript and comments dropped, block elements on their
// own lines, table cells and list items apart, whitespace collapsed except
// in <pre>, <textarea> and <listing>. Invalid UTF-8 and NUL bytes become
// U+FFFD.

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace neardup::extract {

// Deepest element nesting accepted. The HTML5 tree builder looks through the
// stack of open elements at every tag, so its time grows with depth times
// tags: 16 MiB of "<div>" (3 million levels) would take hours. Real pages
// nest a few dozen levels, rarely more than a few hundred.
inline constexpr int kMaxHtmlDepth = 1000;

// The parse's memory budget: this much per input byte, plus a base. Normal
// pages take a few bytes of parse tree per input byte; tag-dense ones (a
// "<br>" per line) about 50.
inline constexpr size_t kHtmlMemoryPerByte = 96;
inline constexpr size_t kHtmlMemoryBase = size_t{64} << 20;

// INVALID_ARGUMENT when elements nest deeper than kMaxHtmlDepth (counted
// before parsing, conservatively: elements whose end tag may be left out,
// such as <p> and <li>, and void elements do not count), when the parse
// would need more than its memory budget, or for inputs over 4 GiB.
absl::StatusOr<std::string> HtmlToText(std::string_view html);

}  // namespace neardup::extract

#endif  // NEARDUP_EXTRACT_HTML_H_
