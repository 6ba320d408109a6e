// The PDF parse itself (poppler) and the child's main around it.

#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <memory>
#include <string>

#include "absl/strings/numbers.h"
#include "neardup/base/absl_compat.h"
#include "neardup/extract/pdf.h"
#include "neardup/extract/sandbox.h"
#include "poppler-document.h"
#include "poppler-global.h"
#include "poppler-page.h"
#include "warm_up.h"

namespace neardup::extract {
namespace {

constexpr char kReplacementCharacter[] = "\xEF\xBF\xBD";

void IgnorePopplerMessages(const std::string&, void*) {}

bool WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

int Fail(std::string_view message, int code) {
  WriteAll(STDERR_FILENO, message);
  return code;
}

}  // namespace

absl::StatusOr<std::string> PdfToTextUnisolated(std::string_view pdf) {
  if (pdf.size() > static_cast<size_t>(INT_MAX)) {
    return absl::InvalidArgumentError("PDF over 2 GiB");
  }
  poppler::set_debug_error_function(&IgnorePopplerMessages, nullptr);
  std::unique_ptr<poppler::document> document(
      poppler::document::load_from_raw_data(pdf.data(),
                                            static_cast<int>(pdf.size())));
  if (document == nullptr) {
    return absl::InvalidArgumentError(
        "not a readable PDF (damaged, or not a PDF)");
  }
  if (document->is_locked()) {
    return absl::InvalidArgumentError("the PDF is encrypted");
  }
  std::string text;
  for (int i = 0; i < document->pages(); ++i) {
    std::unique_ptr<poppler::page> page(document->create_page(i));
    if (page == nullptr) continue;
    poppler::byte_array utf8 = page->text().to_utf8();
    // poppler ends a page with a line break and a form feed.
    while (!utf8.empty() &&
           (utf8.back() == '\n' || utf8.back() == '\f' || utf8.back() == ' ')) {
      utf8.pop_back();
    }
    if (i > 0) text += "\n\n";
    for (const char c : utf8) {
      if (c == '\0') {
        text += kReplacementCharacter;
      } else {
        text.push_back(c);
      }
    }
  }
  return text;
}

int PdfChildMain(int argc, char** argv) {
  // argv: program, kPdfChildFlag, memory bytes, CPU seconds, max PDF bytes.
  uint64_t memory_bytes = 0, cpu_seconds = 0, max_pdf_bytes = 0;
  if (argc != 5 || !absl::SimpleAtoi(argv[2], &memory_bytes) ||
      !absl::SimpleAtoi(argv[3], &cpu_seconds) ||
      !absl::SimpleAtoi(argv[4], &max_pdf_bytes)) {
    return Fail("usage: <program> --internal-pdf-child MEMORY CPU MAX_BYTES",
                2);
  }
  // poppler's global state is loaded before the sandbox closes the files.
  (void)PdfToTextUnisolated(internal::kWarmUpPdf);

  std::string pdf;
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = read(STDIN_FILENO, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Fail("cannot read the PDF from the parent", 2);
    if (n == 0) break;
    pdf.append(buffer, static_cast<size_t>(n));
    if (pdf.size() > max_pdf_bytes) return Fail("PDF over the size limit", 3);
  }
  // Confined once the input is read: a parser bug can only answer.
  SandboxOptions sandbox;
  sandbox.memory_bytes = memory_bytes;
  sandbox.cpu_seconds = static_cast<int>(cpu_seconds);
  if (absl::Status entered = EnterSandbox(sandbox); !entered.ok()) {
    return Fail(StdView(entered.message()), 2);
  }
  // Left by _exit: exit handlers (and a sanitizer's leak check, which
  // needs ptrace) are not for a sandboxed process.
  absl::StatusOr<std::string> text = PdfToTextUnisolated(pdf);
  if (!text.ok()) _exit(Fail(StdView(text.status().message()), 3));
  _exit(WriteAll(STDOUT_FILENO, *text) ? 0 : 2);
}

}  // namespace neardup::extract
