// Golden vectors of the files staged dedup tasks hand each other: a fixed
// corpus run through every stage, each file's bytes hashed. A change here
// is a change of an on-disk format: bump staged::kFormatVersion (files of
// another version are refused) and update the digests.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <xxhash.h>

#include <fstream>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "neardup/dedup/staged.h"
#include "support/run_command.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace neardup::dedup {
namespace {

using ::neardup::testing::TempDir;

std::string Digest(const std::string& path) {
  const std::string bytes = ::neardup::testing::FileContents(path);
  return absl::StrCat(
      absl::Hex(XXH3_64bits(bytes.data(), bytes.size()), absl::kZeroPad16));
}

// Two files; a near-copy, an exact copy (a twin) and an empty record.
void WriteCorpus(const std::string& dir, DedupOptions* options) {
  const std::string base =
      "the quick brown fox jumps over the lazy dog while the cat sleeps "
      "on the warm mat by the door of the old house";
  std::ofstream(dir + "/a.jsonl") << "{\"text\":\"" << base << "\"}\n"
                                  << "{\"text\":\"" << base << " today\"}\n"
                                  << "{\"text\":\"\"}\n";
  std::ofstream(dir + "/b.jsonl")
      << "{\"text\":\"" << base << "\"}\n"
      << "{\"text\":\"something else entirely, with words of its own and "
         "nothing in common with the rest at all\"}\n";
  options->input.inputs = {dir + "/a.jsonl", dir + "/b.jsonl"};
  options->output = dir + "/out.jsonl";
  options->threshold = 0.7;
  options->progress = false;
}

std::map<std::string, std::string> RunAndDigest(
    const DedupOptions& options, const StagedRun& run,
    const std::vector<std::string>& files) {
  for (Stage stage : kStages) {
    for (int task = 0; task < StageTasks(run, stage); ++task) {
      EXPECT_OK(RunStageTask(options, run, stage, task));
    }
  }
  std::map<std::string, std::string> digests;
  for (const std::string& file : files) {
    digests[file] = Digest(run.work_dir + "/" + file);
  }
  return digests;
}

TEST(StagedFormats, ExactVerificationFilesAreStable) {
  TempDir dir;
  DedupOptions options;
  WriteCorpus(dir.path(), &options);
  const StagedRun run{
      .work_dir = dir.path() + "/work", .tasks = 2, .plan_id = "golden"};
  const std::map<std::string, std::string> expected = {
      {"signatures/part-0.docs", "44663e312676a9f0"},
      {"signatures/part-0.tags-0", "b4b1d19f4706c21f"},
      {"signatures/part-0.tags-1", "10879b0a27bfee09"},
      {"signatures/part-0.sets", "2e50a3b3cb63ed6a"},
      {"signatures/part-0.setidx", "aecc6ac5e845b83d"},
      {"signatures/part-1.docs", "809a850797f004bd"},
      {"signatures/part-0.header", "6f49d23357942cbf"},
      {"buckets/task-0.pairs-0", "3485181e0a2247f1"},
      {"buckets/task-0.pairs-1", "897528240bcb0ace"},
      {"buckets/task-0.twins", "6e6118a027f26bf5"},
      {"buckets/task-0.leaders", "b9110e538551930c"},
      {"verify/task-0.edges", "6fb47b96e8420d0e"},
      {"clusters/keep-0", "15565961df9ed44e"},
      {"clusters/keep-1", "8be7bf312838b696"},
  };
  std::vector<std::string> files;
  for (const auto& [file, digest] : expected) files.push_back(file);
  EXPECT_EQ(RunAndDigest(options, run, files), expected);
  EXPECT_EQ(::neardup::testing::FileContents(options.output),
            ::neardup::testing::FileContents(dir.path() + "/a.jsonl")
                    .substr(0, ::neardup::testing::FileContents(dir.path() +
                                                                "/a.jsonl")
                                       .find('\n') +
                                   1) +
                "{\"text\":\"\"}\n"
                "{\"text\":\"something else entirely, with words of its own "
                "and nothing in common with the rest at all\"}\n");
}

TEST(StagedFormats, EstimateFilesAreStable) {
  TempDir dir;
  DedupOptions options;
  WriteCorpus(dir.path(), &options);
  options.verify = Verify::kEstimate;
  const StagedRun run{
      .work_dir = dir.path() + "/work", .tasks = 2, .plan_id = "golden"};
  const std::map<std::string, std::string> expected = {
      {"signatures/part-0.slots", "cdea05bf676a05c8"},
      {"signatures/part-1.slots", "91e14e0f62d5b6b9"},
      {"verify/task-0.edges", "837c96da8399aec7"},
  };
  std::vector<std::string> files;
  for (const auto& [file, digest] : expected) files.push_back(file);
  EXPECT_EQ(RunAndDigest(options, run, files), expected);
}

TEST(StagedFormats, EveryFileStartsWithItsHeader) {
  TempDir dir;
  DedupOptions options;
  WriteCorpus(dir.path(), &options);
  const StagedRun run{
      .work_dir = dir.path() + "/work", .tasks = 1, .plan_id = "golden"};
  RunAndDigest(options, run, {});
  // "ndstage\0", format version 1, the kind (kDocs = 1), little-endian.
  const std::string docs = ::neardup::testing::FileContents(
      run.work_dir + "/signatures/part-0.docs");
  ASSERT_GE(docs.size(), 16u);
  EXPECT_EQ(docs.substr(0, 16), std::string("ndstage\0\1\0\0\0\1\0\0\0", 16));
  // 5 records of 40 bytes.
  EXPECT_EQ(docs.size(), 16u + 5 * 40);
}

}  // namespace
}  // namespace neardup::dedup
