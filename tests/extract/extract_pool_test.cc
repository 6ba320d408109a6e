// Extraction in sandboxed children: the same text as in-process, every
// hostile input a clear error within the budgets, and a pool that keeps
// answering whatever its children went through.

#include "neardup/extract/extract_pool.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "neardup/extract/html.h"
#include "neardup/extract/markdown.h"
#include "neardup/extract/pdf.h"
#include "support/hostile_inputs.h"
#include "support/pdf_builder.h"
#include "support/status_matchers.h"

namespace neardup::extract {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;

ExtractPoolOptions RealChildren(int workers = 2) {
  ExtractPoolOptions options;
  options.workers = workers;
  options.memory_bytes_per_worker = size_t{256} << 20;
  options.timeout = absl::Seconds(10);
  options.child_argv = {NEARDUP_PDF_CHILD, kExtractChildFlag};
  return options;
}

// Children that run `script` under /bin/sh instead of parsing.
ExtractPoolOptions FakeChildren(const std::string& script) {
  ExtractPoolOptions options;
  options.workers = 1;
  options.timeout = absl::Milliseconds(300);
  options.child_argv = {"/bin/sh", "-c", script};
  return options;
}

const char kHtml[] = "<html><body><h1>Title</h1><p>One <b>two</b></p></body>";
const char kMarkdown[] =
    "# Title\n\nOne **two**\n\n| a | b |\n|---|---|\n| c |\n";

TEST(ExtractPool, SameTextAsInProcess) {
  ExtractPool pool(RealChildren());
  ASSERT_OK_AND_ASSIGN(std::string html,
                       pool.Extract(kHtml, ContentType::kHtml));
  EXPECT_EQ(html, *HtmlToText(kHtml));
  ASSERT_OK_AND_ASSIGN(std::string markdown,
                       pool.Extract(kMarkdown, ContentType::kMarkdown));
  EXPECT_EQ(markdown, *MarkdownToText(kMarkdown));
  const std::string pdf = testing::SimplePdf({"Hello from page one", "Two"});
  ASSERT_OK_AND_ASSIGN(std::string text, pool.Extract(pdf, ContentType::kPdf));
  EXPECT_EQ(text, *PdfToTextUnisolated(pdf));
  // Options travel with the request.
  const std::string code = "a\n\n```\nint x;\n```\n";
  ASSERT_OK_AND_ASSIGN(
      std::string without,
      pool.Extract(code, ContentType::kMarkdown, {.keep_code_blocks = false}));
  EXPECT_EQ(without, *MarkdownToText(code, {.keep_code_blocks = false}));
  EXPECT_EQ(pool.Extract("plain", ContentType::kPlainText).value(), "plain");
  // Children are reused, not started per request.
  EXPECT_LE(pool.stats().started, 2u);
  EXPECT_EQ(pool.stats().parses, 4u);
}

TEST(ExtractPool, ChildrenRunSandboxed) {
  ExtractPool pool(RealChildren(1));
  ASSERT_OK(pool.Extract(kHtml, ContentType::kHtml).status());
  const std::vector<pid_t> pids = pool.ChildPids();
  ASSERT_EQ(pids.size(), 1u);
  std::ifstream status("/proc/" + std::to_string(pids[0]) + "/status");
  std::string line, seen;
  while (std::getline(status, line)) {
    if (line.starts_with("NoNewPrivs:") || line.starts_with("Seccomp:")) {
      seen += line + "\n";
    }
  }
  EXPECT_THAT(seen, HasSubstr("NoNewPrivs:\t1"));
  EXPECT_THAT(seen, HasSubstr("Seccomp:\t2"));  // a filter is in force
  std::ifstream environ("/proc/" + std::to_string(pids[0]) + "/environ");
  const std::string env((std::istreambuf_iterator<char>(environ)), {});
  // Nothing of the parent's (a sanitizer build passes its own settings).
  for (absl::string_view var : absl::StrSplit(env, '\0', absl::SkipEmpty())) {
    EXPECT_TRUE(absl::StrContains(var, "SAN_")) << var;
  }
}

// The same sandbox, entered by a probe that then tries what a hijacked
// parser would.
TEST(ExtractPool, SandboxRefusesFilesSocketsProcessesAndCode) {
  const std::string command =
      std::string(NEARDUP_PDF_CHILD) + " --sandbox-probe /proc/self/status";
  FILE* probe = popen(command.c_str(), "r");
  ASSERT_NE(probe, nullptr);
  char buffer[512] = {};
  const size_t n = fread(buffer, 1, sizeof(buffer) - 1, probe);
  ASSERT_EQ(pclose(probe), 0) << buffer;
  const std::string out(buffer, n);
  EXPECT_THAT(out, HasSubstr("socket=EPERM"));
  EXPECT_THAT(out, HasSubstr("unix=EPERM"));
  EXPECT_THAT(out, HasSubstr("read=EPERM"));
  EXPECT_THAT(out, HasSubstr("create=EPERM"));
  EXPECT_THAT(out, HasSubstr("fork=EPERM"));
  EXPECT_THAT(out, HasSubstr("exec_memory=EPERM"));
  // Nothing that reaches another process: signals, descriptor owners.
  EXPECT_THAT(out, HasSubstr("signal_parent=EPERM"));
  EXPECT_THAT(out, HasSubstr("own_socket=EPERM"));
  EXPECT_THAT(out, HasSubstr("stat_path=EPERM"));
  EXPECT_THAT(out, HasSubstr("memory=ok"));  // it can still work
  EXPECT_THAT(out, HasSubstr("seccomp=on"));
}

TEST(ExtractPool, HostileInputsAreRefusedWithinTheBudgets) {
  ExtractPoolOptions options = RealChildren();
  options.timeout = absl::Seconds(4);  // the deflate bomb needs ~8 s
  ExtractPool pool(options);
  for (const testing::HostileInput& input : testing::AllHostileInputs()) {
    const ContentType type = ParseContentType(input.content_type).value();
    const auto start = std::chrono::steady_clock::now();
    const absl::StatusOr<std::string> text = pool.Extract(input.bytes, type);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    // Text within the budgets, or a refusal that says which.
    EXPECT_THAT(text.status().code(), AnyOf(absl::StatusCode::kOk,
                                            absl::StatusCode::kInvalidArgument))
        << input.name << ": " << text.status();
    EXPECT_LT(seconds, 6) << input.name;
    std::printf(
        "%-32s %7zu bytes  %5.2f s  %s\n", input.name.c_str(),
        input.bytes.size(), seconds,
        text.ok() ? "text"
                  : std::string(text.status().message()).substr(0, 90).c_str());
    // The pool answers the next request as if nothing happened.
    EXPECT_EQ(pool.Extract(kHtml, ContentType::kHtml).value(),
              *HtmlToText(kHtml))
        << "after " << input.name;
  }
}

TEST(ExtractPool, GfmTableIsRefusedNamingMemory) {
  ExtractPool pool(RealChildren(1));
  const absl::Status status =
      pool.Extract(testing::GfmTable(4000, 8000), ContentType::kMarkdown)
          .status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("memory"));
}

