#ifndef NEARDUP_EXTRACT_PDF_H_
#define NEARDUP_EXTRACT_PDF_H_

// Text of every page of a PDF (poppler), pages separated by a blank line,
// NUL bytes as U+FFFD. PDF parsers crash and hang on hostile files, so the
// parse runs in a child process with a wall-clock timeout and memory and CPU
// limits: a bad PDF costs one INVALID_ARGUMENT, never the caller.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace neardup::extract {

// argv[1] that makes a neardup program run as the PDF child (PdfChildMain).
inline constexpr char kPdfChildFlag[] = "--internal-pdf-child";

struct PdfOptions {
  absl::Duration timeout = absl::Seconds(30);  // wall clock, then SIGKILL
  size_t max_pdf_bytes = size_t{50} << 20;     // refused before parsing
  size_t max_text_bytes = size_t{64} << 20;    // more text: refused
  size_t memory_bytes = size_t{2} << 30;       // RLIMIT_AS of the child
  int cpu_seconds = 60;                        // RLIMIT_CPU of the child
  // The child: a program whose main calls PdfChildMain when argv[1] is
  // kPdfChildFlag. Empty: this program (/proc/self/exe) with that flag,
  // which needs MaybeRunPdfChild in its main (else INTERNAL: a program that
  // ignored the flag would run again in full).
  std::vector<std::string> child_argv;
};

// INVALID_ARGUMENT, saying why, for a file that is too large, not a PDF,
// encrypted, damaged beyond reading, too slow, too hungry or that crashes
// the parser; INTERNAL when the child cannot be started; RESOURCE_EXHAUSTED
// when as many children as hardware threads are busy for the whole timeout
// (at most that many run at once, process-wide).
absl::StatusOr<std::string> PdfToText(std::string_view pdf,
                                      const PdfOptions& options = {});

// Call first thing in main(): when argv asks for the PDF child, runs it and
// returns true with its exit code; otherwise notes that this program can be
// its own PDF child (PdfOptions::child_argv left empty) and returns false.
bool MaybeRunPdfChild(int argc, char** argv, int* exit_code);

// The child's main: reads a PDF from stdin and writes its text to stdout,
// under the limits given on its command line. Call it from main() when
// argv[1] == kPdfChildFlag.
int PdfChildMain(int argc, char** argv);

// The parse itself, in this process, with no limits: for PdfChildMain and
// for tests of the text it produces.
absl::StatusOr<std::string> PdfToTextUnisolated(std::string_view pdf);

}  // namespace neardup::extract

#endif  // NEARDUP_EXTRACT_PDF_H_
