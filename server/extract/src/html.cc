#include "neardup/extract/html.h"

#include <gumbo.h>

#include <csetjmp>
#include <cstdlib>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "html_depth.h"
#include "neardup/base/absl_compat.h"
#include "text_builder.h"

namespace neardup::extract {
namespace {

// Gumbo's allocations, freed all at once, within a budget. gumbo_destroy_output
// frees the tree recursively, which a deeply nested document turns into a
// stack overflow; with this arena the tree is never walked to be freed.
// Past the budget the parse is abandoned by longjmp: gumbo is C, holds no
// resource but this memory, and a formatting element left open is re-created
// by every later paragraph, so 1 MB of input can ask for gigabytes.
class Arena {
 public:
  explicit Arena(size_t budget) : budget_(budget) {}
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena() {
    for (void* block : blocks_) std::free(block);
  }

  static void* Allocate(void* userdata, size_t size) {
    Arena* arena = static_cast<Arena*>(userdata);
    void* block = nullptr;
    if (size <= arena->budget_ - arena->used_) {
      block = std::malloc(size == 0 ? 1 : size);
    }
    if (block != nullptr) {
      try {
        arena->blocks_.push_back(block);
        arena->used_ += size;
        return block;
      } catch (...) {  // out of memory: no exception may cross gumbo
        std::free(block);
      }
    }
    std::longjmp(arena->out_of_budget_, 1);
  }
  static void Deallocate(void*, void*) {}

  std::jmp_buf& out_of_budget() { return out_of_budget_; }

 private:
  const size_t budget_;
  size_t used_ = 0;  // <= budget_
  std::vector<void*> blocks_;
  std::jmp_buf out_of_budget_;
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

}  // namespace

absl::StatusOr<std::string> HtmlToText(std::string_view html) {
  if (html.size() > 0xFFFFFFFFu) {
    return absl::InvalidArgumentError("HTML over 4 GiB");
  }
  if (HtmlNestsDeeperThan(html, kMaxHtmlDepth)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "HTML elements nest more than ", kMaxHtmlDepth,
        " deep; such documents are refused (parsing them takes time that "
        "grows with depth times tags)"));
  }
  // On the heap: setjmp leaves the locals it returns to indeterminate if
  // they changed, and the arena changes with every allocation.
  const size_t budget = kHtmlMemoryPerByte * html.size() + kHtmlMemoryBase;
  const auto arena = std::make_unique<Arena>(budget);
  GumboOptions options = kGumboDefaultOptions;
  options.allocator = &Arena::Allocate;
  options.deallocator = &Arena::Deallocate;
  options.userdata = arena.get();
  // Parse errors are recovered from as browsers do; recording them only
  // costs memory.
  options.max_errors = 0;
  if (setjmp(arena->out_of_budget()) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("parsing this HTML needs more than ", budget,
                     " bytes of memory (", kHtmlMemoryPerByte,
                     " per input byte + 64 MiB); such documents are refused"));
  }
  GumboOutput* output =
      gumbo_parse_with_options(&options, html.data(), html.size());
  TextBuilder text;
  Walk(output->document, text);
  // No gumbo_destroy_output: the arena frees everything (see Arena).
  return std::move(text).Finish();
}

}  // namespace neardup::extract
