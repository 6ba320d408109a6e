// Runs the real `neardup` binary: exit codes, stdout and stderr.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

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
  const Result r = RunNeardup("fingerprint - --algo simhash < /dev/null");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("neardup: error: <stdin>: empty document"));

  TempDir dir;
  const std::string fox =
      dir.Write("fox.txt", "the quick brown fox jumps over the lazy dog");
  const Result ok = RunNeardup("fingerprint --algo simhash < " + fox);
  EXPECT_EQ(ok.exit_code, 0);
  EXPECT_EQ(ok.out, "ce0e315a6cc6f940\n");
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
