#include "cluster_log.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "neardup/base/json.h"
#include "neardup/core/index/union_find.h"

namespace neardup::dedup {

namespace {

nlohmann::ordered_json ExplainJson(const std::vector<uint32_t>& members,
                                   const ClusterExplanations& explained) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (size_t i = 1; i < members.size(); ++i) {
    const auto it = explained.find(members[i]);
    if (it == explained.end()) continue;
    nlohmann::ordered_json passages = nlohmann::ordered_json::array();
    for (const SharedPassage& p : it->second.passages) {
      passages.push_back({{"representative", {p.a_begin, p.a_end}},
                          {"member", {p.b_begin, p.b_end}},
                          {"words", p.words}});
    }
    out.push_back({{"member", members[i]},
                   {"passages", std::move(passages)},
                   {"truncated", it->second.truncated}});
  }
  return out;
}

}  // namespace

std::string ClusterLog::ToJsonLines(const ClusterExplanations* explained,
                                    uint64_t references) const {
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
    nlohmann::ordered_json cluster;
    if (representative < references) {
      // (Reference documents are kept: never another's member.)
      std::vector<uint64_t> records;
      for (size_t i = 1; i < members.size(); ++i) {
        records.push_back(members[i] - references);
      }
      cluster = {{"reference", representative},
                 {"members", records},
                 {"size", records.size()},
                 {"mean_similarity", Rounded(mean, 6)}};
      out += ToJsonText(cluster);
      out += '\n';
      continue;
    }
    std::vector<uint64_t> records;
    for (const uint32_t member : members)
      records.push_back(member - references);
    cluster = {
        {"representative", representative - references},
        {"members", std::move(records)},
        {"size", members.size()},
        {"mean_similarity", Rounded(mean, 6)},
    };
    if (explained != nullptr) {
      cluster["explain"] = ExplainJson(members, *explained);
    }
    out += ToJsonText(cluster);
    out += '\n';
  }
  return out;
}

}  // namespace neardup::dedup
