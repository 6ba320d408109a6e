#include "neardup/cli/internal/passages.h"

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <string>

namespace neardup::cli {
namespace {

// The first `n` bytes of `text`, backed off to a UTF-8 character boundary.
std::string_view CutUtf8(std::string_view text, size_t n) {
  if (text.size() <= n) return text;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return text.substr(0, n);
}

}  // namespace

std::string Highlight(std::string_view text, std::vector<ByteRange> ranges,
                      bool ansi, size_t max_bytes) {
  const std::string_view open = ansi ? "\x1b[7m" : "[[";
  const std::string_view close = ansi ? "\x1b[0m" : "]]";
  const bool cut = text.size() > max_bytes;
  text = CutUtf8(text, max_bytes);
  std::sort(
      ranges.begin(), ranges.end(),
      [](const ByteRange& x, const ByteRange& y) { return x.begin < y.begin; });
  std::string out;
  size_t at = 0;
  for (size_t r = 0; r < ranges.size(); ++r) {
    size_t begin = std::max(ranges[r].begin, at);
    size_t end = std::min(ranges[r].end, text.size());
    // Merge the ranges that overlap this one.
    while (r + 1 < ranges.size() && ranges[r + 1].begin <= end) {
      end = std::max(end, std::min(ranges[++r].end, text.size()));
    }
    if (begin >= end) continue;
    out.append(text.substr(at, begin - at));
    out.append(open);
    out.append(text.substr(begin, end - begin));
    out.append(close);
    at = end;
  }
  out.append(text.substr(std::min(at, text.size())));
  if (cut) out.append(" ...");
  return out;
}

bool IsTerminal(const std::ostream& out) {
  return &out == &std::cout && isatty(STDOUT_FILENO);
}

void PrintPassageLines(std::string_view probe,
                       const std::vector<PassageLine>& passages,
                       std::ostream& out) {
  for (const PassageLine& p : passages) {
    std::string_view words =
        p.probe.end <= probe.size() && p.probe.begin <= p.probe.end
            ? probe.substr(p.probe.begin, p.probe.end - p.probe.begin)
            : std::string_view();
    const bool long_passage = words.size() > 80;
    words = CutUtf8(words, 80);
    // One line each: line breaks and tabs inside a passage show as spaces.
    std::string shown(words);
    std::replace_if(
        shown.begin(), shown.end(),
        [](char c) { return c == '\n' || c == '\r' || c == '\t'; }, ' ');
    out << "  a[" << p.probe.begin << "," << p.probe.end << ") b["
        << p.match.begin << "," << p.match.end << ")  " << p.words
        << " words  \"" << shown << (long_passage ? " ..." : "") << "\"\n";
  }
}

}  // namespace neardup::cli
