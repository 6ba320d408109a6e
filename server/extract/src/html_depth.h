#ifndef NEARDUP_EXTRACT_SRC_HTML_DEPTH_H_
#define NEARDUP_EXTRACT_SRC_HTML_DEPTH_H_

// A bound on how deep an HTML document's elements will nest, from a scan of
// its tags, before gumbo parses it. It errs towards deeper: elements closed
// by their siblings or void are not counted, an end tag pops only what the
// HTML5 tree builder would surely pop, and text that is not markup (comments,
// attribute values, script) is skipped as the tokenizer skips it.

#include <string_view>

namespace neardup::extract {

// True when the open elements would exceed `limit`.
bool HtmlNestsDeeperThan(std::string_view html, int limit);

}  // namespace neardup::extract

#endif  // NEARDUP_EXTRACT_SRC_HTML_DEPTH_H_
