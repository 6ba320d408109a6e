#ifndef NEARDUP_CLI_SRC_STAGED_DEDUP_H_
#define NEARDUP_CLI_SRC_STAGED_DEDUP_H_

// `neardup dedup --tasks N --work-dir W`: writes the run's plan and runs its
// stages (dedup/staged.h) with a runner; `neardup dedup-task` runs one task
// of a plan.

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "neardup/cli/commands.h"
#include "neardup/dedup/run_stats.h"

namespace neardup::cli {

// "1073741824", "512M", "2G", "64K" (powers of 1024).
absl::StatusOr<uint64_t> ParseByteSize(std::string_view text);

// Runs every task not done yet, stage after stage; progress on stderr
// (unless --no-progress). The run's stats once it is committed.
absl::StatusOr<dedup::RunStats> RunStagedDedup(const DedupCommand& cmd);

}  // namespace neardup::cli

#endif  // NEARDUP_CLI_SRC_STAGED_DEDUP_H_
