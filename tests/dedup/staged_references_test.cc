// Staged dedup against reference corpora (staged/references.cc): a run
// over B with an earlier run over A as its reference writes exactly the
// records of B that one process over A then B keeps, and its clusters name
// the reference documents B's records were removed for; references chain;
// what cannot be a reference is refused, saying why.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "dedup/staged_fixtures.h"
#include "neardup/base/status_macros.h"
#include "neardup/dedup/dedup.h"
#include "neardup/dedup/staged.h"
#include "support/run_command.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace neardup::dedup {
namespace {

using ::neardup::testing::StatusIs;
using ::neardup::testing::TempDir;
using ::testing::HasSubstr;

std::string ReadFile(const std::string& path) {
  return ::neardup::testing::FileContents(path);
}

uint64_t CountLines(const std::vector<std::string>& files) {
  uint64_t lines = 0;
  for (const std::string& file : files) {
    const std::string text = ReadFile(file);
    lines += std::count(text.begin(), text.end(), '\n');
  }
  return lines;
}

// A cluster as comparable across runs: who it is around ("r<n>" for a
// record, "ref<n>" for a reference document) and its removed records.
using Clusters = std::map<std::string, std::vector<uint64_t>>;

Clusters ParseClusters(const std::string& jsonl) {
  Clusters out;
  std::istringstream in(jsonl);
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json cluster = nlohmann::json::parse(line);
    std::vector<uint64_t> members =
        cluster["members"].get<std::vector<uint64_t>>();
    if (cluster.contains("reference")) {
      out[absl::StrCat("ref", cluster["reference"].get<uint64_t>())] = members;
    } else {
      const uint64_t representative = cluster["representative"];
      members.erase(std::remove(members.begin(), members.end(), representative),
                    members.end());
      out[absl::StrCat("r", representative)] = members;
    }
  }
  return out;
}

// One process's clusters over every record, as a run of records
// [begin, end) sees them with records [0, begin) as its references.
Clusters ClustersOfSlice(const std::string& jsonl, uint64_t begin,
                         uint64_t end) {
  Clusters out;
  for (const auto& [key, members] : ParseClusters(jsonl)) {
    std::vector<uint64_t> mine;
    for (const uint64_t member : members) {
      if (member >= begin && member < end) mine.push_back(member - begin);
    }
    const uint64_t around = std::stoull(key.substr(1));
    if (around < begin) {
      if (!mine.empty()) out[absl::StrCat("ref", around)] = mine;
    } else if (around < end && !mine.empty()) {
      out[absl::StrCat("r", around - begin)] = mine;
    }
  }
  return out;
}

struct Method {
  Algorithm algorithm;
  Verify verify;
};

