// Runs the real `neardup` binary: exit codes, stdout and stderr.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include "support/pdf_builder.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

namespace {

using ::neardup::testing::TempDir;
using ::testing::HasSubstr;

using Result = ::neardup::testing::CommandResult;

Result RunNeardup(const std::string& args) {
  return ::neardup::testing::RunBinary(NEARDUP_BIN, args);
}

TEST(CliBinary, FingerprintFromStdin) {
  const Result r = RunNeardup("fingerprint - --kind simhash < /dev/null");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("neardup: error: <stdin>: empty document"));

  TempDir dir;
  const std::string fox =
      dir.Write("fox.txt", "the quick brown fox jumps over the lazy dog");
  const Result ok = RunNeardup("fingerprint --kind simhash < " + fox);
  EXPECT_EQ(ok.exit_code, 0);
  EXPECT_EQ(ok.out, "ce0e315a6cc6f940\n");
}

// Standard input is read once: compare --explain used to read it again for
// the passages and find none.
TEST(CliBinary, CompareExplainReadsStandardInputOnce) {
  TempDir dir;
  const std::string text =
      "the committee met on tuesday to review the budget for the coming "
      "year and agreed to fund the new library wing";
  const std::string a = dir.Write("a.txt", text);
  const std::string b = dir.Write("b.txt", text + " before winter");
  const Result from_files =
      RunNeardup("compare " + a + " " + b + " --explain --json");
  const Result from_stdin =
      RunNeardup("compare - " + b + " --explain --json < " + a);
  ASSERT_EQ(from_stdin.exit_code, 0) << from_stdin.out;
  EXPECT_THAT(from_stdin.out, HasSubstr("\"a_begin\""));
  EXPECT_EQ(from_stdin.out, from_files.out);
}

// The binary parses PDFs in a child process that is itself.
TEST(CliBinary, MarkupAndPdfByExtensionOrFlag) {
  TempDir dir;
  const std::string words = "the quick brown fox jumps over the lazy dog";
  const std::string txt = dir.Write("fox.txt", words);
  const std::string html =
      dir.Write("fox.html",
                "<p>the quick <b>brown</b> fox</p><p>jumps over the lazy "
                "dog</p><script>var x;</script>");
  const std::string pdf =
      dir.Write("fox.pdf", ::neardup::testing::SimplePdf({words}));
  const Result plain = RunNeardup("fingerprint --kind simhash " + txt);
  ASSERT_EQ(plain.exit_code, 0) << plain.out;
  for (const std::string& file : {html, pdf}) {
    const Result r = RunNeardup("fingerprint --kind simhash " + file);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(r.out, plain.out) << file;
  }
  // Standard input has no extension: the flag says what it is.
  const Result piped = RunNeardup(
      "fingerprint --kind simhash --content-type application/pdf < " + pdf);
  EXPECT_EQ(piped.out, plain.out);
  const Result compared = RunNeardup("compare " + html + " " + pdf);
  EXPECT_EQ(compared.exit_code, 0) << compared.out;
  EXPECT_THAT(compared.out, HasSubstr("exact jaccard      1.0000"));
  const Result not_pdf =
      RunNeardup("fingerprint --content-type application/pdf " + txt);
  EXPECT_EQ(not_pdf.exit_code, 1);
  EXPECT_THAT(not_pdf.out, HasSubstr("no %PDF- header"));
  const Result unknown =
      RunNeardup("fingerprint --content-type image/png " + txt);
  EXPECT_EQ(unknown.exit_code, 2);
}

TEST(CliBinary, BadOptionsFailWithUsageHint) {
  const Result r = RunNeardup("fingerprint --no-such-flag");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.out, HasSubstr("--no-such-flag"));
  EXPECT_EQ(RunNeardup("").exit_code, 2);  // a subcommand is required
  const Result seed = RunNeardup("fingerprint --seed 12x");
  EXPECT_EQ(seed.exit_code, 2);
  EXPECT_THAT(seed.out, HasSubstr("--seed"));
}

TEST(CliBinary, InvalidUtf8IsAnError) {
  TempDir dir;
  const std::string bad = dir.Write("bad.txt", "ok \xFF");
  const Result r = RunNeardup("canonicalize " + bad);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("invalid UTF-8 at byte 3"));
}

TEST(CliBinary, HelpListsCommands) {
  const Result r = RunNeardup("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("canonicalize"));
  EXPECT_THAT(r.out, HasSubstr("fingerprint"));
  EXPECT_THAT(r.out, HasSubstr("compare"));
}

}  // namespace
