// Stage "commit", one task: once every filter task is done, the output
// takes its name, and the clusters and stats go where the options say.

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"
#include "neardup/dedup/staged.h"
#include "staged/stage_context.h"
#include "staged/stage_tasks.h"
#include "staged/staged_files.h"

namespace neardup::dedup::staged {

absl::Status RunCommitTask(const StageContext& context) {
  const DedupOptions& options = context.options();
  RETURN_IF_ERROR(context.ReadManifests(Stage::kFilter).status());
  ASSIGN_OR_RETURN(const nlohmann::json clusters_done,
                   context.ReadManifest(Stage::kClusters, 0));
  if (!options.clusters_path.empty()) {
    RETURN_IF_ERROR(
        CopyFile(absl::StrCat(context.Dir(Stage::kClusters), "/clusters.jsonl"),
                 options.clusters_path));
  }
  const std::string temp = StagedOutputTemp(context);
  std::error_code error;
  if (std::filesystem::exists(temp, error)) {
    if (std::rename(temp.c_str(), options.output.c_str()) != 0) {
      return absl::DataLossError(absl::StrCat("cannot rename ", temp, " to ",
                                              options.output, ": ",
                                              std::strerror(errno)));
    }
  } else if (std::filesystem::file_size(options.output, error) !=
                 clusters_done.value("output_bytes", uint64_t{0}) ||
             error) {
    // Renamed by a commit that stopped before its manifest, or not there.
    return absl::FailedPreconditionError(
        absl::StrCat("neither ", temp, " nor a complete ", options.output,
                     " is there: rerun the clusters and filter stages"));
  }
  // The stats before the manifest: a commit that stops between the two is
  // done again, stats included.
  const absl::Time end = absl::Now();
  if (!options.stats_path.empty()) {
    ASSIGN_OR_RETURN(const RunStats stats, StatsOfRun(context, end));
    RETURN_IF_ERROR(WriteTextFile(options.stats_path, stats.ToJson()));
  }
  RETURN_IF_ERROR(context.WriteManifest(
      Stage::kCommit, 0, {{"ended_unix_micros", absl::ToUnixMicros(end)}}));
  return absl::OkStatus();
}

}  // namespace neardup::dedup::staged
