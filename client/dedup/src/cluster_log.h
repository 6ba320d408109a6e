#ifndef NEARDUP_CLIENT_DEDUP_SRC_CLUSTER_LOG_H_
#define NEARDUP_CLIENT_DEDUP_SRC_CLUSTER_LOG_H_

// Collects "document d was removed as a duplicate of kept document r with
// similarity s" and turns it into clusters with a union-find: one JSON line
// per cluster, ordered by representative. Clusters are stars around the
// kept document, so the representative is always the smallest member.

#include <cstdint>
#include <string>
#include <vector>

namespace neardup::dedup {

class ClusterLog {
 public:
  void Add(uint32_t representative, uint32_t duplicate, double similarity) {
    edges_.push_back({representative, duplicate, similarity});
  }
  // {"representative":r,"members":[r,d,...],"size":n,"mean_similarity":s}
  // per line; mean over the removed members' similarity to r.
  std::string ToJsonLines() const;

 private:
  struct Edge {
    uint32_t representative;
    uint32_t duplicate;
    double similarity;
  };
  std::vector<Edge> edges_;
};

}  // namespace neardup::dedup

#endif  // NEARDUP_CLIENT_DEDUP_SRC_CLUSTER_LOG_H_
