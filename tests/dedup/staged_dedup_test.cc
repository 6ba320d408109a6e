// Staged dedup (dedup/staged.h), every task run in this process: the same
// kept records, clusters and stats as RunDedup for any number of tasks, with
// and without spilling; tasks refuse files of another plan or inputs that
// changed; a task run again redoes only itself.

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "dedup/dedup_fixtures.h"
#include "dedup/staged_fixtures.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/json.h"
#include "neardup/dedup/dedup.h"
#include "neardup/dedup/staged.h"
#include "support/run_command.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace neardup::dedup {
namespace {

using ::neardup::testing::Join;
using ::neardup::testing::StatusIs;
using ::neardup::testing::TempDir;
using ::neardup::testing::WordSource;
using ::testing::HasSubstr;

std::string ReadFile(const std::string& path) {
  return ::neardup::testing::FileContents(path);
}

struct Case {
  Algorithm algorithm;
  Verify verify;
  int tasks;
};

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string name = absl::StrCat(AbslView(AlgorithmName(info.param.algorithm)),
                                  "_", AbslView(VerifyName(info.param.verify)),
                                  "_", info.param.tasks, "tasks");
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

class StagedDedupTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    options_.input.inputs = WriteCorpus(dir_.path(), 10, 60);
    options_.algorithm = GetParam().algorithm;
    options_.verify = GetParam().verify;
    options_.threshold = 0.7;
    options_.threads = 2;
    options_.progress = false;
  }

  // One process, into "one.*".
  void RunOneProcess() {
    DedupOptions one = options_;
    one.output = dir_.path() + "/one.jsonl";
    one.clusters_path = dir_.path() + "/one.clusters";
    one.stats_path = dir_.path() + "/one.stats";
    ASSERT_OK(RunDedup(one).status());
  }

  DedupOptions Staged(const std::string& name) const {
    DedupOptions staged = options_;
    staged.output = dir_.path() + "/" + name + ".jsonl";
    staged.clusters_path = dir_.path() + "/" + name + ".clusters";
    staged.stats_path = dir_.path() + "/" + name + ".stats";
    return staged;
  }

  void ExpectSameAsOneProcess(const std::string& name) {
    EXPECT_EQ(ReadFile(dir_.path() + "/" + name + ".jsonl"),
              ReadFile(dir_.path() + "/one.jsonl"));
    EXPECT_EQ(ReadFile(dir_.path() + "/" + name + ".clusters"),
              ReadFile(dir_.path() + "/one.clusters"));
    EXPECT_EQ(Comparable(ReadFile(dir_.path() + "/" + name + ".stats")),
              Comparable(ReadFile(dir_.path() + "/one.stats")));
  }

  TempDir dir_;
  DedupOptions options_;
};

TEST_P(StagedDedupTest, WritesWhatOneProcessWrites) {
  RunOneProcess();
  const nlohmann::json one =
      nlohmann::json::parse(ReadFile(dir_.path() + "/one.stats"));
  // The corpus has duplicates, clusters of several, and empty documents.
  ASSERT_GT(one["duplicates"].get<int>(), 30);
  ASSERT_GT(one["empty"].get<int>(), 0);

  const StagedRun run{.work_dir = dir_.path() + "/work",
                      .tasks = GetParam().tasks,
                      .plan_id = "p1"};
  ASSERT_OK(RunAllTasks(Staged("staged"), run));
  ExpectSameAsOneProcess("staged");
}

