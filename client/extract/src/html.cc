#include "neardup/extract/html.h"

#include <gumbo.h>

#include <cstdlib>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "text_builder.h"

namespace neardup::extract {
namespace {

// Gumbo's allocations, freed all at once. gumbo_destroy_output frees the tree
// recursively, which a deeply nested document turns into a stack overflow;
// with this arena the tree is never walked to be freed.
class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena() {
    for (void* block : blocks_) std::free(block);
  }

  static void* Allocate(void* arena, size_t size) {
    void* block = std::malloc(size == 0 ? 1 : size);
    if (block == nullptr) std::abort();  // as gumbo's default allocator would
    static_cast<Arena*>(arena)->blocks_.push_back(block);
    return block;
  }
  static void Deallocate(void*, void*) {}

 private:
  std::vector<void*> blocks_;
};

enum class Role {
  kSkip,       // contents are not text a reader sees
  kInline,     // flows with its neighbours
  kBlock,      // starts and ends a line
  kParagraph,  // starts and ends a block, blank lines around
  kCell,       // table cell, list term: apart from its neighbours
  kLineBreak,  // <br>
  kPreformatted,
};

Role RoleOf(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_SCRIPT:
    case GUMBO_TAG_STYLE:
    case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_NOSCRIPT:
    case GUMBO_TAG_HEAD:  // its <title> is handled apart
      return Role::kSkip;
    case GUMBO_TAG_BR:
      return Role::kLineBreak;
    case GUMBO_TAG_PRE:
    case GUMBO_TAG_TEXTAREA:
    case GUMBO_TAG_LISTING:
    case GUMBO_TAG_PLAINTEXT:
      return Role::kPreformatted;
    case GUMBO_TAG_P:
    case GUMBO_TAG_H1:
    case GUMBO_TAG_H2:
    case GUMBO_TAG_H3:
    case GUMBO_TAG_H4:
    case GUMBO_TAG_H5:
    case GUMBO_TAG_H6:
    case GUMBO_TAG_BLOCKQUOTE:
    case GUMBO_TAG_TABLE:
    case GUMBO_TAG_UL:
    case GUMBO_TAG_OL:
    case GUMBO_TAG_DL:
    case GUMBO_TAG_HR:
    case GUMBO_TAG_FIGURE:
      return Role::kParagraph;
    case GUMBO_TAG_TD:
    case GUMBO_TAG_TH:
      return Role::kCell;
    case GUMBO_TAG_ADDRESS:
    case GUMBO_TAG_ARTICLE:
    case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_BODY:
    case GUMBO_TAG_CAPTION:
    case GUMBO_TAG_CENTER:
    case GUMBO_TAG_DD:
    case GUMBO_TAG_DETAILS:
    case GUMBO_TAG_DIR:
    case GUMBO_TAG_DIV:
    case GUMBO_TAG_DT:
    case GUMBO_TAG_FIELDSET:
    case GUMBO_TAG_FIGCAPTION:
    case GUMBO_TAG_FOOTER:
    case GUMBO_TAG_FORM:
    case GUMBO_TAG_HEADER:
    case GUMBO_TAG_HGROUP:
    case GUMBO_TAG_LEGEND:
    case GUMBO_TAG_LI:
    case GUMBO_TAG_MAIN:
    case GUMBO_TAG_MENU:
    case GUMBO_TAG_NAV:
    case GUMBO_TAG_OPTION:
    case GUMBO_TAG_SECTION:
    case GUMBO_TAG_SUMMARY:
    case GUMBO_TAG_TITLE:
    case GUMBO_TAG_TR:
      return Role::kBlock;
    default:
      return Role::kInline;
  }
}

// Where a role puts breaks around its element.
void Boundary(Role role, TextBuilder& text) {
  switch (role) {
    case Role::kBlock:
      text.Break(1);
      break;
    case Role::kParagraph:
    case Role::kPreformatted:
      text.Break(2);
      break;
    case Role::kCell:
      text.Space();
      break;
    default:
      break;
  }
}

// The <title> of <head>, the one part of it a reader sees.
const GumboNode* TitleOf(const GumboNode* head) {
  const GumboVector& children = head->v.element.children;
  for (unsigned int i = 0; i < children.length; ++i) {
    const auto* child = static_cast<const GumboNode*>(children.data[i]);
    if (child->type == GUMBO_NODE_ELEMENT &&
        child->v.element.tag == GUMBO_TAG_TITLE) {
      return child;
    }
  }
  return nullptr;
}

struct Frame {
  const GumboNode* node;
  unsigned int next_child;
  Role role;
};

