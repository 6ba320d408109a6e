// Runs the real `neardup dedup` binary: exit codes, messages, --stream.

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
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

std::string ReadFile(const std::string& path) {
  return ::neardup::testing::FileContents(path);
}

TEST(DedupBinary, HelpListsDedupAndItsOptions) {
  const Result r = RunNeardup("dedup --help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* flag :
       {"--method", "--verification", "--threshold", "--stream", "--clusters",
        "--stats", "--skip-invalid", "--min-length", "--normalization"}) {
    EXPECT_THAT(r.out, HasSubstr(flag));
  }
}

TEST(DedupBinary, DedupsAFileAndPrintsASummary) {
  TempDir dir;
  const std::string in =
      dir.Write("in.jsonl",
                "{\"text\":\"one two three four five six seven\"}\n"
                "{\"text\":\"One, two, three, four, five, six, seven.\"}\n"
                "{\"text\":\"something else entirely different here\"}\n");
  const std::string out = dir.path() + "/out.jsonl";
  const Result r =
      RunNeardup("dedup " + in + " -o " + out + " --threads 2 --stats " +
                 dir.path() + "/stats.json");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("3 records, 2 kept, 1 removed"));
  EXPECT_EQ(ReadFile(out),
            "{\"text\":\"one two three four five six seven\"}\n"
            "{\"text\":\"something else entirely different here\"}\n");
  EXPECT_THAT(ReadFile(dir.path() + "/stats.json"), HasSubstr("\"total\":3"));
}

// A folder of PDFs, one document each: the binary parses them in a child
// process that is itself; a damaged one is one invalid record.
TEST(DedupBinary, FolderOfPdfsWithDocPerFile) {
  TempDir dir;
  const std::string words =
      "one two three four five six seven eight nine ten eleven twelve";
  dir.Write("pdfs/a.pdf", ::neardup::testing::SimplePdf({words}));
  dir.Write("pdfs/b.pdf", ::neardup::testing::SimplePdf({words + " more"}));
  dir.Write("pdfs/c.pdf",
            ::neardup::testing::SimplePdf({"something else entirely"}));
  dir.Write("pdfs/d.pdf", "%PDF-1.4 damaged");
  const Result r =
      RunNeardup("dedup --doc-per-file " + dir.path() + "/pdfs -o " +
                 dir.path() + "/kept --threshold 0.7 --skip-invalid");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("4 records, 2 kept, 1 removed"));
  EXPECT_THAT(r.out, HasSubstr("1 invalid"));
}

TEST(DedupBinary, MalformedLineFailsNamingFileAndLine) {
  TempDir dir;
  const std::string in =
      dir.Write("in.jsonl", "{\"text\":\"fine\"}\n{\"text\":\"cut off\n");
  const Result r =
      RunNeardup("dedup " + in + " -o " + dir.path() + "/out.jsonl");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("neardup: error: " + in + ":2: malformed JSON"));
  EXPECT_FALSE(std::ifstream(dir.path() + "/out.jsonl").good());
}

TEST(DedupBinary, UnknownAlgorithmIsRejected) {
  const Result r = RunNeardup("dedup x.jsonl -o y --method magic");
  EXPECT_EQ(r.exit_code, 2);  // a bad command line, refused before running
  EXPECT_THAT(r.out, HasSubstr("--method must be"));
}

TEST(DedupBinary, StreamTakesDashOrNothingButNotAFile) {
  TempDir dir;
  const std::string in =
      dir.Write("in.jsonl",
                "{\"text\":\"the same words here\"}\n{\"text\":\"The same "
                "words, here\"}\n");
  for (const char* input : {"", " -"}) {
    const Result r =
        RunNeardup("dedup" + std::string(input) + " --stream < " + in);
    EXPECT_EQ(r.exit_code, 0) << input << ": " << r.out;
    EXPECT_THAT(r.out, HasSubstr("{\"text\":\"the same words here\"}"));
    EXPECT_THAT(r.out, ::testing::Not(HasSubstr("The same words")));
  }
  const Result r = RunNeardup("dedup " + in + " --stream");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("--stream reads standard input only"));
}

// suffix-array reads its input twice; from a pipe the second pass would be
// empty and so would the output, without a word.
TEST(DedupBinary, SuffixArrayRefusesStandardInput) {
  TempDir dir;
  const std::string in = dir.Write(
      "in.txt", "a line long enough to be a span of the suffix array test\n");
  const Result r = RunNeardup("dedup - -o " + dir.path() +
                              "/out.txt --format txt --method suffix-array"
                              " < " +
                              in);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("cannot read standard input"));
}

TEST(DedupBinary, RecordLongerThanTheLimitIsAClearError) {
  TempDir dir;
  const std::string in =
      dir.Write("in.txt", std::string(5000, 'x') + " and no line break");
  const Result r = RunNeardup("dedup " + in + " -o " + dir.path() +
                              "/out.txt --max-record-bytes 1000");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("longer than 1000 bytes (--max-record-bytes)"));
  EXPECT_EQ(
      RunNeardup("dedup " + in + " -o " + dir.path() + "/ok.txt").exit_code, 0);
}

// Reads from `fd` until `want` newlines arrived or 10 s passed.
std::string ReadLines(int fd, int want) {
  std::string got;
  while (std::count(got.begin(), got.end(), '\n') < want) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 10000) <= 0) break;
    char buf[4096];
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0) break;
    got.append(buf, n);
  }
  return got;
}

TEST(DedupBinary, StreamWritesEachKeptRecordBeforeTheInputEnds) {
  int to_child[2], from_child[2];
  ASSERT_EQ(pipe(to_child), 0);
  ASSERT_EQ(pipe(from_child), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    dup2(to_child[0], STDIN_FILENO);
    dup2(from_child[1], STDOUT_FILENO);
    close(to_child[1]);
    close(from_child[0]);
    execl(NEARDUP_BIN, NEARDUP_BIN, "dedup", "--stream", nullptr);
    _exit(127);
  }
  close(to_child[0]);
  close(from_child[1]);
  signal(SIGPIPE, SIG_IGN);
  const std::string first = "{\"text\":\"a stream of words goes by here\"}\n";
  const std::string copy = "{\"text\":\"A stream of words goes by here!\"}\n";
  const std::string other = "{\"text\":\"and now for something new\"}\n";
  // The stdin pipe stays open: the record must come out anyway.
  ASSERT_EQ(write(to_child[1], first.data(), first.size()),
            static_cast<ssize_t>(first.size()));
  EXPECT_EQ(ReadLines(from_child[0], 1), first);
  ASSERT_EQ(write(to_child[1], copy.data(), copy.size()),
            static_cast<ssize_t>(copy.size()));
  ASSERT_EQ(write(to_child[1], other.data(), other.size()),
            static_cast<ssize_t>(other.size()));
  EXPECT_EQ(ReadLines(from_child[0], 1), other);
  close(to_child[1]);
  EXPECT_EQ(ReadLines(from_child[0], 1), "");  // EOF, nothing else
  close(from_child[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
