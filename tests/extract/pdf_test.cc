// PDF text through the child process, and every way a hostile file can end
// it: each one INVALID_ARGUMENT, the test process untouched.

#include "neardup/extract/pdf.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "support/pdf_builder.h"
#include "support/status_matchers.h"

namespace neardup::extract {
namespace {

using ::neardup::testing::PdfOfObjects;
using ::neardup::testing::PdfStream;
using ::neardup::testing::SimplePdf;
using ::testing::HasSubstr;

PdfOptions RealChild() {
  PdfOptions options;
  options.child_argv = {NEARDUP_PDF_CHILD, kPdfChildFlag};
  return options;
}

// A child that runs `script` under /bin/sh instead of parsing.
PdfOptions FakeChild(const std::string& script) {
  PdfOptions options;
  options.child_argv = {"/bin/sh", "-c", script};
  return options;
}

const std::string& TwoPages() {
  static const std::string* pdf =
      new std::string(SimplePdf({"Hello from page one", "And page two"}));
  return *pdf;
}

TEST(Pdf, TextOfEveryPage) {
  ASSERT_OK_AND_ASSIGN(const std::string text,
                       PdfToText(TwoPages(), RealChild()));
  EXPECT_THAT(text, HasSubstr("Hello from page one"));
  EXPECT_THAT(text, HasSubstr("And page two"));
  EXPECT_LT(text.find("one"), text.find("two"));
  EXPECT_THAT(text, HasSubstr("\n\n"));  // pages apart
  ASSERT_OK_AND_ASSIGN(const std::string direct,
                       PdfToTextUnisolated(TwoPages()));
  EXPECT_EQ(text, direct);
}

TEST(Pdf, NotAPdfTooLargeOrEmpty) {
  EXPECT_THAT(PdfToText("just text", RealChild()).status().message(),
              HasSubstr("no %PDF- header"));
  PdfOptions small = RealChild();
  small.max_pdf_bytes = 100;
  const absl::Status big = PdfToText(TwoPages(), small).status();
  EXPECT_EQ(big.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(big.message(), HasSubstr("over the limit of 100"));
  const absl::Status damaged =
      PdfToText("%PDF-1.4\nnothing else", RealChild()).status();
  EXPECT_EQ(damaged.code(), absl::StatusCode::kInvalidArgument);
}

// Files of our own making that parsers have choked on: whatever poppler
// makes of them, the answer is text or INVALID_ARGUMENT.
TEST(Pdf, MalformedFilesGiveTextOrAClearError) {
  const std::string& good = TwoPages();
  std::vector<std::string> hostile = {
      good.substr(0, good.size() / 2),   // truncated
      good.substr(0, good.size() - 30),  // no xref
      // Page tree that loops: pages -> kids -> pages.
      PdfOfObjects({"<< /Type /Catalog /Pages 2 0 R >>",
                    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                    "<< /Type /Pages /Kids [2 0 R] /Count 1 /Parent 2 0 R >>"}),
      // Objects that refer to themselves.
      PdfOfObjects({"<< /Type /Catalog /Pages 1 0 R >>"}),
      // A stream claiming a terabyte.
      PdfOfObjects({"<< /Type /Catalog /Pages 2 0 R >>",
                    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                    "<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>",
                    "<< /Length 1000000000000 >>\nstream\nBT ET\nendstream"}),
  };
  for (size_t i = 0; i < hostile.size(); ++i) {
    SCOPED_TRACE(i);
    const absl::StatusOr<std::string> text = PdfToText(hostile[i], RealChild());
    if (!text.ok()) {
      EXPECT_EQ(text.status().code(), absl::StatusCode::kInvalidArgument)
          << text.status();
    }
  }
}

// A page whose content stream inflates to gigabytes: the wall clock stops
// it.
TEST(Pdf, DecompressionBombIsStoppedByTheTimeout) {
  const std::string pdf = ::neardup::testing::DeflateBombPdf();
  PdfOptions options = RealChild();
  options.timeout = absl::Milliseconds(500);
  const absl::Status status = PdfToText(pdf, options).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), HasSubstr("took longer than 500ms"));
}

TEST(Pdf, HangingChildIsKilledAtTheTimeout) {
  PdfOptions options = FakeChild("sleep 30");
  options.timeout = absl::Milliseconds(300);
  const absl::Status status = PdfToText(TwoPages(), options).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("took longer than 300ms"));
}

TEST(Pdf, CrashingChildIsAClearError) {
  const absl::Status status =
      PdfToText(TwoPages(), FakeChild("kill -SEGV $$")).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("signal 11"));
}

TEST(Pdf, ChildThatExitsEarlyOrTalksTooMuch) {
  // Exits without reading its input: no SIGPIPE reaches this process.
  const absl::Status early =
      PdfToText(std::string(8 << 20, 'x').insert(0, "%PDF-"),
                FakeChild("echo 'bad xref' >&2; exit 3"))
          .status();
  EXPECT_EQ(early.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(early.message(), HasSubstr("PDF: bad xref"));
  PdfOptions chatty = FakeChild("cat >/dev/null; yes");
  chatty.max_text_bytes = 1 << 20;
  EXPECT_THAT(PdfToText(TwoPages(), chatty).status().message(),
              HasSubstr("over the limit of 1048576"));
  PdfOptions missing;
  missing.child_argv = {"/nonexistent/neardup"};
  EXPECT_EQ(PdfToText(TwoPages(), missing).status().code(),
            absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace neardup::extract