std::string MethodName(const ::testing::TestParamInfo<Method>& info) {
  std::string name = absl::StrCat(AbslView(AlgorithmName(info.param.algorithm)),
                                  "_", AbslView(VerifyName(info.param.verify)));
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

class StagedReferenceTest : public ::testing::TestWithParam<Method> {
 protected:
  void SetUp() override {
    files_ = WriteCorpus(dir_.path(), 9, 50);
    options_.algorithm = GetParam().algorithm;
    options_.verify = GetParam().verify;
    options_.threshold = 0.7;
    options_.threads = 2;
    options_.progress = false;
  }

  // A staged run of `inputs` against `references`, into "<name>.*".
  absl::Status RunStaged(const std::string& name, int first, int last,
                         std::vector<std::string> references, int tasks) {
    DedupOptions options = options_;
    options.input.inputs = {files_.begin() + first, files_.begin() + last};
    options.references = std::move(references);
    options.output = Path(name + ".jsonl");
    options.clusters_path = Path(name + ".clusters");
    options.stats_path = Path(name + ".stats");
    StagedRun run{
        .work_dir = Path(name + "-work"), .tasks = tasks, .plan_id = name};
    absl::StatusOr<int> parts = ReferenceParts(options);
    if (!parts.ok()) return parts.status();
    run.reference_parts = *parts;
    return RunAllTasks(options, run);
  }

  std::string Path(const std::string& name) const {
    return dir_.path() + "/" + name;
  }

  nlohmann::json Stats(const std::string& name) const {
    return nlohmann::json::parse(ReadFile(Path(name + ".stats")));
  }

  TempDir dir_;
  std::vector<std::string> files_;
  DedupOptions options_;
};

TEST_P(StagedReferenceTest, KeepsWhatOneProcessOverReferenceAndInputsKeeps) {
  DedupOptions one = options_;
  one.input.inputs = files_;
  one.output = Path("one.jsonl");
  one.clusters_path = Path("one.clusters");
  one.stats_path = Path("one.stats");
  ASSERT_OK(RunDedup(one).status());

  // A (3 files, 2 tasks); B against A (3 tasks); C against B, which
  // carries A (1 task).
  ASSERT_OK(RunStaged("a", 0, 3, {}, 2));
  ASSERT_OK(RunStaged("b", 3, 6, {Path("a-work")}, 3));
  ASSERT_OK(RunStaged("c", 6, 9, {Path("b-work")}, 1));
  EXPECT_EQ(ReadFile(Path("a.jsonl")) + ReadFile(Path("b.jsonl")) +
                ReadFile(Path("c.jsonl")),
            ReadFile(Path("one.jsonl")));

  const nlohmann::json all = Stats("one");
  const nlohmann::json a = Stats("a"), b = Stats("b"), c = Stats("c");
  for (const char* count : {"total", "unique", "duplicates", "empty"}) {
    EXPECT_EQ(a[count].get<uint64_t>() + b[count].get<uint64_t>() +
                  c[count].get<uint64_t>(),
              all[count].get<uint64_t>())
        << count;
  }
  // B's records were removed for A's documents too, not only for its own.
  const uint64_t size_a = CountLines({files_.begin(), files_.begin() + 3});
  const uint64_t size_b = CountLines({files_.begin() + 3, files_.begin() + 6});
  EXPECT_EQ(b["total"].get<uint64_t>(), size_b);
  // Its reference documents: A's kept documents that have tokens.
  EXPECT_EQ(b["reference_docs"].get<uint64_t>(),
            a["unique"].get<uint64_t>() - a["empty"].get<uint64_t>());
  EXPECT_EQ(c["reference_docs"].get<uint64_t>(),
            a["unique"].get<uint64_t>() - a["empty"].get<uint64_t>() +
                b["unique"].get<uint64_t>() - b["empty"].get<uint64_t>());

  const std::string whole = ReadFile(Path("one.clusters"));
  const Clusters clusters_b = ParseClusters(ReadFile(Path("b.clusters")));
  EXPECT_EQ(clusters_b, ClustersOfSlice(whole, size_a, size_a + size_b));
  int around_reference = 0;
  for (const auto& [key, members] : clusters_b) {
    around_reference += key.starts_with("ref");
  }
  EXPECT_GT(around_reference, 3);
  EXPECT_EQ(ParseClusters(ReadFile(Path("c.clusters"))),
            ClustersOfSlice(whole, size_a + size_b, ~uint64_t{0}));
}

INSTANTIATE_TEST_SUITE_P(
    Methods, StagedReferenceTest,
    ::testing::Values(Method{Algorithm::kMinHashLsh, Verify::kExact},
                      Method{Algorithm::kMinHashLsh, Verify::kEstimate},
                      Method{Algorithm::kSimHash, Verify::kExact},
                      Method{Algorithm::kSimHash, Verify::kEstimate}),
    MethodName);

class StagedReferenceErrorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    files_ = WriteCorpus(dir_.path(), 2, 30);
    options_.input.inputs = {files_[0]};
    options_.output = dir_.path() + "/a.jsonl";
    options_.threshold = 0.7;
    options_.progress = false;
  }

  // Every task of `stages`; the references' parts counted now unless
  // given (as a plan keeps them).
  absl::Status Run(const DedupOptions& options, const std::string& work,
                   const std::vector<Stage>& stages = {std::begin(kStages),
                                                       std::end(kStages)},
                   int reference_parts = -1) {
    StagedRun run{.work_dir = work,
                  .tasks = 2,
                  .plan_id = std::filesystem::path(work).filename()};
    if (reference_parts < 0) {
      ASSIGN_OR_RETURN(reference_parts, ReferenceParts(options));
    }
    run.reference_parts = reference_parts;
    RETURN_IF_ERROR(ValidateStagedOptions(options, run));
    for (Stage stage : stages) {
      for (int task = 0; task < StageTasks(run, stage); ++task) {
        RETURN_IF_ERROR(RunStageTask(options, run, stage, task));
      }
    }
    return absl::OkStatus();
  }

  DedupOptions Against(const std::string& reference) const {
    DedupOptions options = options_;
    options.input.inputs = {files_[1]};
    options.output = dir_.path() + "/b.jsonl";
    options.references = {reference};
    return options;
  }

  std::string Dump(const std::string& lines) const {
    const std::string path = dir_.path() + "/dump.jsonl";
    std::ofstream(path) << lines;
    return path;
  }

  TempDir dir_;
  std::vector<std::string> files_;
  DedupOptions options_;
};

