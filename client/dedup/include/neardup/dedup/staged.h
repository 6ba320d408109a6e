#ifndef NEARDUP_DEDUP_STAGED_H_
#define NEARDUP_DEDUP_STAGED_H_

// Staged dedup: the same algorithm and output as RunDedup, cut into stages
// whose tasks share only files under a work directory, so that each can run
// as a separate process on any machine that sees the directory (a Slurm
// array task, a Kubernetes indexed job's pod, a local process):
//
//   signatures  per part of the inputs (whole files): fingerprints
//   buckets     per band (table) range: candidate pairs
//   verify      per range of later documents: pairs at the threshold
//   clusters    one task: keep-first decisions in input order, clusters
//   filter      per part: the kept records into their place in the output
//   commit      one task: the output, clusters and stats into place
//
// A task writes under temporary names and renames when done, then records
// a manifest; a task whose manifest is there is done, so a rerun redoes
// only what failed. Every manifest carries the run's plan id (its options)
// and config hash: a task refuses inputs of another plan.

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "neardup/dedup/dedup_options.h"
#include "neardup/dedup/run_stats.h"

namespace neardup::dedup {

enum class Stage {
  kSignatures,
  kBuckets,
  kVerify,
  kClusters,
  kFilter,
  kCommit
};
inline constexpr Stage kStages[] = {Stage::kSignatures, Stage::kBuckets,
                                    Stage::kVerify,     Stage::kClusters,
                                    Stage::kFilter,     Stage::kCommit};
std::string_view StageName(Stage stage);
absl::StatusOr<Stage> ParseStage(std::string_view name);

struct StagedRun {
  std::string work_dir;
  int tasks = 1;  // per stage; clusters and commit run as one
  // The signatures stage's tasks for options.references
  // (ReferenceParts), numbered before the inputs' parts.
  int reference_parts = 0;
  // What one task may hold in memory for its sorts and buffers (spilling
  // sorted runs to the work directory past it).
  uint64_t memory_bytes = uint64_t{1} << 30;
  // What every task of the run was started with (a digest of its options);
  // a task refuses files another plan made.
  std::string plan_id;
};

// How many tasks `stage` runs as.
int StageTasks(const StagedRun& run, Stage stage);

// How many signatures tasks options.references take: one per signatures
// part of a reference run, one per dump. NOT_FOUND or INVALID_ARGUMENT
// naming a reference that is neither.
absl::StatusOr<int> ReferenceParts(const DedupOptions& options);

// What staged dedup cannot run (before anything is read): --stream,
// --doc-per-file, --explain, lshbloom and suffix-array, writing to
// standard output.
absl::Status ValidateStagedOptions(const DedupOptions& options,
                                   const StagedRun& run);

// Runs task `index` of `stage` (FAILED_PRECONDITION when a stage before it
// is not done, or was run with another plan).
absl::Status RunStageTask(const DedupOptions& options, const StagedRun& run,
                          Stage stage, int index);

// Whether task `index` of `stage` finished under `run.plan_id`.
bool StageTaskDone(const DedupOptions& options, const StagedRun& run,
                   Stage stage, int index);

// How many tasks of `stage` are done (StageTaskDone), for runners that
// follow a run.
int StageTasksDone(const DedupOptions& options, const StagedRun& run,
                   Stage stage);

// The stats of a committed run: the counts as RunDedup's; seconds from the
// first task's start to the commit, peak_rss_bytes the largest of any
// task's; the method's figures (bands and rows, or max_distance and tables)
// with the run's own (tasks, candidate_pairs, spilled_bytes) instead of the
// one-process index's sizes.
absl::StatusOr<RunStats> StagedRunStats(const DedupOptions& options,
                                        const StagedRun& run);

}  // namespace neardup::dedup

#endif  // NEARDUP_DEDUP_STAGED_H_
