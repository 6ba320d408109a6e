#ifndef NEARDUP_CLIENT_DEDUP_SRC_CLUSTER_LOG_H_
#define NEARDUP_CLIENT_DEDUP_SRC_CLUSTER_LOG_H_

// Collects "document d was removed as a duplicate of kept document r with
// similarity s" and turns it into clusters with a union-find: one JSON line
// per cluster, ordered by representative. Clusters are stars around the
// kept document, so the representative is always the smallest member.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "neardup/core/explain.h"

namespace neardup::dedup {

// Passages each removed document shares with its representative, by the
// removed document's number.
using ClusterExplanations = absl::flat_hash_map<uint32_t, Explanation>;

class ClusterLog {
 public:
  struct Edge {
    uint32_t representative;  // kept, and earlier in the input
    uint32_t duplicate;
    double similarity;
  };

  void Add(uint32_t representative, uint32_t duplicate, double similarity) {
    edges_.push_back({representative, duplicate, similarity});
  }
  // In the order they were added: by duplicate, ascending.
  const std::vector<Edge>& edges() const { return edges_; }

  // {"representative":r,"members":[r,d,...],"size":n,"mean_similarity":s}
  // per line; mean over the removed members' similarity to r. With
  // `explained`, also "explain":[{"member":d,"passages":[{"representative":
  // [begin,end],"member":[begin,end],"words":n},...],"truncated":b},...]:
  // byte ranges of each record's text as extracted.
  // Numbers below `references` are reference documents (staged runs), the
  // others records numbered from 0 after them: a cluster around reference
  // document k is {"reference":k,"members":[d,...],"size":n,
  // "mean_similarity":s}, its members the removed records only.
  std::string ToJsonLines(const ClusterExplanations* explained = nullptr,
                          uint64_t references = 0) const;

 private:
  std::vector<Edge> edges_;
};

}  // namespace neardup::dedup

#endif  // NEARDUP_CLIENT_DEDUP_SRC_CLUSTER_LOG_H_
