#ifndef NEARDUP_EXTRACT_SRC_TEXT_BUILDER_H_
#define NEARDUP_EXTRACT_SRC_TEXT_BUILDER_H_

// Assembles extracted text: runs of whitespace become one space, block
// boundaries become line breaks (at most one blank line), preformatted text
// is kept as it is. Deterministic: the same calls give the same bytes.

#include <algorithm>
#include <string>
#include <string_view>

namespace neardup::extract {

class TextBuilder {
 public:
  // Text whose whitespace is layout (HTML text nodes, Markdown inlines).
  void Flowing(std::string_view text) {
    for (const char c : text) {
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        pending_space_ = true;
      } else {
        Flush();
        out_.push_back(c);
        trailing_newlines_ = 0;
      }
    }
  }
  // Text whose line breaks and spaces are content (<pre>, code blocks).
  void Preformatted(std::string_view text) {
    if (text.empty()) return;
    Flush();
    out_.append(text);
    const size_t last = text.find_last_not_of('\n');
    if (last == std::string_view::npos) {
      trailing_newlines_ += text.size();
    } else {
      trailing_newlines_ = text.size() - 1 - last;
    }
  }
  // Words on either side must not join ("a</td><td>b" is "a b").
  void Space() { pending_space_ = true; }
  // A block boundary: 1 starts a new line, 2 leaves a blank line.
  void Break(int newlines) {
    pending_breaks_ = std::max(pending_breaks_, newlines);
  }

  std::string Finish() && { return std::move(out_); }

 private:
  void Flush() {
    if (!out_.empty()) {
      if (pending_breaks_ > 0) {
        // Preformatted text may already end in line breaks (counted as they
        // are appended: rescanning them would make long runs quadratic).
        const size_t want = static_cast<size_t>(pending_breaks_);
        if (trailing_newlines_ < want) {
          out_.append(want - trailing_newlines_, '\n');
          trailing_newlines_ = want;
        }
      } else if (pending_space_ && out_.back() != '\n' && out_.back() != ' ') {
        out_.push_back(' ');
        trailing_newlines_ = 0;
      }
    }
    pending_breaks_ = 0;
    pending_space_ = false;
  }

  std::string out_;
  size_t trailing_newlines_ = 0;  // '\n' at the end of out_
  int pending_breaks_ = 0;
  bool pending_space_ = false;
};

}  // namespace neardup::extract

#endif  // NEARDUP_EXTRACT_SRC_TEXT_BUILDER_H_
