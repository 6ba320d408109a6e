// Fuzzes the HTML and Markdown extractors (the first input byte picks one).
// Beyond "no crash and no sanitizer report": the text is valid UTF-8, and
// extracting the same input twice gives the same bytes.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "neardup/extract/html.h"
#include "neardup/extract/markdown.h"

namespace {

bool ValidUtf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const int n = c < 0x80           ? 1
                  : (c >> 5) == 0x6  ? 2
                  : (c >> 4) == 0xE  ? 3
                  : (c >> 3) == 0x1E ? 4
                                     : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (int k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1,
                               size - 1);
  absl::StatusOr<std::string> first, second;
  switch (data[0] % 3) {
    case 0:
      first = neardup::extract::HtmlToText(input);
      second = neardup::extract::HtmlToText(input);
      break;
    case 1:
      first = neardup::extract::MarkdownToText(input);
      second = neardup::extract::MarkdownToText(input);
      break;
    default:
      first =
          neardup::extract::MarkdownToText(input, {.keep_code_blocks = false});
      second =
          neardup::extract::MarkdownToText(input, {.keep_code_blocks = false});
      break;
  }
  if (!first.ok() || !second.ok() || *first != *second) std::abort();
  if (!ValidUtf8(*first)) std::abort();
  return 0;
}
