#ifndef NEARDUP_CLI_SRC_STAGED_DEDUP_H_
#define NEARDUP_CLI_SRC_STAGED_DEDUP_H_

// `neardup dedup --tasks N --work-dir W`: writes the run's plan and runs its
// stages (dedup/staged.h) with a runner; `neardup dedup-task` runs one task
// of a plan.

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "neardup/cli/commands.h"
#include "neardup/dedup/run_stats.h"
#include "neardup/dedup/staged.h"

namespace neardup::cli {

// "1073741824", "512M", "2G", "64K" (powers of 1024).
absl::StatusOr<uint64_t> ParseByteSize(std::string_view text);

// Runs every task not done yet, stage after stage; progress on stderr
// (unless --no-progress). The run's stats once it is committed; none when
// the jobs were submitted without waiting (their ids on `out`).
absl::StatusOr<std::optional<dedup::RunStats>> RunStagedDedup(
    const DedupCommand& cmd, std::ostream& out);

// Shared by the runners: where task `task` of `stage` logs, the last lines
// of a log (for the error that names a failed task), and a progress line.
std::string TaskLogPath(const dedup::StagedRun& run, dedup::Stage stage,
                        int task);
std::string LogTail(const std::string& path);
void PrintStageProgress(std::ostream& out, int stage_number, dedup::Stage stage,
                        size_t done, int tasks, double seconds,
                        std::optional<double> left);

// --runner slurm (slurm_runner.cc): a job array per stage, each depending
// on the one before; waits for the last unless --no-wait.
absl::Status RunOnSlurm(const DedupCommand& cmd, const dedup::StagedRun& run,
                        std::ostream& out);

}  // namespace neardup::cli

#endif  // NEARDUP_CLI_SRC_STAGED_DEDUP_H_
