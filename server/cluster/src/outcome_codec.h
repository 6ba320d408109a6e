#ifndef NEARDUP_CLUSTER_SRC_OUTCOME_CODEC_H_
#define NEARDUP_CLUSTER_SRC_OUTCOME_CODEC_H_

// A write's outcome, and the documents blocking a dedup-on-write upsert, as
// nodes send them each other (proto/node_messages.proto).

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "neardup/cluster/cluster_node.h"

namespace neardup::cluster {

// Documents blocking an upsert, named: best first.
struct NamedBlocking {
  std::vector<engine::MinHashMatch> matches;  // internal ids not kept
  std::vector<std::string> ids;               // in the same order
  size_t count = 0;                           // all of them
};

std::string EncodeOutcome(const std::string& append_id,
                          const LoggedWrite& written);
// The append id and the outcome; DATA_LOSS for bytes that are none.
absl::StatusOr<std::pair<std::string, LoggedWrite>> DecodeOutcome(
    std::string_view bytes);

std::string EncodeBlocking(const NamedBlocking& blocking);
absl::StatusOr<NamedBlocking> DecodeBlocking(std::string_view bytes);
// The shards' answers as one: best first (ties to the lower id), the first
// kBlockingNamed kept, counts summed.
NamedBlocking MergeBlocking(std::vector<NamedBlocking> parts);

}  // namespace neardup::cluster

#endif  // NEARDUP_CLUSTER_SRC_OUTCOME_CODEC_H_
