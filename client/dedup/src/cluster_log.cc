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
  // Over the documents the edges name only (ids may span far more, e.g. a
  // staged run's references), numbered densely in ascending order.
  std::vector<uint32_t> ids;
  ids.reserve(edges_.size() * 2);
  for (const Edge& e : edges_) {
    ids.push_back(e.representative);
    ids.push_back(e.duplicate);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  const auto dense = [&ids](uint32_t id) {
    return static_cast<uint32_t>(std::lower_bound(ids.begin(), ids.end(), id) -
                                 ids.begin());
  };
  UnionFind sets(static_cast<uint32_t>(ids.size()));
  absl::flat_hash_map<uint32_t, std::pair<double, uint32_t>> similarity;
  for (const Edge& e : edges_) {
    sets.Union(dense(e.representative), dense(e.duplicate));
    auto& [sum, count] = similarity[e.representative];
    sum += e.similarity;
    ++count;
  }
  std::string out;
  for (std::vector<uint32_t>& members : sets.Clusters()) {
    for (uint32_t& member : members) member = ids[member];
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
