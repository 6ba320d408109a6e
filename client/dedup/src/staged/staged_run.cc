// Staged dedup's entry points: stage names, what it can run, one task, and
// a finished run's stats.

#include <algorithm>
#include <filesystem>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/dedup/run_stats.h"
#include "neardup/dedup/staged.h"
#include "staged/references.h"
#include "staged/stage_context.h"
#include "staged/stage_tasks.h"
#include "staged/staged_files.h"

namespace neardup::dedup {

using staged::StageContext;

std::string_view StageName(Stage stage) {
  switch (stage) {
    case Stage::kSignatures:
      return "signatures";
    case Stage::kBuckets:
      return "buckets";
    case Stage::kVerify:
      return "verify";
    case Stage::kClusters:
      return "clusters";
    case Stage::kFilter:
      return "filter";
    case Stage::kCommit:
      return "commit";
  }
  return "?";
}

absl::StatusOr<Stage> ParseStage(std::string_view name) {
  for (Stage stage : kStages) {
    if (StageName(stage) == name) return stage;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown stage \"", AbslView(name),
      "\"; the stages are signatures, buckets, verify, clusters, filter and "
      "commit"));
}

int StageTasks(const StagedRun& run, Stage stage) {
  if (stage == Stage::kClusters || stage == Stage::kCommit) return 1;
  return stage == Stage::kSignatures ? run.tasks + run.reference_parts
                                     : run.tasks;
}

absl::StatusOr<int> ReferenceParts(const DedupOptions& options) {
  ASSIGN_OR_RETURN(const std::vector<staged::ReferencePart> parts,
                   staged::ListReferenceParts(options));
  return static_cast<int>(parts.size());
}

absl::Status ValidateStagedOptions(const DedupOptions& options,
                                   const StagedRun& run) {
  RETURN_IF_ERROR(ValidateOptions(options));
  if (run.tasks < 1 || run.tasks > 4096) {
    return absl::InvalidArgumentError(
        absl::StrCat("--tasks must be in [1, 4096], got ", run.tasks));
  }
  if (run.work_dir.empty()) {
    return absl::InvalidArgumentError("a staged run needs --work-dir");
  }
  if (run.memory_bytes < (uint64_t{1} << 20)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--memory must be at least 1 MiB, got ", run.memory_bytes, " bytes"));
  }
  switch (options.algorithm) {
    case Algorithm::kMinHashLsh:
    case Algorithm::kSimHash:
    case Algorithm::kPerceptual:
      break;
    case Algorithm::kLshBloom:
    case Algorithm::kSuffixArray:
      return absl::InvalidArgumentError(absl::StrCat(
          "--method ", AbslView(AlgorithmName(options.algorithm)),
          " runs in one process only; staged dedup runs minhash-lsh, "
          "perceptual and simhash"));
  }
  if (options.stream || options.output.empty() || options.output == "-") {
    return absl::InvalidArgumentError(
        "a staged run writes its output to a file (-o): not --stream or "
        "standard output");
  }
  if (options.input.doc_per_file) {
    return absl::InvalidArgumentError(
        "--doc-per-file runs in one process only");
  }
  if (options.explain) {
    return absl::InvalidArgumentError("--explain runs in one process only");
  }
  for (const std::string& reference : options.references) {
    std::error_code error;
    if (std::filesystem::equivalent(reference, run.work_dir, error)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--reference ", reference, " is this run's --work-dir"));
    }
  }
  for (const std::string& input : options.input.inputs) {
    if (input == "-") {
      return absl::InvalidArgumentError(
          "a staged run reads files; standard input is read by one process");
    }
  }
  return absl::OkStatus();
}

namespace {

// Its manifest is there, of this plan and made from what is there now. The
// clusters stage also needs the output it made for the filter tasks, unless
// the commit renamed it (a filter task redone after a commit needs it
// made again).
bool TaskDone(const StageContext& context, Stage stage, int index) {
  try {
    StageContext probe = context;  // what it reads is not this task's input
    if (!probe.ReadManifest(stage, index).ok()) return false;
    if (stage != Stage::kClusters) return true;
    std::error_code error;
    return std::filesystem::exists(staged::StagedOutputTemp(context), error) ||
           probe.ReadManifest(Stage::kCommit, 0).ok();
  } catch (const nlohmann::json::exception&) {
    return false;  // damaged: done again
  }
}

}  // namespace

