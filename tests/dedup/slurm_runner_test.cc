// `neardup dedup --runner slurm` against a real single-node Slurm started
// here (slurm-wlm + munge): a job array per stage with dependencies, the
// same output as one process; a failed task names its job, stage and log,
// the jobs after it are cancelled, and the same command submits again only
// what is not done.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "support/run_command.h"
#include "support/slurm_cluster.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace {

using ::neardup::testing::RunCommand;
using ::neardup::testing::SlurmCluster;
using ::neardup::testing::TempDir;
using ::testing::HasSubstr;

using Result = ::neardup::testing::CommandResult;

std::string ReadFile(const std::string& path) {
  return ::neardup::testing::FileContents(path);
}

class SlurmRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!slurm_.Start(std::chrono::seconds(60))) {
      GTEST_SKIP() << "no Slurm here: " << slurm_.why();
    }
    for (int f = 0; f < 3; ++f) {
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
    const Result one = RunCommand(absl::StrCat(
        NEARDUP_BIN, " dedup", inputs_, " --threshold 0.8 -o ", dir_.path(),
        "/one.jsonl --clusters ", dir_.path(), "/one.clusters"));
    ASSERT_EQ(one.exit_code, 0) << one.out;
  }

  Result RunStaged() {
    return RunCommand(absl::StrCat(
        NEARDUP_BIN, " dedup", inputs_, " --threshold 0.8 -o ", dir_.path(),
        "/out.jsonl --clusters ", dir_.path(), "/out.clusters --tasks 3 ",
        "--runner slurm --slurm-option=--time=10 --work-dir ", dir_.path(),
        "/work"));
  }

  TempDir dir_;
  SlurmCluster slurm_{dir_.path() + "/slurm"};
  std::string inputs_;
};

TEST_F(SlurmRunnerTest, RunsEachStageAsAJobArrayWithTheSameOutput) {
  const Result staged = RunStaged();
  ASSERT_EQ(staged.exit_code, 0) << staged.out << slurm_.Logs();
  EXPECT_THAT(staged.out, HasSubstr("submitted stage signatures as Slurm job"));
  EXPECT_THAT(staged.out, HasSubstr("submitted stage commit as Slurm job"));
  EXPECT_THAT(staged.out, HasSubstr("60 records, 30 kept, 30 removed"));
  EXPECT_EQ(ReadFile(dir_.path() + "/out.jsonl"),
            ReadFile(dir_.path() + "/one.jsonl"));
  EXPECT_EQ(ReadFile(dir_.path() + "/out.clusters"),
            ReadFile(dir_.path() + "/one.clusters"));
  const std::string script =
      ReadFile(dir_.path() + "/work/slurm/verify.sbatch");
  EXPECT_THAT(script, HasSubstr("#SBATCH --array=0-2\n"));
  EXPECT_THAT(script, HasSubstr("#SBATCH --time=10\n"));
  // Slurm ran the tasks: their output went where the script said.
  EXPECT_TRUE(std::filesystem::exists(dir_.path() + "/work/logs/verify-2.log"));
}

TEST_F(SlurmRunnerTest, AFailedTaskCancelsTheJobsAfterItAndARerunResumes) {
  const std::string bad = dir_.path() + "/in-1.jsonl";
  const std::string good = ReadFile(bad);
  std::ofstream(bad, std::ios::app) << "{\"text\": oops}\n";
  const Result failed = RunStaged();
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_THAT(failed.out, HasSubstr("(stage signatures) ended with task 1 "
                                    "not done"));
  EXPECT_THAT(failed.out, HasSubstr("in-1.jsonl:21"));
  // Nothing of this run is left in the queue.
  EXPECT_TRUE(::neardup::testing::WaitUntil(
      [] { return RunCommand("squeue -h").out.empty(); },
      std::chrono::seconds(30)))
      << RunCommand("squeue").out;

  std::ofstream(bad, std::ios::trunc) << good;
  const auto done = std::filesystem::last_write_time(
      dir_.path() + "/work/signatures/task-0.json");
  const Result rerun = RunStaged();
  ASSERT_EQ(rerun.exit_code, 0) << rerun.out << slurm_.Logs();
  EXPECT_EQ(std::filesystem::last_write_time(dir_.path() +
                                             "/work/signatures/task-0.json"),
            done);
  EXPECT_THAT(ReadFile(dir_.path() + "/work/logs/signatures-0.log"),
              HasSubstr("is done already"));
  EXPECT_EQ(ReadFile(dir_.path() + "/out.jsonl"),
            ReadFile(dir_.path() + "/one.jsonl"));
}

}  // namespace
