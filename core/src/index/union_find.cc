#include "neardup/core/index/union_find.h"

#include <numeric>
#include <utility>

namespace neardup {

void UnionFind::Grow(uint32_t new_size) {
  const uint32_t old_size = size();
  if (new_size <= old_size) return;
  parent_.resize(new_size);
  std::iota(parent_.begin() + old_size, parent_.end(), old_size);
  rank_.resize(new_size, 0);
}

uint32_t UnionFind::Find(uint32_t id) {
  while (parent_[id] != id) {
    parent_[id] = parent_[parent_[id]];  // path halving
    id = parent_[id];
  }
  return id;
}

bool UnionFind::Union(uint32_t a, uint32_t b) {
  a = Find(a);
  b = Find(b);
  if (a == b) return false;
  if (rank_[a] < rank_[b]) std::swap(a, b);
  parent_[b] = a;
  if (rank_[a] == rank_[b]) ++rank_[a];
  return true;
}

std::vector<std::vector<uint32_t>> UnionFind::Clusters() {
  // Visiting ids in ascending order makes each cluster sorted and orders the
  // clusters by their smallest member.
  constexpr uint32_t kNoCluster = 0xFFFFFFFFu;
  std::vector<uint32_t> cluster_of_root(size(), kNoCluster);
  std::vector<std::vector<uint32_t>> clusters;
  std::vector<uint32_t> set_size(size(), 0);
  for (uint32_t id = 0; id < size(); ++id) ++set_size[Find(id)];
  for (uint32_t id = 0; id < size(); ++id) {
    const uint32_t root = Find(id);
    if (set_size[root] < 2) continue;
    if (cluster_of_root[root] == kNoCluster) {
      cluster_of_root[root] = static_cast<uint32_t>(clusters.size());
      clusters.emplace_back().reserve(set_size[root]);
    }
    clusters[cluster_of_root[root]].push_back(id);
  }
  return clusters;
}

}  // namespace neardup