TEST_F(StagedReferenceErrorsTest, WhatIsNotAReferenceIsRefused) {
  EXPECT_THAT(ReferenceParts(Against(dir_.path() + "/missing")).status(),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("neither a staged run's work directory")));
  std::filesystem::create_directories(dir_.path() + "/empty");
  EXPECT_THAT(ReferenceParts(Against(dir_.path() + "/empty")).status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("not the work directory of a staged run")));
  // One process cannot take a reference.
  DedupOptions one = Against(dir_.path() + "/empty");
  EXPECT_THAT(RunDedup(one).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--reference needs a staged run")));
  // Nor a run itself.
  ASSERT_OK(Run(options_, dir_.path() + "/wa"));
  DedupOptions self = Against(dir_.path() + "/wa");
  EXPECT_THAT(Run(self, dir_.path() + "/wa"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("is this run's --work-dir")));
}

TEST_F(StagedReferenceErrorsTest, AReferenceRunMustHaveDecidedAndMatch) {
  const std::string wa = dir_.path() + "/wa";
  ASSERT_OK(Run(options_, wa, {Stage::kSignatures, Stage::kBuckets}));
  EXPECT_THAT(Run(Against(wa), dir_.path() + "/wb"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("its clusters stage is not done")));
  ASSERT_OK(Run(options_, wa));
  ASSERT_OK(Run(Against(wa), dir_.path() + "/wb"));

  DedupOptions shingles = Against(wa);
  shingles.fingerprint.shingle_k = 3;
  EXPECT_THAT(Run(shingles, dir_.path() + "/w1"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("fingerprinted with other settings")));
  DedupOptions bands = Against(wa);
  bands.bands = 4;
  EXPECT_THAT(Run(bands, dir_.path() + "/w2"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("banded its signatures as")));
  DedupOptions estimate = Against(wa);
  estimate.verify = Verify::kEstimate;
  EXPECT_THAT(Run(estimate, dir_.path() + "/w3"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("ran with another --verification")));
}

TEST_F(StagedReferenceErrorsTest,
       AReferenceDecidedBeforeItsSignaturesIsRefused) {
  const std::string wa = dir_.path() + "/wa";
  ASSERT_OK(Run(options_, wa));
  // Its signatures part 0 made again after its clusters stage decided.
  std::filesystem::remove(wa + "/signatures/task-0.json");
  ASSERT_OK(Run(options_, wa, {Stage::kSignatures}));
  EXPECT_THAT(Run(Against(wa), dir_.path() + "/wb"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("was made again after its clusters stage")));
}

TEST_F(StagedReferenceErrorsTest, AReferenceMayGoOnceTheSignaturesAreDone) {
  const std::string wa = dir_.path() + "/wa";
  ASSERT_OK(Run(options_, wa));
  DedupOptions b = Against(wa);
  ASSERT_OK(Run(b, dir_.path() + "/wb1"));
  const std::string kept = ReadFile(b.output);
  ASSERT_OK_AND_ASSIGN(const int parts, ReferenceParts(b));
  ASSERT_EQ(parts, 2);

  b.output = dir_.path() + "/b2.jsonl";
  const std::string wb2 = dir_.path() + "/wb2";
  ASSERT_OK(Run(b, wb2, {Stage::kSignatures}));
  // A reference task redone leaves no temporary name behind.
  std::filesystem::remove(wb2 + "/signatures/task-0.json");
  ASSERT_OK(Run(b, wb2, {Stage::kSignatures}));
  for (const auto& entry :
       std::filesystem::directory_iterator(wb2 + "/signatures")) {
    EXPECT_THAT(entry.path().filename().string(),
                ::testing::Not(HasSubstr(".tmp-")));
  }
  std::filesystem::remove_all(wa);
  ASSERT_OK(Run(b, wb2,
                {Stage::kBuckets, Stage::kVerify, Stage::kClusters,
                 Stage::kFilter, Stage::kCommit},
                parts));
  EXPECT_EQ(ReadFile(b.output), kept);
}

TEST_F(StagedReferenceErrorsTest, ADumpNeedsSignaturesOfTheRunsSettings) {
  EXPECT_THAT(
      Run(Against(
              Dump("{\"neardup_export\":1,\"id\":\"x\",\"text\":\"a b\"}\n")),
          dir_.path() + "/w1"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("dump.jsonl:1: has no signatures: export with "
                         "--with-signatures")));
  EXPECT_THAT(Run(Against(Dump("\n{\"id\":\"x\"}\n")), dir_.path() + "/w2"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("dump.jsonl:2: is not a line of `neardup "
                                 "export`")));
  EXPECT_THAT(
      Run(Against(Dump("{\"neardup_export\":1,\"id\":\"x\",\"signatures\":{"
                       "\"minhash\":\"\",\"minhash_config_hash\":"
                       "\"0000000000000001\"}}\n")),
          dir_.path() + "/w3"),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               HasSubstr("has minhash_config_hash 0000000000000001; this "
                         "run's is")));
}

}  // namespace
}  // namespace neardup::dedup
