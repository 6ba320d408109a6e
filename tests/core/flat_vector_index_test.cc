#include "neardup/core/index/flat_vector_index.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "support/status_matchers.h"

namespace neardup {
namespace {

constexpr int kDim = 20;  // not a multiple of the kernel's 16 lanes

std::vector<float> RandomUnit(std::mt19937& rng) {
  std::normal_distribution<float> normal;
  std::vector<float> v(kDim);
  for (float& x : v) x = normal(rng);
  return *UnitEmbedding(v, kDim);
}

// Random upserts, replacements and removes against a plain map: every
// search is the brute-force top k of what the map holds.
TEST(FlatVectorIndex, MatchesBruteForceThroughChurn) {
  std::mt19937 rng(23);
  ASSERT_OK_AND_ASSIGN(auto index, FlatVectorIndex::Create(kDim));
  std::map<uint32_t, std::vector<float>> truth;
  for (int step = 0; step < 3000; ++step) {
    const uint32_t id = rng() % 500;
    if (rng() % 4 == 0) {
      const absl::Status removed = index->Remove(id);
      EXPECT_EQ(removed.ok(), truth.erase(id) == 1) << removed;
    } else {
      truth[id] = RandomUnit(rng);
      ASSERT_OK(index->Upsert(id, truth[id]));
    }
    if (step % 100 != 99) continue;
    ASSERT_EQ(index->size(), truth.size());
    const std::vector<float> probe = RandomUnit(rng);
    std::vector<IdCosine> expected;
    for (const auto& [tid, v] : truth) {
      expected.push_back({tid, *index->Cosine(tid, probe)});
      double dot = 0;
      for (int i = 0; i < kDim; ++i) dot += double{v[i]} * probe[i];
      EXPECT_NEAR(expected.back().cosine, dot, 1e-5);
    }
    std::sort(expected.begin(), expected.end(), BetterMatch);
    expected.resize(std::min<size_t>(expected.size(), 7));
    ASSERT_OK_AND_ASSIGN(const auto found, index->Search(probe, 7, -1));
    EXPECT_EQ(found, expected) << "step " << step;
  }
  EXPECT_FALSE(index->Cosine(100000, RandomUnit(rng)).has_value());
  EXPECT_GE(index->memory_bytes(), truth.size() * 32 * sizeof(float));
}

// The int8 pass settles most rows by their bounds; the answer is still
// the float scan's, in a higher dimension too.
TEST(FlatVectorIndex, Int8BoundsSpareMostRows) {
  std::mt19937 rng(41);
  std::normal_distribution<float> normal;
  constexpr int kHighDim = 384;
  ASSERT_OK_AND_ASSIGN(auto index, FlatVectorIndex::Create(kHighDim));
  std::vector<std::vector<float>> vectors;
  for (uint32_t id = 0; id < 4000; ++id) {
    std::vector<float> v(kHighDim);
    for (float& x : v) x = normal(rng);
    vectors.push_back(*UnitEmbedding(v, kHighDim));
    ASSERT_OK(index->Upsert(id, vectors.back()));
  }
  for (int q = 0; q < 10; ++q) {
    std::vector<float> probe(kHighDim);
    for (float& x : probe) x = normal(rng);
    probe = *UnitEmbedding(probe, kHighDim);
    std::vector<IdCosine> expected;
    for (uint32_t id = 0; id < vectors.size(); ++id) {
      expected.push_back({id, *index->Cosine(id, probe)});
    }
    std::sort(expected.begin(), expected.end(), BetterMatch);
    expected.resize(10);
    ASSERT_OK_AND_ASSIGN(const auto found, index->Search(probe, 10, -1));
    EXPECT_EQ(found, expected);
    EXPECT_LT(FlatVectorIndex::LastRescored(), vectors.size() / 4);
  }
}

TEST(FlatVectorIndex, FloorAndErrors) {
  EXPECT_FALSE(FlatVectorIndex::Create(0).ok());
  std::mt19937 rng(29);
  ASSERT_OK_AND_ASSIGN(auto index, FlatVectorIndex::Create(kDim));
  const std::vector<float> a = RandomUnit(rng);
  ASSERT_OK(index->Upsert(1, a));
  ASSERT_OK(index->Upsert(2, RandomUnit(rng)));
  ASSERT_OK_AND_ASSIGN(auto found, index->Search(a, 5, 0.999f));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].id, 1u);
  EXPECT_EQ(index->Upsert(3, std::vector<float>(3)).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(index->Remove(9).code(), absl::StatusCode::kNotFound);
  ASSERT_OK_AND_ASSIGN(found, index->Search(a, 0, -1));
  EXPECT_TRUE(found.empty());
}

// Reserve makes the room up front; the vectors that follow fit in it.
TEST(FlatVectorIndex, ReserveMakesRoomAhead) {
  std::mt19937 rng(31);
  ASSERT_OK_AND_ASSIGN(auto index, FlatVectorIndex::Create(kDim));
  const size_t empty = index->memory_bytes();
  ASSERT_OK(index->Reserve(1000));
  const size_t reserved = index->memory_bytes();
  EXPECT_GE(reserved - empty, 1000 * 32 * sizeof(float));
  for (uint32_t id = 0; id < 1000; ++id) {
    ASSERT_OK(index->Upsert(id, RandomUnit(rng)));
  }
  EXPECT_EQ(index->memory_bytes(), reserved);  // nothing allocated since
  EXPECT_EQ(index->size(), 1000u);
}

}  // namespace
}  // namespace neardup