TEST(ExtractPool, HangingChildIsKilledAtTheTimeout) {
  ExtractPool pool(FakeChildren("exec sleep 30"));
  const absl::Status status = pool.Extract(kHtml, ContentType::kHtml).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("took longer than 300ms"));
  EXPECT_THAT(status.message(), HasSubstr("--extract-timeout"));
  EXPECT_TRUE(pool.ChildPids().empty());
  EXPECT_EQ(pool.stats().timeouts, 1u);
}

TEST(ExtractPool, CrashingChildIsAClearError) {
  ExtractPool pool(FakeChildren("kill -SEGV $$"));
  const absl::Status status =
      pool.Extract(kMarkdown, ContentType::kMarkdown).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("signal 11"));
  EXPECT_THAT(status.message(), HasSubstr("Markdown parser"));
  EXPECT_EQ(pool.stats().crashes, 1u);
}

TEST(ExtractPool, ChildThatCannotStartIsInternal) {
  ExtractPoolOptions options = RealChildren(1);
  options.child_argv = {"/nonexistent/neardup"};
  ExtractPool pool(options);
  EXPECT_EQ(pool.Extract(kHtml, ContentType::kHtml).status().code(),
            absl::StatusCode::kInternal);
}

TEST(ExtractPool, FullPoolFailsFast) {
  ExtractPoolOptions options = FakeChildren("exec sleep 30");
  options.timeout = absl::Seconds(30);
  ExtractPool pool(options);
  std::thread hung([&] { (void)pool.Extract(kHtml, ContentType::kHtml); });
  // The first request holds the only worker once its child runs.
  while (pool.ChildPids().empty()) std::this_thread::yield();
  const auto start = std::chrono::steady_clock::now();
  const absl::Status busy = pool.Extract(kHtml, ContentType::kHtml).status();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_EQ(busy.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(busy.message(), HasSubstr("--extract-workers"));
  EXPECT_EQ(pool.stats().busy, 1u);
  kill(pool.ChildPids()[0], SIGKILL);  // ends the first request
  hung.join();
}

TEST(ExtractPool, SizeLimitsBeforeAnyChild) {
  ExtractPoolOptions options = RealChildren(1);
  options.max_input_bytes = 10;
  ExtractPool pool(options);
  EXPECT_THAT(pool.Extract(kHtml, ContentType::kHtml).status().message(),
              HasSubstr("over the limit of 10 bytes"));
  EXPECT_THAT(pool.Extract("not", ContentType::kPdf).status().message(),
              HasSubstr("no %PDF- header"));
  EXPECT_EQ(pool.stats().started, 0u);
}

TEST(ExtractPool, TextOverTheLimitIsRefused) {
  ExtractPoolOptions options = RealChildren(1);
  options.max_text_bytes = 5;
  ExtractPool pool(options);
  EXPECT_THAT(pool.Extract(kHtml, ContentType::kHtml).status().message(),
              HasSubstr("over the limit of 5 bytes"));
  // The child stays: its answer was a refusal, not a failure.
  EXPECT_EQ(pool.stats().started, 1u);
  EXPECT_EQ(pool.ChildPids().size(), 1u);
}

TEST(ExtractPool, ChildIsReplacedAfterItsRequests) {
  ExtractPoolOptions options = RealChildren(1);
  options.requests_per_worker = 2;
  ExtractPool pool(options);
  for (int i = 0; i < 5; ++i) {
    ASSERT_OK(pool.Extract(kHtml, ContentType::kHtml).status());
  }
  EXPECT_EQ(pool.stats().started, 3u);
}

}  // namespace
}  // namespace neardup::extract

