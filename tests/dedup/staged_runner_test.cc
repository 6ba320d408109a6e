// The real `neardup dedup --tasks N` (local runner) and `neardup dedup-task`:
// the same output as one process, progress per task, a failed task named
// with its log, a rerun that redoes only what failed, task indexes from the
// schedulers' environment, and a work directory that keeps to one plan.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

namespace {

using ::neardup::testing::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;

using Result = ::neardup::testing::CommandResult;

Result RunNeardup(const std::string& args) {
  return ::neardup::testing::RunBinary(NEARDUP_BIN, args);
}

std::string ReadFile(const std::string& path) {
  return ::neardup::testing::FileContents(path);
}

class StagedRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Four files; every other document a near-copy of the one before.
    for (int f = 0; f < 4; ++f) {
      const std::string path = absl::StrCat(dir_.path(), "/in-", f, ".jsonl");
      std::ofstream out(path);
      for (int i = 0; i < 20; ++i) {
        std::string text;
        for (int w = 0; w < 30; ++w) {
          absl::StrAppend(&text, "w", f, "x", i / 2, "y", w, " ");
        }
        if (i % 2 == 1) absl::StrAppend(&text, "extra");
        out << "{\"text\":\"" << text << "\"}\n";
      }
      inputs_ += " " + path;
    }
  }

  std::string Options() const {
    return inputs_ + " --threshold 0.8 --clusters " + dir_.path() +
           "/out.clusters";
  }

  TempDir dir_;
  std::string inputs_;
};

TEST_F(StagedRunnerTest, WritesWhatOneProcessWritesAndReportsProgress) {
  const Result one =
      RunNeardup("dedup " + inputs_ + " --threshold 0.8 -o " + dir_.path() +
                 "/one.jsonl --clusters " + dir_.path() + "/one.clusters");
  ASSERT_EQ(one.exit_code, 0) << one.out;
  const Result staged = RunNeardup(
      "dedup " + Options() + " -o " + dir_.path() +
      "/out.jsonl --tasks 3 --parallel 2 --work-dir " + dir_.path() + "/work");
  ASSERT_EQ(staged.exit_code, 0) << staged.out;
  EXPECT_THAT(staged.out, HasSubstr("dedup: stage 1 of 6 (signatures): 3 of "
                                    "3 tasks done"));
  EXPECT_THAT(staged.out, HasSubstr("stage 6 of 6 (commit): 1 of 1"));
  EXPECT_THAT(staged.out, HasSubstr("80 records, 40 kept, 40 removed"));
  EXPECT_EQ(ReadFile(dir_.path() + "/out.jsonl"),
            ReadFile(dir_.path() + "/one.jsonl"));
  EXPECT_EQ(ReadFile(dir_.path() + "/out.clusters"),
            ReadFile(dir_.path() + "/one.clusters"));
  // Each task's stats.
  EXPECT_THAT(ReadFile(dir_.path() + "/work/buckets/task-2.json"),
              HasSubstr("\"peak_rss_bytes\":"));
}

TEST_F(StagedRunnerTest, AFailedTaskIsNamedAndARerunRedoesOnlyWhatFailed) {
  // The third file has a malformed record.
  const std::string bad = dir_.path() + "/in-2.jsonl";
  const std::string good = ReadFile(bad);
  std::ofstream(bad, std::ios::app) << "{\"text\": oops}\n";
  const std::string run = "dedup " + Options() + " -o " + dir_.path() +
                          "/out.jsonl --tasks 4 --parallel 1 --work-dir " +
                          dir_.path() + "/work --no-progress";
  const Result failed = RunNeardup(run);
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_THAT(failed.out, HasSubstr("stage signatures task 2 failed"));
  EXPECT_THAT(failed.out, HasSubstr("in-2.jsonl:21"));
  EXPECT_THAT(failed.out, HasSubstr("logs/signatures-2.log"));
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/out.jsonl"));

  const auto done_before = std::filesystem::last_write_time(
      dir_.path() + "/work/signatures/task-1.json");
  std::ofstream(bad, std::ios::trunc) << good;
  const Result rerun = RunNeardup(run);
  ASSERT_EQ(rerun.exit_code, 0) << rerun.out;
  EXPECT_EQ(std::filesystem::last_write_time(dir_.path() +
                                             "/work/signatures/task-1.json"),
            done_before);
  const Result one = RunNeardup("dedup " + inputs_ + " --threshold 0.8 -o " +
                                dir_.path() + "/one.jsonl");
  ASSERT_EQ(one.exit_code, 0) << one.out;
  EXPECT_EQ(ReadFile(dir_.path() + "/out.jsonl"),
            ReadFile(dir_.path() + "/one.jsonl"));
}

