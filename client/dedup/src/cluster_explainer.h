#ifndef NEARDUP_CLIENT_DEDUP_SRC_CLUSTER_EXPLAINER_H_
#define NEARDUP_CLIENT_DEDUP_SRC_CLUSTER_EXPLAINER_H_

// `dedup --clusters --explain`: after the run, a second read of the inputs
// finds the passages each removed document shares with its representative.
// A representative is always an earlier record, so one pass suffices; its
// text is kept only from its own record to its last member's, never the
// whole dataset.

#include <vector>

#include "absl/status/statusor.h"
#include "cluster_log.h"
#include "neardup/dataset/input_files.h"
#include "neardup/dedup/dedup_options.h"

namespace neardup::dedup {

absl::StatusOr<ClusterExplanations> ExplainClusters(
    const DedupOptions& options, std::vector<dataset::InputFile> files,
    const ClusterLog& clusters);

}  // namespace neardup::dedup

#endif  // NEARDUP_CLIENT_DEDUP_SRC_CLUSTER_EXPLAINER_H_
