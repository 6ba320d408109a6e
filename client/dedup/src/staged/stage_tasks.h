#ifndef NEARDUP_CLIENT_DEDUP_SRC_STAGED_STAGE_TASKS_H_
#define NEARDUP_CLIENT_DEDUP_SRC_STAGED_STAGE_TASKS_H_

// One function per stage (stage_<name>.cc), called by RunStageTask.

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "neardup/dedup/run_stats.h"
#include "staged/stage_context.h"

namespace neardup::dedup::staged {

absl::Status RunSignaturesTask(const StageContext& context, int part);
absl::Status RunBucketsTask(const StageContext& context, int task);
absl::Status RunVerifyTask(const StageContext& context, int task);
absl::Status RunClustersTask(const StageContext& context);
absl::Status RunFilterTask(const StageContext& context, int task);
absl::Status RunCommitTask(const StageContext& context);

// The run's stats (StagedRunStats); `end`: the commit's end (read from
// its manifest when not given).
absl::StatusOr<RunStats> StatsOfRun(const StageContext& context,
                                    std::optional<absl::Time> end);

// Where the filter tasks write the output before commit renames it.
std::string StagedOutputTemp(const StageContext& context);

// What a kept record puts in the output: its bytes, and a newline when it
// has none (so that files concatenate), as one-process dedup writes it.
inline uint64_t OutputBytes(std::string_view raw) {
  return raw.size() + (raw.empty() || raw.back() != '\n' ? 1 : 0);
}

}  // namespace neardup::dedup::staged

#endif  // NEARDUP_CLIENT_DEDUP_SRC_STAGED_STAGE_TASKS_H_
