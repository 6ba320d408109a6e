// MB/s of each content type's extraction (server/extract), one run side by
// side. The PDF rows parse in a child process per file (the CLI's way), in
// this process (poppler alone) and in a reused sandboxed child (the
// server's way, *InPool, as for HTML and Markdown). Run by hand:
//   build/release/bench/extract_bench
// and pass --internal-pdf-child only through PdfToText.

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "neardup/extract/extract_pool.h"
#include "neardup/extract/html.h"
#include "neardup/extract/markdown.h"
#include "neardup/extract/pdf.h"
#include "support/corpus.h"
#include "support/pdf_builder.h"

namespace {

using ::neardup::testing::GeneratedText;

// About 64 KB of paragraphs of generated words, in each format.
constexpr int kParagraphs = 120;

std::string Html() {
  std::string html =
      "<html><head><title>bench</title><style>p{}</style>"
      "<script>var x = 1;</script></head><body>";
  for (int i = 0; i < kParagraphs; ++i) {
    absl::StrAppend(&html, "<div class=\"c\"><h2>Part ", i, "</h2><p>",
                    GeneratedText(i, 40), " <a href=\"/x\">link</a> <b>",
                    GeneratedText(i + 1000, 20),
                    "</b></p><ul><li>one</li>"
                    "<li>two &amp; three</li></ul></div>");
  }
  return html + "</body></html>";
}

std::string Markdown() {
  std::string md;
  for (int i = 0; i < kParagraphs; ++i) {
    absl::StrAppend(&md, "## Part ", i, "\n\n", GeneratedText(i, 40),
                    " [link](/x) **", GeneratedText(i + 1000, 20),
                    "**\n\n- one\n- two &amp; three\n\n");
  }
  return md;
}

std::string Pdf() {
  std::vector<std::string> pages;
  for (int i = 0; i < kParagraphs / 4; ++i) {
    pages.push_back(GeneratedText(i, 240));
  }
  return ::neardup::testing::SimplePdf(pages);
}

void BM_Html(benchmark::State& state) {
  const std::string html = Html();
  for (auto _ : state) {
    benchmark::DoNotOptimize(neardup::extract::HtmlToText(html));
  }
  state.SetBytesProcessed(state.iterations() * html.size());
}
BENCHMARK(BM_Html);

void BM_Markdown(benchmark::State& state) {
  const std::string md = Markdown();
  for (auto _ : state) {
    benchmark::DoNotOptimize(neardup::extract::MarkdownToText(md));
  }
  state.SetBytesProcessed(state.iterations() * md.size());
}
BENCHMARK(BM_Markdown);

void BM_PdfInProcess(benchmark::State& state) {
  const std::string pdf = Pdf();
  for (auto _ : state) {
    benchmark::DoNotOptimize(neardup::extract::PdfToTextUnisolated(pdf));
  }
  state.SetBytesProcessed(state.iterations() * pdf.size());
}
BENCHMARK(BM_PdfInProcess);

void BM_PdfInChild(benchmark::State& state) {
  const std::string pdf = Pdf();
  for (auto _ : state) {
    auto text = neardup::extract::PdfToText(pdf);
    if (!text.ok()) {
      state.SkipWithError(std::string(text.status().message()).c_str());
      break;
    }
    benchmark::DoNotOptimize(text);
  }
  state.SetBytesProcessed(state.iterations() * pdf.size());
}
BENCHMARK(BM_PdfInChild)->UseRealTime();

// The same inputs through the server's sandboxed children (ExtractPool, a
// child reused for one client): what a request with content_type pays.
neardup::extract::ExtractPool& Pool() {
  static auto* pool = [] {
    neardup::extract::ExtractPoolOptions options;
    options.workers = 1;
    return new neardup::extract::ExtractPool(options);
  }();
  return *pool;
}

void InPool(benchmark::State& state, const std::string& input,
            neardup::extract::ContentType type) {
  for (auto _ : state) {
    auto text = Pool().Extract(input, type);
    if (!text.ok()) {
      state.SkipWithError(std::string(text.status().message()).c_str());
      break;
    }
    benchmark::DoNotOptimize(text);
  }
  state.SetBytesProcessed(state.iterations() * input.size());
}
void BM_HtmlInPool(benchmark::State& state) {
  InPool(state, Html(), neardup::extract::ContentType::kHtml);
}
BENCHMARK(BM_HtmlInPool)->UseRealTime();
void BM_MarkdownInPool(benchmark::State& state) {
  InPool(state, Markdown(), neardup::extract::ContentType::kMarkdown);
}
BENCHMARK(BM_MarkdownInPool)->UseRealTime();
void BM_PdfInPool(benchmark::State& state) {
  InPool(state, Pdf(), neardup::extract::ContentType::kPdf);
}
BENCHMARK(BM_PdfInPool)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  if (int code = 0; neardup::extract::MaybeRunPdfChild(argc, argv, &code)) {
    return code;
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