namespace neardup::extract {
namespace {

TEST(ExtractPoolPrincipals, AChildOnlyEverParsesOneClientsInputs) {
  ExtractPool pool(RealChildren(1));
  pid_t first;
  {
    const ExtractPool::ScopedPrincipal alice("token:alice");
    ASSERT_OK(pool.Extract(kHtml, ContentType::kHtml).status());
    first = pool.ChildPids().at(0);
    ASSERT_OK(pool.Extract(kHtml, ContentType::kHtml).status());
    EXPECT_EQ(pool.ChildPids().at(0), first);  // reused for the same client
  }
  {
    const ExtractPool::ScopedPrincipal bob("token:bob");
    ASSERT_OK(pool.Extract(kHtml, ContentType::kHtml).status());
    EXPECT_NE(pool.ChildPids().at(0), first);  // never alice's child
  }
  EXPECT_EQ(pool.stats().started, 2u);
}

TEST(ExtractPoolPrincipals, WorkersPreferTheirClientsChild) {
  ExtractPool pool(RealChildren(2));
  {
    const ExtractPool::ScopedPrincipal alice("alice");
    ASSERT_OK(pool.Extract(kHtml, ContentType::kHtml).status());
  }
  {
    const ExtractPool::ScopedPrincipal bob("bob");
    ASSERT_OK(pool.Extract(kHtml, ContentType::kHtml).status());
  }
  for (int i = 0; i < 3; ++i) {
    for (const char* who : {"alice", "bob"}) {
      const ExtractPool::ScopedPrincipal principal(who);
      ASSERT_OK(pool.Extract(kHtml, ContentType::kHtml).status());
    }
  }
  EXPECT_EQ(pool.stats().started, 2u);  // one child each, kept
}

// A child that died while idle is replaced before the next input goes to
// it; the input is not blamed.
TEST(ExtractPoolPrincipals, ChildThatDiedIdleIsReplacedQuietly) {
  ExtractPool pool(RealChildren(1));
  ASSERT_OK(pool.Extract(kHtml, ContentType::kHtml).status());
  const pid_t child = pool.ChildPids().at(0);
  kill(child, SIGKILL);
  // Until the kernel has made it a zombie, its socket may look fine.
  std::string state;
  while (state.find(") Z") == std::string::npos) {
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::getline(stat, state);
  }
  ASSERT_OK_AND_ASSIGN(std::string text,
                       pool.Extract(kHtml, ContentType::kHtml));
  EXPECT_EQ(text, *HtmlToText(kHtml));
  EXPECT_EQ(pool.stats().crashes, 0u);
  EXPECT_EQ(pool.stats().started, 2u);
}

}  // namespace
}  // namespace neardup::extract
