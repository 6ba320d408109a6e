#ifndef NEARDUP_CLI_INTERNAL_PASSAGES_H_
#define NEARDUP_CLI_INTERNAL_PASSAGES_H_

// Printing the passages two texts share (compare --explain, query
// --explain).

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace neardup::cli {

struct ByteRange {
  size_t begin = 0, end = 0;
};

// `text` (its first `max_bytes`, then " ...") with every range marked:
// reverse video when `ansi`, else "[[" and "]]". Overlapping ranges merge.
std::string Highlight(std::string_view text, std::vector<ByteRange> ranges,
                      bool ansi, size_t max_bytes = 4000);

// True when `out` is standard output and that is a terminal.
bool IsTerminal(const std::ostream& out);

// One line per passage: its byte ranges, word count and text (from
// `probe`, cut to 80 bytes).
struct PassageLine {
  ByteRange probe, match;
  size_t words = 0;
};
void PrintPassageLines(std::string_view probe,
                       const std::vector<PassageLine>& passages,
                       std::ostream& out);

}  // namespace neardup::cli

#endif  // NEARDUP_CLI_INTERNAL_PASSAGES_H_
