#include "neardup/extract/markdown.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm-extension_api.h>
#include <cmark-gfm.h>

#include <cstring>
#include <memory>
#include <mutex>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "budget_heap.h"
#include "neardup/base/status_macros.h"
#include "neardup/extract/html.h"
#include "text_builder.h"

namespace neardup::extract {
namespace {

struct IterDeleter {
  void operator()(cmark_iter* iter) const { cmark_iter_free(iter); }
};

// GitHub's extensions, registered once (the registry is global).
void AttachExtensions(cmark_parser* parser) {
  static std::once_flag registered;
  std::call_once(registered,
                 [] { cmark_gfm_core_extensions_ensure_registered(); });
  for (const char* name : {"table", "strikethrough", "autolink", "tasklist"}) {
    if (cmark_syntax_extension* extension = cmark_find_syntax_extension(name)) {
      cmark_parser_attach_syntax_extension(parser, extension);
    }
  }
}

std::string_view Literal(cmark_node* node) {
  const char* literal = cmark_node_get_literal(node);
  return literal == nullptr ? std::string_view() : std::string_view(literal);
}

bool InTightList(cmark_node* paragraph) {
  cmark_node* item = cmark_node_parent(paragraph);
  if (item == nullptr || cmark_node_get_type(item) != CMARK_NODE_ITEM) {
    return false;
  }
  cmark_node* list = cmark_node_parent(item);
  return list != nullptr && cmark_node_get_list_tight(list) != 0;
}

bool IsExtension(cmark_node* node, const char* type) {
  return std::strcmp(cmark_node_get_type_string(node), type) == 0;
}

// cmark's allocator has no user data: the heap of the parse running on this
// thread.
thread_local internal::BudgetHeap* current_heap = nullptr;

void* HeapCalloc(size_t count, size_t size) {
  return current_heap->AllocateZeroed(count, size);
}
void* HeapRealloc(void* p, size_t size) {
  return current_heap->Reallocate(p, size);
}
void HeapFree(void* p) { current_heap->Free(p); }

cmark_mem heap_allocator = {HeapCalloc, HeapRealloc, HeapFree};

// Parses `markdown` into `heap`; null when the heap's budget ran out. Only C
// frames lie between the setjmp here and the longjmp in the heap.
cmark_node* ParseWithin(internal::BudgetHeap* heap, std::string_view markdown) {
  current_heap = heap;
  if (setjmp(heap->out_of_budget()) != 0) {
    current_heap = nullptr;
    return nullptr;
  }
  cmark_parser* parser =
      cmark_parser_new_with_mem(CMARK_OPT_VALIDATE_UTF8, &heap_allocator);
  AttachExtensions(parser);
  cmark_parser_feed(parser, markdown.data(), markdown.size());
  cmark_node* document = cmark_parser_finish(parser);
  cmark_parser_free(parser);
  current_heap = nullptr;
  return document;
}

}  // namespace

absl::StatusOr<std::string> MarkdownToText(std::string_view markdown,
                                           const MarkdownOptions& options) {
  if (markdown.size() > 0xFFFFFFFFu) {
    return absl::InvalidArgumentError("Markdown over 4 GiB");
  }
  // The tree lives in the heap, freed with it (never walked to be freed:
  // deep nesting would make that recursive).
  const size_t budget =
      kMarkdownMemoryPerByte * markdown.size() + kMarkdownMemoryBase;
  const auto heap = std::make_unique<internal::BudgetHeap>(budget);
  cmark_node* document = ParseWithin(heap.get(), markdown);
  if (document == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "parsing this Markdown needs more than ", budget, " bytes of memory (",
        kMarkdownMemoryPerByte,
        " per input byte + 64 MiB) or more than its process may take; such "
        "documents are refused (a GFM table holds its rows times its "
        "header's cells)"));
  }
  // Walking allocates too (cmark copies a node's literal on first read),
  // at most the input's size in all: unbounded from here, so that no
  // longjmp can cross the C++ frames below.
  heap->LiftBudget();
  current_heap = heap.get();
  const absl::Cleanup unset = [] { current_heap = nullptr; };
  std::unique_ptr<cmark_iter, IterDeleter> iter(cmark_iter_new(document));

  TextBuilder text;
  cmark_event_type event;
  while ((event = cmark_iter_next(iter.get())) != CMARK_EVENT_DONE) {
    cmark_node* node = cmark_iter_get_node(iter.get());
    const bool enter = event == CMARK_EVENT_ENTER;
    switch (cmark_node_get_type(node)) {
      case CMARK_NODE_TEXT:
      case CMARK_NODE_CODE:
        text.Flowing(Literal(node));
        break;
      case CMARK_NODE_SOFTBREAK:
        text.Space();
        break;
      case CMARK_NODE_LINEBREAK:
        text.Break(1);
        break;
      case CMARK_NODE_CODE_BLOCK:
        if (options.keep_code_blocks) {
          text.Break(2);
          text.Preformatted(Literal(node));
          text.Break(2);
        }
        break;
      case CMARK_NODE_HTML_BLOCK: {
        ASSIGN_OR_RETURN(const std::string html, HtmlToText(Literal(node)));
        text.Break(2);
        text.Preformatted(html);
        text.Break(2);
        break;
      }
      case CMARK_NODE_PARAGRAPH:
        // The paragraphs of a tight list's items are its lines.
        text.Break(InTightList(node) ? 1 : 2);
        break;
      case CMARK_NODE_HEADING:
      case CMARK_NODE_BLOCK_QUOTE:
      case CMARK_NODE_LIST:
      case CMARK_NODE_THEMATIC_BREAK:
      case CMARK_NODE_FOOTNOTE_DEFINITION:
        text.Break(2);
        break;
      case CMARK_NODE_ITEM:
        text.Break(1);
        break;
      default:
        // Tables come from an extension: rows on lines, cells apart.
        if (IsExtension(node, "table")) {
          text.Break(2);
        } else if (IsExtension(node, "table_row") ||
                   IsExtension(node, "table_header")) {
          text.Break(1);
        } else if (IsExtension(node, "table_cell") && enter) {
          text.Space();
        }
        break;  // emphasis, links, images: their text children speak
    }
  }
  return std::move(text).Finish();
}

}  // namespace neardup::extract
