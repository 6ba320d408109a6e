#include "neardup/core/index/simhash_index.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <map>
#include <random>
#include <thread>

#include "support/status_matchers.h"

namespace neardup {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::unique_ptr<SimHashIndex> MakeIndex(int k = 3, int blocks = 0) {
  auto index = SimHashIndex::Create({k, blocks, 4});
  EXPECT_OK(index);
  return *std::move(index);
}

uint64_t FlipBits(uint64_t h, std::initializer_list<int> bits) {
  for (int bit : bits) h ^= uint64_t{1} << bit;
  return h;
}

TEST(SimHashIndex, CreateValidates) {
  EXPECT_EQ(MakeIndex(3)->num_tables(), 4);
  EXPECT_EQ(MakeIndex(3, 6)->num_tables(), 20);  // C(6, 3)
  EXPECT_EQ(MakeIndex(0)->num_tables(), 1);
  EXPECT_FALSE(SimHashIndex::Create({-1, 0, 4}).ok());
  auto few_blocks = SimHashIndex::Create({3, 3, 4});
  ASSERT_FALSE(few_blocks.ok());
  EXPECT_THAT(few_blocks.status().message(), HasSubstr("blocks"));
  EXPECT_FALSE(SimHashIndex::Create({10, 30, 4}).ok());  // C(30, 20) tables
}

TEST(SimHashIndex, DistanceBoundaryKAndKPlusOne) {
  auto index = MakeIndex(3);
  const uint64_t h = 0xce0e315a6cc6f940ULL;
  // Flips within one block and spread across blocks.
  ASSERT_OK(index->Insert(1, h));
  ASSERT_OK(index->Insert(2, FlipBits(h, {0, 1, 2})));
  ASSERT_OK(index->Insert(3, FlipBits(h, {0, 20, 40})));
  ASSERT_OK(index->Insert(4, FlipBits(h, {0, 1, 2, 3})));
  ASSERT_OK(index->Insert(5, FlipBits(h, {5, 21, 42, 63})));
  ASSERT_OK(index->Insert(6, FlipBits(h, {63})));
  EXPECT_THAT(*index->Query(h),
              ElementsAre(IdDistance{1, 0}, IdDistance{6, 1}, IdDistance{2, 3},
                          IdDistance{3, 3}));
  EXPECT_THAT(*index->Query(h, 1),
              ElementsAre(IdDistance{1, 0}, IdDistance{6, 1}));
  auto too_far = index->Query(h, 4);
  ASSERT_FALSE(too_far.ok());
  EXPECT_THAT(too_far.status().message(), HasSubstr("radius 3"));
}

TEST(SimHashIndex, ReplaceAndRemove) {
  auto index = MakeIndex();
  ASSERT_OK(index->Insert(9, 0));
  ASSERT_OK(index->Insert(9, ~0ULL));
  EXPECT_EQ(index->size(), 1u);
  EXPECT_TRUE(index->Query(0)->empty());
  EXPECT_EQ(*index->Get(9), ~0ULL);
  EXPECT_TRUE(index->Remove(9));
  EXPECT_FALSE(index->Remove(9));
  EXPECT_FALSE(index->Contains(9));
  EXPECT_TRUE(index->Query(~0ULL)->empty());
}

// Every configuration must return exactly what a linear scan returns.
class SimHashIndexScanTest
    : public ::testing::TestWithParam<std::pair<int, int>> {};

TEST_P(SimHashIndexScanTest, MatchesLinearScan) {
  const auto [k, blocks] = GetParam();
  auto index = MakeIndex(k, blocks);
  std::mt19937_64 rng(k * 100 + blocks);
  std::vector<uint64_t> hashes;
  // Clusters of close hashes so that every distance 0..k+2 occurs.
  for (int c = 0; c < 60; ++c) {
    const uint64_t center = rng();
    for (int m = 0; m < 20; ++m) {
      uint64_t h = center;
      const int flips = rng() % (k + 3);
      for (int f = 0; f < flips; ++f) h ^= uint64_t{1} << (rng() % 64);
      hashes.push_back(h);
    }
  }
  std::vector<uint32_t> ids(hashes.size());
  for (uint32_t i = 0; i < ids.size(); ++i) ids[i] = i;
  ASSERT_OK(index->BulkInsert(ids, hashes, 2));
  for (size_t q = 0; q < hashes.size(); q += 7) {
    std::vector<IdDistance> expected;
    for (uint32_t i = 0; i < hashes.size(); ++i) {
      const int d = std::popcount(hashes[i] ^ hashes[q]);
      if (d <= k) expected.push_back({i, d});
    }
    std::sort(expected.begin(), expected.end(),
              [](const IdDistance& a, const IdDistance& b) {
                return a.distance != b.distance ? a.distance < b.distance
                                                : a.id < b.id;
              });
    ASSERT_EQ(*index->Query(hashes[q]), expected) << "query " << q;
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, SimHashIndexScanTest,
                         ::testing::Values(std::pair{0, 0}, std::pair{3, 0},
                                           std::pair{3, 6}, std::pair{5, 7},
                                           std::pair{8, 0}));

// A flood of identical SimHashes is one twin class: a query lists only its
// first `limit` members (by id) and counts them all as candidates; removing
// members, the representative included, and replacing one keep every
// answer what a linear scan gives.
TEST(SimHashIndex, AFloodOfTwinsAnswersItsFirstLimitMembers) {
  auto index = MakeIndex(3);
  const uint64_t flood = 0x0123456789abcdefULL;
  std::mt19937_64 rng(3);
  std::vector<uint32_t> ids;
  std::vector<uint64_t> hashes;
  for (uint32_t id = 0; id < 20000; ++id) {
    ids.push_back(id);
    hashes.push_back(id % 2 == 0 ? flood : rng());  // others: random
  }
  ASSERT_OK(index->BulkInsert(ids, hashes, 2));
  IndexQueryStats stats;
  ASSERT_OK_AND_ASSIGN(auto top, index->Query(flood, 0, &stats, 10));
  ASSERT_EQ(top.size(), 10u);
  for (uint32_t i = 0; i < 10; ++i) EXPECT_EQ(top[i], (IdDistance{2 * i, 0}));
  EXPECT_GE(stats.candidates, 10000u);  // every member counts
  // The flood's class once per shard it spans (even ids over 4 shards:
  // 2), and the few random hashes that share a block with it.
  EXPECT_LE(stats.scored, 8u);
  EXPECT_EQ(index->Query(flood, 0)->size(), 10000u);  // no limit: all
  // The representative (the first) and others go; a member changes hash.
  for (uint32_t id = 0; id < 4000; id += 2) EXPECT_TRUE(index->Remove(id));
  ASSERT_OK(index->Insert(4000, ~flood));
  ASSERT_OK_AND_ASSIGN(top, index->Query(flood, 0, nullptr, 3));
  EXPECT_THAT(top, ElementsAre(IdDistance{4002, 0}, IdDistance{4004, 0},
                               IdDistance{4006, 0}));
  EXPECT_EQ(index->Query(flood, 0)->size(), 10000u - 2000u - 1u);
  EXPECT_THAT(*index->Query(~flood, 0), ElementsAre(IdDistance{4000, 0}));
  EXPECT_EQ(index->size(), 20000u - 2000u);
}

// Twins, removals and replacements at random, each query with a limit,
// against a linear scan.
TEST(SimHashIndex, TwinsMatchALinearScanThroughChurn) {
  auto index = MakeIndex(3);
  std::mt19937_64 rng(7);
  std::vector<uint64_t> pool;  // few distinct hashes: many twins
  for (int i = 0; i < 12; ++i) pool.push_back(rng());
  std::map<uint32_t, uint64_t> model;
  for (int step = 0; step < 6000; ++step) {
    const uint32_t id = rng() % 800;
    if (rng() % 4 == 0) {
      EXPECT_EQ(index->Remove(id), model.erase(id) == 1);
    } else {
      uint64_t h = pool[rng() % pool.size()];
      if (rng() % 3 == 0) h = FlipBits(h, {static_cast<int>(rng() % 64)});
      ASSERT_OK(index->Insert(id, h));
      model[id] = h;
    }
    if (step % 50 != 0) continue;
    const uint64_t probe = pool[rng() % pool.size()];
    const size_t limit = rng() % 3 == 0 ? 0 : 1 + rng() % 20;
    std::vector<IdDistance> expected;
    for (const auto& [i, h] : model) {
      const int d = std::popcount(h ^ probe);
      if (d <= 3) expected.push_back({i, d});
    }
    std::sort(expected.begin(), expected.end(),
              [](const IdDistance& a, const IdDistance& b) {
                return a.distance != b.distance ? a.distance < b.distance
                                                : a.id < b.id;
              });
    if (limit > 0 && expected.size() > limit) expected.resize(limit);
    ASSERT_EQ(*index->Query(probe, -1, nullptr, limit), expected)
        << "step " << step;
  }
  EXPECT_EQ(index->size(), model.size());
}

TEST(SimHashIndex, ConcurrentWriters) {
  auto index = MakeIndex();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (uint32_t i = 0; i < 500; ++i) {
        ASSERT_OK(
            index->Insert(t * 1000 + i, uint64_t{i} * 0x9E3779B97F4A7C15ULL));
        ASSERT_OK(index->Query(uint64_t{i}));
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(index->size(), 2000u);
  EXPECT_EQ(index->Query(0x9E3779B97F4A7C15ULL)->size(), 4u);
}

}  // namespace
}  // namespace neardup