void Walk(const GumboNode* root, TextBuilder& text) {
  std::vector<Frame> stack;
  int preformatted = 0;
  auto enter = [&](const GumboNode* node) {
    switch (node->type) {
      case GUMBO_NODE_TEXT:
      case GUMBO_NODE_WHITESPACE:
      case GUMBO_NODE_CDATA:
        if (preformatted > 0) {
          text.Preformatted(node->v.text.text);
        } else {
          text.Flowing(node->v.text.text);
        }
        return;
      case GUMBO_NODE_DOCUMENT:
        stack.push_back({node, 0, Role::kInline});
        return;
      case GUMBO_NODE_ELEMENT: {
        Role role = RoleOf(node->v.element.tag);
        if (node->v.element.tag == GUMBO_TAG_HEAD) {
          if (const GumboNode* title = TitleOf(node)) {
            role = Role::kBlock;
            Boundary(role, text);
            stack.push_back({title, 0, role});
          }
          return;
        }
        if (role == Role::kSkip) return;
        if (role == Role::kLineBreak) {
          text.Break(1);
          return;
        }
        Boundary(role, text);
        if (role == Role::kPreformatted) ++preformatted;
        stack.push_back({node, 0, role});
        return;
      }
      default:  // comments, templates
        return;
    }
  };
  enter(root);
  while (!stack.empty()) {
    Frame& frame = stack.back();
    const GumboVector& children = frame.node->type == GUMBO_NODE_DOCUMENT
                                      ? frame.node->v.document.children
                                      : frame.node->v.element.children;
    if (frame.next_child < children.length) {
      enter(static_cast<const GumboNode*>(children.data[frame.next_child++]));
      continue;
    }
    Boundary(frame.role, text);
    if (frame.role == Role::kPreformatted) --preformatted;
    stack.pop_back();
  }
}

// Elements that never hold others open: void elements, and those whose end
// tag may be omitted (the next sibling closes them).
bool NeverNests(std::string_view name) {
  static const auto* names = new absl::flat_hash_set<std::string_view>{
      "area",   "base",  "br",       "col",     "embed",  "hr",       "img",
      "input",  "link",  "meta",     "source",  "track",  "wbr",      "param",
      "keygen", "p",     "li",       "dt",      "dd",     "tr",       "td",
      "th",     "thead", "tbody",    "tfoot",   "option", "optgroup", "rb",
      "rt",     "rp",    "colgroup", "caption", "html",   "head",     "body"};
  return names->contains(name);
}

// Elements whose contents are text up to their end tag.
bool IsRawText(std::string_view name) {
  return name == "script" || name == "style" || name == "textarea" ||
         name == "title" || name == "xmp" || name == "iframe" ||
         name == "noembed" || name == "noframes" || name == "noscript";
}

// The lowercase tag name starting at html[at], and where it ends.
std::string TagName(std::string_view html, size_t& at) {
  std::string name;
  while (at < html.size() &&
         (absl::ascii_isalnum(html[at]) || html[at] == '-')) {
    name.push_back(absl::ascii_tolower(html[at]));
    ++at;
  }
  return name;
}

// An upper bound on how deep the parse tree will nest, by a scan of the
// tags: true when it exceeds `limit`.
bool NestsDeeperThan(std::string_view html, int limit) {
  int depth = 0;
  size_t at = 0;
  while ((at = html.find('<', at)) != std::string_view::npos) {
    if (html.substr(at, 4) == "<!--") {
      const size_t end = html.find("-->", at + 4);
      if (end == std::string_view::npos) return false;
      at = end + 3;
      continue;
    }
    ++at;
    const bool closing = at < html.size() && html[at] == '/';
    if (closing) ++at;
    if (at >= html.size() || !absl::ascii_isalpha(html[at])) continue;
    const std::string name = TagName(html, at);
    if (closing) {
      if (!NeverNests(name) && depth > 0) --depth;
      continue;
    }
    if (IsRawText(name)) {
      // Skip to its end tag: what is inside is not markup.
      const std::string end_tag = absl::StrCat("</", name);
      size_t end = at;
      while ((end = html.find("</", end)) != std::string_view::npos) {
        std::string_view candidate = html.substr(end, end_tag.size());
        if (absl::EqualsIgnoreCase(AbslView(candidate), end_tag)) break;
        end += 2;
      }
      if (end == std::string_view::npos) return false;
      at = end;
      continue;
    }
    if (!NeverNests(name) && ++depth > limit) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::string> HtmlToText(std::string_view html) {
  if (html.size() > 0xFFFFFFFFu) {
    return absl::InvalidArgumentError("HTML over 4 GiB");
  }
  if (NestsDeeperThan(html, kMaxHtmlDepth)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "HTML elements nest more than ", kMaxHtmlDepth,
        " deep; such documents are refused (parsing them takes time that "
        "grows with depth times tags)"));
  }
  Arena arena;
  GumboOptions options = kGumboDefaultOptions;
  options.allocator = &Arena::Allocate;
  options.deallocator = &Arena::Deallocate;
  options.userdata = &arena;
  // Parse errors are recovered from as browsers do; recording them only
  // costs memory.
  options.max_errors = 0;
  GumboOutput* output =
      gumbo_parse_with_options(&options, html.data(), html.size());
  TextBuilder text;
  Walk(output->document, text);
  // No gumbo_destroy_output: the arena frees everything (see Arena).
  return std::move(text).Finish();
}

}  // namespace neardup::extract
