#include "neardup/core/index/union_find.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace neardup {
namespace {

using Clusters = std::vector<std::vector<uint32_t>>;

TEST(UnionFind, StartsAsSingletons) {
  UnionFind sets(5);
  for (uint32_t i = 0; i < 5; ++i) EXPECT_EQ(sets.Find(i), i);
  EXPECT_TRUE(sets.Clusters().empty());
}

TEST(UnionFind, UnionIsTransitiveAndReportsNoOps) {
  UnionFind sets(6);
  EXPECT_TRUE(sets.Union(0, 3));
  EXPECT_TRUE(sets.Union(3, 5));
  EXPECT_FALSE(sets.Union(5, 0));
  EXPECT_TRUE(sets.Connected(0, 5));
  EXPECT_FALSE(sets.Connected(0, 1));
  EXPECT_TRUE(sets.Union(4, 1));
  EXPECT_EQ(sets.Clusters(), (Clusters{{0, 3, 5}, {1, 4}}));
}

TEST(UnionFind, ClustersDoNotDependOnUnionOrder) {
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  for (uint32_t i = 0; i + 7 < 1000; i += 3) edges.push_back({i, i + 7});
  UnionFind forward(1000), shuffled(1000);
  for (auto [a, b] : edges) forward.Union(a, b);
  std::mt19937 rng(5);
  std::shuffle(edges.begin(), edges.end(), rng);
  for (auto [a, b] : edges) shuffled.Union(b, a);
  EXPECT_EQ(forward.Clusters(), shuffled.Clusters());
}

TEST(UnionFind, GrowAddsSingletons) {
  UnionFind sets(2);
  sets.Union(0, 1);
  sets.Grow(4);
  EXPECT_EQ(sets.size(), 4u);
  EXPECT_FALSE(sets.Connected(1, 3));
  sets.Union(3, 1);
  EXPECT_EQ(sets.Clusters(), (Clusters{{0, 1, 3}}));
}

TEST(UnionFind, LongChainStaysShallow) {
  // Union by rank bounds the tree height by log2(n).
  const uint32_t n = 1 << 16;
  UnionFind sets(n);
  for (uint32_t i = 1; i < n; ++i) sets.Union(i - 1, i);
  const uint32_t root = sets.Find(0);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(sets.Find(i), root);
  ASSERT_EQ(sets.Clusters().size(), 1u);
  EXPECT_EQ(sets.Clusters()[0].size(), n);
}

}  // namespace
}  // namespace neardup