TEST_P(StagedDedupTest, SpillingToSortedRunsChangesNothing) {
  // 5,000 documents: more band tags (table keys) than 1 MiB holds.
  options_.input.inputs = WriteCorpus(dir_.path(), 10, 500);
  RunOneProcess();
  // 1 MiB: a few thousand records per sort before a run is spilled.
  const StagedRun run{.work_dir = dir_.path() + "/work",
                      .tasks = GetParam().tasks,
                      .memory_bytes = 1 << 20,
                      .plan_id = "p1"};
  const DedupOptions staged = Staged("spilled");
  ASSERT_OK(RunAllTasks(staged, run));
  ExpectSameAsOneProcess("spilled");
  ASSERT_OK_AND_ASSIGN(const RunStats stats, StagedRunStats(staged, run));
  if (GetParam().tasks == 1) {
    EXPECT_GT(stats.method_stats["spilled_bytes"], 0);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Methods, StagedDedupTest,
    ::testing::Values(Case{Algorithm::kMinHashLsh, Verify::kExact, 1},
                      Case{Algorithm::kMinHashLsh, Verify::kExact, 3},
                      Case{Algorithm::kMinHashLsh, Verify::kExact, 8},
                      Case{Algorithm::kMinHashLsh, Verify::kEstimate, 1},
                      Case{Algorithm::kMinHashLsh, Verify::kEstimate, 3},
                      Case{Algorithm::kMinHashLsh, Verify::kEstimate, 8},
                      Case{Algorithm::kMinHashLsh, Verify::kNone, 3},
                      Case{Algorithm::kSimHash, Verify::kExact, 1},
                      Case{Algorithm::kSimHash, Verify::kExact, 3},
                      Case{Algorithm::kSimHash, Verify::kExact, 8},
                      Case{Algorithm::kSimHash, Verify::kEstimate, 1},
                      Case{Algorithm::kSimHash, Verify::kEstimate, 3},
                      Case{Algorithm::kSimHash, Verify::kEstimate, 8},
                      Case{Algorithm::kPerceptual, Verify::kExact, 3}),
    CaseName);

class StagedDedupRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.input.inputs = WriteCorpus(dir_.path(), 3, 40);
    options_.output = dir_.path() + "/out.jsonl";
    options_.threshold = 0.7;
    options_.progress = false;
  }
  TempDir dir_;
  DedupOptions options_;
  StagedRun run_{
      .work_dir = dir_.path() + "/work", .tasks = 3, .plan_id = "p1"};
};

TEST_F(StagedDedupRunTest, AStageRefusesToRunBeforeTheOneItReads) {
  EXPECT_THAT(RunStageTask(options_, run_, Stage::kBuckets, 0),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("task 0 of stage signatures is not done")));
}

TEST_F(StagedDedupRunTest, TasksRefuseFilesOfAnotherPlan) {
  for (int task = 0; task < 3; ++task) {
    ASSERT_OK(RunStageTask(options_, run_, Stage::kSignatures, task));
  }
  StagedRun other = run_;
  other.plan_id = "p2";
  EXPECT_THAT(RunStageTask(options_, other, Stage::kBuckets, 0),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("made by a run with other options")));
  // Another threshold with the same plan id is caught by the config hash
  // only when the fingerprints differ; another shingle size is.
  DedupOptions shingles = options_;
  shingles.fingerprint.shingle_k = 3;
  EXPECT_THAT(RunStageTask(shingles, run_, Stage::kBuckets, 0),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("config hash")));
  EXPECT_TRUE(StageTaskDone(options_, run_, Stage::kSignatures, 1));
  EXPECT_FALSE(StageTaskDone(options_, other, Stage::kSignatures, 1));
}

TEST_F(StagedDedupRunTest, ATaskRunAgainRedoesOnlyItself) {
  ASSERT_OK(RunAllTasks(options_, run_));
  const std::string first = ReadFile(options_.output);
  // A verify task's outputs lost, and the stages after it: run again, only
  // they are redone, to the same output.
  const std::string work = run_.work_dir;
  std::filesystem::remove(work + "/verify/task-1.json");
  std::filesystem::remove(work + "/verify/task-1.edges");
  for (const char* stage : {"clusters", "filter", "commit"}) {
    std::filesystem::remove_all(work + "/" + stage);
  }
  const auto untouched =
      std::filesystem::last_write_time(work + "/verify/task-0.json");
  EXPECT_FALSE(StageTaskDone(options_, run_, Stage::kVerify, 1));
  ASSERT_OK(RunAllTasks(options_, run_));
  EXPECT_EQ(ReadFile(options_.output), first);
  EXPECT_EQ(std::filesystem::last_write_time(work + "/verify/task-0.json"),
            untouched);
}

TEST_F(StagedDedupRunTest, ADoneTaskRunAgainChangesNothing) {
  ASSERT_OK(RunAllTasks(options_, run_));
  const std::string first = ReadFile(options_.output);
  // A job array submitted again: its tasks find themselves done.
  ASSERT_OK(RunStageTask(options_, run_, Stage::kClusters, 0));
  ASSERT_OK(RunStageTask(options_, run_, Stage::kCommit, 0));
  EXPECT_EQ(ReadFile(options_.output), first);
}

