// Fuzzes extraction through the sandboxed children (ExtractPool), the way
// the server runs it: the first input byte picks HTML, Markdown or PDF.
// Beyond "this process survives whatever a child does": every answer is
// text or INVALID_ARGUMENT, markup gives the same text as in this process,
// and the pool answers a known input right after.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "neardup/extract/extract_pool.h"
#include "neardup/extract/html.h"
#include "neardup/extract/markdown.h"

namespace {

neardup::extract::ExtractPool& Pool() {
  static auto* pool = [] {
    neardup::extract::ExtractPoolOptions options;
    options.workers = 1;
    options.memory_bytes_per_worker = size_t{256} << 20;
    options.timeout = absl::Seconds(5);
    options.child_argv = {NEARDUP_PDF_CHILD,
                          neardup::extract::kExtractChildFlag};
    return new neardup::extract::ExtractPool(options);
  }();
  return *pool;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using neardup::extract::ContentType;
  if (size == 0) return 0;
  std::string input(reinterpret_cast<const char*>(data) + 1, size - 1);
  ContentType type;
  switch (data[0] % 3) {
    case 0:
      type = ContentType::kHtml;
      break;
    case 1:
      type = ContentType::kMarkdown;
      break;
    default:
      type = ContentType::kPdf;
      // Most mutations would stop at the header check: keep one.
      if (input.substr(0, 1024).find("%PDF-") == std::string::npos) {
        input.insert(0, "%PDF-1.4\n");
      }
      break;
  }
  const absl::StatusOr<std::string> text = Pool().Extract(input, type);
  if (!text.ok() && !absl::IsInvalidArgument(text.status())) std::abort();
  if (text.ok() && type != ContentType::kPdf) {
    const absl::StatusOr<std::string> here =
        type == ContentType::kHtml ? neardup::extract::HtmlToText(input)
                                   : neardup::extract::MarkdownToText(input);
    if (!here.ok() || *here != *text) std::abort();
  }
  if (Pool().Extract("<p>ok</p>", ContentType::kHtml).value_or("") != "ok") {
    std::abort();
  }
  return 0;
}