TEST_F(StagedRunnerTest, TasksTakeTheirIndexFromTheSchedulersEnvironment) {
  const std::string work = dir_.path() + "/work";
  const std::string output = dir_.path() + "/out.jsonl";
  ASSERT_EQ(RunNeardup("dedup " + Options() + " -o " + output +
                       " --tasks 2 --no-progress --work-dir " + work)
                .exit_code,
            0);
  const std::string first = ReadFile(output);
  // The stages from clusters on, again, one task at a time as a Slurm
  // array or a Kubernetes indexed job would run them.
  for (const char* stage : {"clusters", "filter", "commit"}) {
    std::filesystem::remove_all(work + "/" + stage);
  }
  std::filesystem::remove(output);
  const std::string task = "dedup-task --work-dir " + work + " --stage ";
  using ::neardup::testing::RunCommand;
  const Result clusters =
      RunCommand("JOB_COMPLETION_INDEX=0 " NEARDUP_BIN " " + task + "clusters");
  EXPECT_EQ(clusters.exit_code, 0) << clusters.out;
  for (int index = 0; index < 2; ++index) {
    const Result filter =
        RunCommand("SLURM_ARRAY_TASK_ID=" + std::to_string(index) +
                   " " NEARDUP_BIN " " + task + "filter");
    EXPECT_EQ(filter.exit_code, 0) << filter.out;
  }
  const Result commit = RunNeardup(task + "commit --task-index 0");
  EXPECT_EQ(commit.exit_code, 0) << commit.out;
  EXPECT_EQ(ReadFile(output), first);

  const Result no_index = RunNeardup(task + "filter");
  EXPECT_EQ(no_index.exit_code, 1);
  EXPECT_THAT(no_index.out, HasSubstr("SLURM_ARRAY_TASK_ID"));
  const Result past = RunNeardup(task + "filter --task-index 2");
  EXPECT_THAT(past.out, HasSubstr("no task 2"));
}

TEST_F(StagedRunnerTest, AWorkDirectoryKeepsToOnePlan) {
  const std::string work = " --no-progress --tasks 2 --work-dir " +
                           dir_.path() + "/work -o " + dir_.path() +
                           "/out.jsonl";
  ASSERT_EQ(RunNeardup("dedup " + Options() + work).exit_code, 0);
  // How it runs may change (--parallel, --memory); what it computes not.
  EXPECT_EQ(
      RunNeardup("dedup " + Options() + work + " --parallel 1 --memory 64M")
          .exit_code,
      0);
  const Result other =
      RunNeardup("dedup " + Options() + work + " --drop-empty");
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_THAT(other.out, HasSubstr("holds a staged run with other inputs or "
                                   "options"));
  const Result bloom =
      RunNeardup("dedup " + inputs_ + work + " --method lshbloom");
  EXPECT_EQ(bloom.exit_code, 1);
  EXPECT_THAT(bloom.out, HasSubstr("runs in one process only"));
  EXPECT_THAT(RunNeardup("dedup " + Options() + work + " --memory 12Q").out,
              HasSubstr("not a size"));
}

}  // namespace