TEST_F(StagedDedupRunTest, AStageRunAgainMakesTheStagesAfterItOutOfDate) {
  ASSERT_OK(RunAllTasks(options_, run_));
  const std::string first = ReadFile(options_.output);
  const std::string work = run_.work_dir;
  const auto buckets_before =
      std::filesystem::last_write_time(work + "/buckets/task-0.json");
  // Signatures task 1 made again (a new generation): every task made from
  // it is out of date, down to the commit, and is done again.
  std::filesystem::remove(work + "/signatures/task-1.json");
  ASSERT_OK(RunStageTask(options_, run_, Stage::kSignatures, 1));
  EXPECT_FALSE(StageTaskDone(options_, run_, Stage::kBuckets, 0));
  EXPECT_THAT(RunStageTask(options_, run_, Stage::kVerify, 0),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("out of date")));
  ASSERT_OK(RunAllTasks(options_, run_));
  EXPECT_NE(std::filesystem::last_write_time(work + "/buckets/task-0.json"),
            buckets_before);
  EXPECT_EQ(ReadFile(options_.output), first);
}

TEST_F(StagedDedupRunTest, ATaskRunningElsewhereIsNotRunTwice) {
  const std::string lock = run_.work_dir + "/signatures/task-0.lock";
  std::filesystem::create_directories(run_.work_dir + "/signatures");
  const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  EXPECT_THAT(
      RunStageTask(options_, run_, Stage::kSignatures, 0),
      StatusIs(absl::StatusCode::kAborted, HasSubstr("running elsewhere")));
  ::close(fd);
  EXPECT_OK(RunStageTask(options_, run_, Stage::kSignatures, 0));
}

TEST_F(StagedDedupRunTest, InputsThatChangedBetweenStagesAreRefused) {
  for (Stage stage : {Stage::kSignatures, Stage::kBuckets, Stage::kVerify,
                      Stage::kClusters}) {
    for (int task = 0; task < StageTasks(run_, stage); ++task) {
      ASSERT_OK(RunStageTask(options_, run_, stage, task));
    }
  }
  std::ofstream(options_.input.inputs[1], std::ios::app)
      << "{\"text\":\"one more\"}\n";
  EXPECT_THAT(
      RunStageTask(options_, run_, Stage::kFilter, 1),
      StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("changed")));
  EXPECT_OK(RunStageTask(options_, run_, Stage::kFilter, 0));
}

TEST_F(StagedDedupRunTest, MoreTasksThanFilesLeavesPartsEmpty) {
  DedupOptions one = options_;
  one.output = dir_.path() + "/one.jsonl";
  ASSERT_OK(RunDedup(one).status());
  run_.tasks = 8;  // 3 files
  ASSERT_OK(RunAllTasks(options_, run_));
  EXPECT_EQ(ReadFile(options_.output), ReadFile(one.output));
}

TEST_F(StagedDedupRunTest, CsvKeepsTheHeaderOnce) {
  std::vector<std::string> inputs;
  for (int f = 0; f < 3; ++f) {
    inputs.push_back(absl::StrCat(dir_.path(), "/in-", f, ".csv"));
    std::ofstream(inputs.back())
        << "id,text\n"
        << f << ",alpha beta gamma delta epsilon zeta eta theta\n"
        << f << "0,alpha beta gamma delta epsilon zeta eta theta\n";
  }
  options_.input.inputs = inputs;
  options_.output = dir_.path() + "/out.csv";
  DedupOptions one = options_;
  one.output = dir_.path() + "/one.csv";
  ASSERT_OK(RunDedup(one).status());
  ASSERT_OK(RunAllTasks(options_, run_));
  EXPECT_EQ(ReadFile(options_.output), ReadFile(one.output));
  EXPECT_EQ(ReadFile(options_.output),
            "id,text\n0,alpha beta gamma delta epsilon zeta eta theta\n");
}

