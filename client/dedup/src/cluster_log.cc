#include "cluster_log.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "neardup/base/json.h"
#include "neardup/core/index/union_find.h"

namespace neardup::dedup {

std::string ClusterLog::ToJsonLines() const {
  uint32_t max_id = 0;
  for (const Edge& e : edges_) {
    max_id = std::max({max_id, e.representative, e.duplicate});
  }
  UnionFind sets(edges_.empty() ? 0 : max_id + 1);
  absl::flat_hash_map<uint32_t, std::pair<double, uint32_t>> similarity;
  for (const Edge& e : edges_) {
    sets.Union(e.representative, e.duplicate);
    auto& [sum, count] = similarity[e.representative];
    sum += e.similarity;
    ++count;
  }
  std::string out;
  for (const std::vector<uint32_t>& members : sets.Clusters()) {
    const uint32_t representative = members.front();
    const auto it = similarity.find(representative);
    const double mean =
        it == similarity.end() ? 1.0 : it->second.first / it->second.second;
    const nlohmann::ordered_json cluster = {
        {"representative", representative},
        {"members", members},
        {"size", members.size()},
        {"mean_similarity", Rounded(mean, 6)},
    };
    out += ToJsonText(cluster);
    out += '\n';
  }
  return out;
}

}  // namespace neardup::dedup