absl::Status RunStageTask(const DedupOptions& options, const StagedRun& run,
                          Stage stage, int index) {
  ASSIGN_OR_RETURN(const StageContext context,
                   StageContext::Create(options, run));
  if (index < 0 || index >= StageTasks(run, stage)) {
    return absl::InvalidArgumentError(
        absl::StrCat("stage ", AbslView(StageName(stage)), " has tasks 0 to ",
                     StageTasks(run, stage) - 1, "; there is no task ", index));
  }
  RETURN_IF_ERROR(staged::MakeDirectories(context.Dir(stage)));
  ASSIGN_OR_RETURN(const staged::TaskLock lock,
                   staged::TaskLock::Acquire(absl::StrCat(
                       context.Dir(stage), "/task-", index, ".lock")));
  // Done already (a job array submitted again): nothing to redo.
  if (TaskDone(context, stage, index)) return absl::OkStatus();
  // Redone: its old manifest goes first, so that a manifest there always
  // says the task is done (runners only look for the file).
  std::error_code error;
  std::filesystem::remove(
      absl::StrCat(context.Dir(stage), "/task-", index, ".json"), error);
  // The manifests are JSON files a person may have edited: a value of the
  // wrong type is their damage, not a crash.
  try {
    switch (stage) {
      case Stage::kSignatures:
        return staged::RunSignaturesTask(context, index);
      case Stage::kBuckets:
        return staged::RunBucketsTask(context, index);
      case Stage::kVerify:
        return staged::RunVerifyTask(context, index);
      case Stage::kClusters:
        return staged::RunClustersTask(context);
      case Stage::kFilter:
        return staged::RunFilterTask(context, index);
      case Stage::kCommit:
        return staged::RunCommitTask(context);
    }
  } catch (const nlohmann::json::exception& e) {
    return absl::DataLossError(absl::StrCat("a manifest under ", run.work_dir,
                                            " is damaged: ", e.what()));
  }
  return absl::InvalidArgumentError("unknown stage");
}

bool StageTaskDone(const DedupOptions& options, const StagedRun& run,
                   Stage stage, int index) {
  absl::StatusOr<StageContext> context = StageContext::Create(options, run);
  return context.ok() && TaskDone(*context, stage, index);
}

int StageTasksDone(const DedupOptions& options, const StagedRun& run,
                   Stage stage) {
  absl::StatusOr<StageContext> context = StageContext::Create(options, run);
  if (!context.ok()) return 0;
  int done = 0;
  for (int task = 0; task < StageTasks(run, stage); ++task) {
    done += TaskDone(*context, stage, task);
  }
  return done;
}

namespace staged {

absl::StatusOr<RunStats> StatsOfRun(const StageContext& context,
                                    std::optional<absl::Time> end) {
  const DedupOptions& options = context.options();
  ASSIGN_OR_RETURN(const nlohmann::json clusters,
                   context.ReadManifest(Stage::kClusters, 0));
  if (!end) {
    ASSIGN_OR_RETURN(const nlohmann::json commit,
                     context.ReadManifest(Stage::kCommit, 0));
    end = absl::FromUnixMicros(commit.value("ended_unix_micros", int64_t{0}));
  }
  RunStats stats;
  stats.algorithm = std::string(AlgorithmName(options.algorithm));
  stats.verify = std::string(VerifyName(options.verify));
  stats.total = clusters.value("total", uint64_t{0});
  stats.unique = clusters.value("unique", uint64_t{0});
  stats.duplicates = clusters.value("duplicates", uint64_t{0});
  stats.empty = clusters.value("empty", uint64_t{0});
  stats.invalid = clusters.value("invalid", uint64_t{0});
  stats.input_bytes = clusters.value("input_bytes", uint64_t{0});
  int64_t first_start = std::numeric_limits<int64_t>::max();
  uint64_t spilled = 0, pairs = 0;
  for (Stage stage : kStages) {
    if (stage == Stage::kCommit) break;  // (running it, or its end known)
    ASSIGN_OR_RETURN(const std::vector<nlohmann::json> tasks,
                     context.ReadManifests(stage));
    for (const nlohmann::json& task : tasks) {
      first_start =
          std::min(first_start, task.value("started_unix_micros", int64_t{0}));
      stats.peak_rss_bytes = std::max(
          stats.peak_rss_bytes, task.value("peak_rss_bytes", uint64_t{0}));
      spilled += task.value("spilled_bytes", uint64_t{0});
      pairs += task.value("pairs", uint64_t{0});
    }
  }
  stats.peak_rss_bytes = std::max(stats.peak_rss_bytes, PeakRssBytes());
  stats.seconds =
      std::max<int64_t>(absl::ToUnixMicros(*end) - first_start, 0) / 1e6;
  if (context.simhash()) {
    stats.method_stats = {{"max_distance", options.max_distance},
                          {"tables", context.masks().size()}};
  } else {
    stats.method_stats = {{"bands", context.lsh().bands},
                          {"rows", context.lsh().rows}};
  }
  stats.method_stats["tasks"] = context.run().tasks;
  stats.method_stats["candidate_pairs"] = pairs;
  stats.method_stats["spilled_bytes"] = spilled;
  if (context.reference_parts() > 0) {
    stats.method_stats["reference_docs"] =
        clusters.value("reference_docs", uint64_t{0});
  }
  return stats;
}

}  // namespace staged

absl::StatusOr<RunStats> StagedRunStats(const DedupOptions& options,
                                        const StagedRun& run) {
  ASSIGN_OR_RETURN(const StageContext context,
                   StageContext::Create(options, run));
  try {
    return staged::StatsOfRun(context, std::nullopt);
  } catch (const nlohmann::json::exception& e) {
    return absl::DataLossError(absl::StrCat("a manifest under ", run.work_dir,
                                            " is damaged: ", e.what()));
  }
}

}  // namespace neardup::dedup