TEST_F(StagedDedupRunTest, HeadersMayEndLinesDifferentlyAsInOneProcess) {
  std::vector<std::string> inputs;
  for (int f = 0; f < 3; ++f) {
    inputs.push_back(absl::StrCat(dir_.path(), "/in-", f, ".csv"));
    std::ofstream(inputs.back())
        << (f == 1 ? "id,text\r\n" : "id,text\n") << f
        << ",alpha beta gamma delta epsilon zeta eta theta " << f << "\n";
  }
  options_.input.inputs = inputs;
  options_.output = dir_.path() + "/out.csv";
  DedupOptions one = options_;
  one.output = dir_.path() + "/one.csv";
  ASSERT_OK(RunDedup(one).status());
  ASSERT_OK(RunAllTasks(options_, run_));
  EXPECT_EQ(ReadFile(options_.output), ReadFile(one.output));
  // A header that differs is refused, as one process refuses it.
  std::ofstream(inputs[2]) << "id,text,more\n2,x,y\n";
  StagedRun again = run_;
  again.work_dir += "-2";
  EXPECT_THAT(RunAllTasks(options_, again),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("header differs from")));
}

TEST_F(StagedDedupRunTest, WhatRunsInOneProcessOnlyIsRefused) {
  for (auto change : std::vector<std::function<void(DedupOptions&)>>{
           [](DedupOptions& o) { o.algorithm = Algorithm::kLshBloom; },
           [](DedupOptions& o) { o.algorithm = Algorithm::kSuffixArray; },
           [](DedupOptions& o) { o.stream = true; },
           [](DedupOptions& o) { o.output.assign(1, '-'); },  // stdout
           [](DedupOptions& o) { o.explain = true; },
       }) {
    DedupOptions options = options_;
    change(options);
    EXPECT_THAT(RunStageTask(options, run_, Stage::kSignatures, 0),
                StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  }
  StagedRun no_dir = run_;
  no_dir.work_dir = "";
  EXPECT_THAT(
      ValidateStagedOptions(options_, no_dir),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--work-dir")));
  EXPECT_THAT(
      RunStageTask(options_, run_, Stage::kClusters, 1),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no task 1")));
}

// One process: L is removed as a duplicate of A (0.81); X, close to L
// (0.90) but not to A (0.73), is kept; L's exact copy comes after X and
// goes to X, the better kept match. Staged, L's copy is a twin paired with
// no one, decided from L: it must find X too.
TEST_F(StagedDedupRunTest, ATwinOfARemovedLeaderFollowsTheBestMatchKeptSince) {
  WordSource source(3);
  const std::vector<std::string> a = source.Words(200);
  std::vector<std::string> l = a;
  for (size_t at : {20, 60, 100, 140}) l[at] = "edit" + std::to_string(at);
  std::vector<std::string> x = l;
  for (size_t at : {40, 120}) x[at] = "more" + std::to_string(at);
  const std::string path = dir_.path() + "/twins.jsonl";
  std::ofstream(path) << "{\"text\":\"" << Join(a) << "\"}\n"
                      << "{\"text\":\"" << Join(l) << "\"}\n"
                      << "{\"text\":\"" << Join(x) << "\"}\n"
                      << "{\"text\":\"" << Join(l) << "\"}\n";
  options_.input.inputs = {path};
  options_.threshold = 0.75;
  options_.clusters_path = dir_.path() + "/staged.clusters";
  DedupOptions one = options_;
  one.output = dir_.path() + "/one.jsonl";
  one.clusters_path = dir_.path() + "/one.clusters";
  ASSERT_OK(RunDedup(one).status());
  // The case at hand: the copy (3) goes to X (2), not to A (0).
  ASSERT_THAT(ReadFile(one.clusters_path),
              HasSubstr("\"representative\":2,\"members\":[2,3]"));
  ASSERT_OK(RunAllTasks(options_, run_));
  EXPECT_EQ(ReadFile(options_.output), ReadFile(one.output));
  EXPECT_EQ(ReadFile(options_.clusters_path), ReadFile(one.clusters_path));
  // And the copy was a twin.
  EXPECT_GT(std::filesystem::file_size(run_.work_dir + "/buckets/task-0.twins"),
            16u);
}

TEST(StageNames, RoundTrip) {
  for (Stage stage : kStages) {
    ASSERT_OK_AND_ASSIGN(const Stage parsed, ParseStage(StageName(stage)));
    EXPECT_EQ(parsed, stage);
  }
  EXPECT_THAT(ParseStage("sort").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("signatures, buckets")));
}

}  // namespace
}  // namespace neardup::dedup
