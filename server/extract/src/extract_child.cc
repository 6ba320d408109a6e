// The extraction child: sandboxed, it answers one parse request at a time
// on its socket (stdin and stdout) until the parent closes it.

#include <malloc.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "absl/strings/numbers.h"
#include "extract_protocol.h"
#include "neardup/base/absl_compat.h"
#include "neardup/extract/extract_pool.h"
#include "neardup/extract/html.h"
#include "neardup/extract/markdown.h"
#include "neardup/extract/pdf.h"
#include "neardup/extract/sandbox.h"
#include "warm_up.h"

namespace neardup::extract {
namespace {

using internal::AnswerCode;
using internal::AnswerHeader;
using internal::RequestHeader;

size_t memory_limit = 0;

bool ReadExact(int fd, void* data, size_t size) {
  char* at = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = read(fd, at, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool WriteAll(int fd, const void* data, size_t size) {
  const char* at = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = write(fd, at, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool Answer(AnswerCode code, std::string_view body) {
  AnswerHeader header;
  header.code = code;
  header.length = body.size();
  return WriteAll(STDOUT_FILENO, &header, sizeof(header)) &&
         WriteAll(STDOUT_FILENO, body.data(), body.size());
}

// Out of memory anywhere (operator new, poppler): answer without
// allocating, and leave; the parent starts a fresh child.
[[noreturn]] void OutOfMemory() {
  char message[160];
  const int n = std::snprintf(message, sizeof(message),
                              "needs more than the parser's memory limit of "
                              "%zu bytes",
                              memory_limit);
  Answer(AnswerCode::kOverMemory,
         std::string_view(message, n > 0 ? static_cast<size_t>(n) : 0));
  _exit(0);
}

absl::StatusOr<std::string> Parse(ContentType type, std::string_view input,
                                  bool keep_code_blocks) {
  switch (type) {
    case ContentType::kHtml:
      return HtmlToText(input);
    case ContentType::kMarkdown:
      return MarkdownToText(input, {.keep_code_blocks = keep_code_blocks});
    case ContentType::kPdf:
      return PdfToTextUnisolated(input);
    case ContentType::kPlainText:
      break;
  }
  return std::string(input);
}

}  // namespace

int ExtractChildMain(int argc, char** argv) {
  uint64_t memory_bytes = 0, max_input_bytes = 0, max_text_bytes = 0;
  if (argc != 5 || !absl::SimpleAtoi(argv[2], &memory_bytes) ||
      !absl::SimpleAtoi(argv[3], &max_input_bytes) ||
      !absl::SimpleAtoi(argv[4], &max_text_bytes)) {
    std::fputs(
        "usage: <program> --internal-extract-child MEMORY MAX_INPUT "
        "MAX_TEXT\n",
        stderr);
    return 2;
  }
  // Gone with the parent, whichever way it goes.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() == 1) return 2;
  memory_limit = memory_bytes;

  (void)PdfToTextUnisolated(internal::kWarmUpPdf);
  (void)MarkdownToText("# a\n\n| a | b |\n| - | - |\n| c | d |\n~x~ www.a.b\n");
  (void)HtmlToText("<p>a</p>");
  SandboxOptions sandbox;
  sandbox.memory_bytes = memory_bytes;
  // A backstop for an idle child that spins: the parent replaces children
  // long before an honest one gets near it.
  sandbox.cpu_seconds = kChildCpuSeconds;
  if (absl::Status entered = EnterSandbox(sandbox); !entered.ok()) {
    std::fprintf(stderr, "%s\n", std::string(entered.message()).c_str());
    return 2;
  }
  std::set_new_handler([] { OutOfMemory(); });

  while (true) {
    RequestHeader request;
    if (!ReadExact(STDIN_FILENO, &request, sizeof(request))) _exit(0);
    if (request.magic != internal::kRequestMagic ||
        request.content_type > static_cast<uint8_t>(ContentType::kPdf)) {
      _exit(2);  // not our parent speaking
    }
    if (request.length > max_input_bytes) {
      Answer(AnswerCode::kInvalidInput, "input over the size limit");
      _exit(0);
    }
    {
      std::string input(request.length, '\0');
      if (!ReadExact(STDIN_FILENO, input.data(), input.size())) _exit(2);
      absl::StatusOr<std::string> text =
          Parse(static_cast<ContentType>(request.content_type), input,
                request.keep_code_blocks != 0);
      bool sent;
      if (!text.ok()) {
        sent =
            Answer(AnswerCode::kInvalidInput, StdView(text.status().message()));
      } else if (text->size() > max_text_bytes) {
        sent = Answer(AnswerCode::kTextTooLong, "");
      } else {
        sent = Answer(AnswerCode::kText, *text);
      }
      if (!sent) _exit(2);
    }
    malloc_trim(0);  // a large parse's memory goes back now
  }
}

}  // namespace neardup::extract
