#include "html_depth.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"

namespace neardup::extract {
namespace {

using NameSet = absl::flat_hash_set<std::string_view>;

// Void elements, and those whose end tag may be omitted (the next sibling
// closes them): they never hold others open.
bool NeverNests(std::string_view name) {
  static const auto* names = new NameSet{
      "area",   "base",  "br",       "col",     "embed",  "hr",       "img",
      "input",  "link",  "meta",     "source",  "track",  "wbr",      "param",
      "keygen", "p",     "li",       "dt",      "dd",     "tr",       "td",
      "th",     "thead", "tbody",    "tfoot",   "option", "optgroup", "rb",
      "rt",     "rp",    "colgroup", "caption", "html",   "head",     "body"};
  return names->contains(name);
}

// The HTML5 "special" category: an end tag of another element is ignored
// rather than close one of these (so it cannot pop past them).
bool IsSpecial(std::string_view name) {
  static const auto* names = new NameSet{
      "address",    "applet",   "area",       "article",  "aside",  "base",
      "basefont",   "bgsound",  "blockquote", "body",     "br",     "button",
      "caption",    "center",   "col",        "colgroup", "dd",     "details",
      "dir",        "div",      "dl",         "dt",       "embed",  "fieldset",
      "figcaption", "figure",   "footer",     "form",     "frame",  "frameset",
      "h1",         "h2",       "h3",         "h4",       "h5",     "h6",
      "head",       "header",   "hgroup",     "hr",       "html",   "iframe",
      "img",        "input",    "keygen",     "li",       "link",   "listing",
      "main",       "marquee",  "menu",       "meta",     "nav",    "noembed",
      "noframes",   "noscript", "object",     "ol",       "p",      "param",
      "plaintext",  "pre",      "script",     "section",  "select", "source",
      "style",      "summary",  "table",      "tbody",    "td",     "template",
      "textarea",   "tfoot",    "th",         "thead",    "title",  "tr",
      "track",      "ul",       "wbr",        "xmp"};
  return names->contains(name);
}

// Where an end tag of a special element stops looking for its element.
bool IsScopeBoundary(std::string_view name) {
  return name == "applet" || name == "caption" || name == "html" ||
         name == "table" || name == "td" || name == "th" || name == "marquee" ||
         name == "object" || name == "template";
}

// Elements whose contents are text up to their end tag (scripting off, as
// gumbo parses: <noscript> holds markup).
bool IsRawText(std::string_view name) {
  return name == "script" || name == "style" || name == "textarea" ||
         name == "title" || name == "xmp" || name == "iframe" ||
         name == "noembed" || name == "noframes";
}

// The lowercase tag name at html[at], moving `at` past it.
std::string TagName(std::string_view html, size_t& at) {
  std::string name;
  while (at < html.size() && html[at] != '>' && html[at] != '/' &&
         !absl::ascii_isspace(html[at])) {
    name.push_back(absl::ascii_tolower(html[at]));
    ++at;
  }
  return name;
}

// The position after the '>' that ends the tag whose attributes start at
// `at`, or npos. A quote opens a value only right after '=', as in the
// tokenizer; a '>' inside a quoted value does not end the tag.
size_t EndOfTag(std::string_view html, size_t at) {
  bool after_equals = false;
  while (at < html.size()) {
    const char c = html[at];
    if (c == '>') return at + 1;
    if (after_equals && (c == '"' || c == '\'')) {
      const size_t close = html.find(c, at + 1);
      if (close == std::string_view::npos) return std::string_view::npos;
      at = close + 1;
      after_equals = false;
      continue;
    }
    if (c == '=') {
      after_equals = true;
    } else if (!absl::ascii_isspace(c)) {
      after_equals = false;
    }
    ++at;
  }
  return std::string_view::npos;
}

class OpenElements {
 public:
  size_t size() const { return names_.size(); }

  void Open(std::string name) {
    ++count_[name];
    names_.push_back(std::move(name));
  }

  // Pops what the end tag `name` surely closes; nothing when it would be
  // ignored.
  void Close(const std::string& name) {
    const auto counted = count_.find(name);
    if (counted == count_.end() || counted->second == 0) return;
    const bool special = IsSpecial(name);
    for (size_t i = names_.size(); i-- > 0;) {
      if (names_[i] == name) {
        while (names_.size() > i) Pop();
        return;
      }
      if (special ? IsScopeBoundary(names_[i]) : IsSpecial(names_[i])) return;
    }
  }

 private:
  void Pop() {
    --count_[names_.back()];
    names_.pop_back();
  }

  std::vector<std::string> names_;
  absl::flat_hash_map<std::string, int> count_;
};

}  // namespace

bool HtmlNestsDeeperThan(std::string_view html, int limit) {
  OpenElements open;
  size_t at = 0;
  while ((at = html.find('<', at)) != std::string_view::npos) {
    if (html.substr(at, 4) == "<!--") {
      // Unclosed: the rest is a comment, for gumbo too.
      const size_t end = html.find("-->", at + 4);
      if (end == std::string_view::npos) return false;
      at = end + 3;
      continue;
    }
    ++at;
    if (at < html.size() && (html[at] == '!' || html[at] == '?')) {
      // Doctype or bogus comment: up to the next '>'.
      at = html.find('>', at);
      if (at == std::string_view::npos) return false;
      continue;
    }
    const bool closing = at < html.size() && html[at] == '/';
    if (closing) ++at;
    if (at >= html.size() || !absl::ascii_isalpha(html[at])) continue;
    std::string name = TagName(html, at);
    at = EndOfTag(html, at);
    if (at == std::string_view::npos) return false;  // the tag never ends
    if (closing) {
      open.Close(name);
      continue;
    }
    if (IsRawText(name)) {
      // Text up to its end tag; unclosed, the rest of the file.
      const std::string end_tag = absl::StrCat("</", name);
      size_t end = at;
      while ((end = html.find("</", end)) != std::string_view::npos &&
             !absl::EqualsIgnoreCase(AbslView(html.substr(end, end_tag.size())),
                                     end_tag)) {
        end += 2;
      }
      if (end == std::string_view::npos) return false;
      at = end;
      continue;
    }
    if (NeverNests(name)) continue;
    open.Open(std::move(name));
    if (open.size() > static_cast<size_t>(limit)) return true;
  }
  return false;
}

}  // namespace neardup::extract
