#include "neardup/core/index/hnsw_index.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>

#include "support/status_matchers.h"

namespace neardup {
namespace {

using ::testing::HasSubstr;

std::vector<float> RandomUnit(std::mt19937& rng, int dim) {
  std::normal_distribution<float> normal;
  std::vector<float> v(dim);
  for (float& x : v) x = normal(rng);
  return *UnitEmbedding(v, dim);
}

float Dot(const std::vector<float>& a, const std::vector<float>& b) {
  float sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

TEST(UnitEmbedding, NormalizesAndRefusesWhatHasNoDirection) {
  ASSERT_OK_AND_ASSIGN(const std::vector<float> unit,
                       UnitEmbedding(std::vector<float>{3, 4}, 2));
  EXPECT_FLOAT_EQ(unit[0], 0.6f);
  EXPECT_FLOAT_EQ(unit[1], 0.8f);
  EXPECT_THAT(UnitEmbedding(std::vector<float>{1, 2, 3}, 2).status().message(),
              HasSubstr("3 dimensions; the space has 2"));
  EXPECT_THAT(UnitEmbedding(std::vector<float>{0, 0}, 2).status().message(),
              HasSubstr("norm 0"));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_THAT(UnitEmbedding(std::vector<float>{1, nan}, 2).status().message(),
              HasSubstr("component 1 is not finite"));
  EXPECT_FALSE(UnitEmbedding(std::vector<float>{inf, 1}, 2).ok());
  // Large but finite components whose squares overflow a float.
  EXPECT_OK(UnitEmbedding(std::vector<float>{3e30f, 4e30f}, 2).status());
}

TEST(HnswIndex, OptionsAreChecked) {
  EXPECT_FALSE(HnswIndex::Create({.dim = 0}).ok());
  EXPECT_FALSE(HnswIndex::Create({.dim = 8, .m = 2}).ok());
  EXPECT_FALSE(HnswIndex::Create({.dim = 8, .ef_search = 1}).ok());
  EXPECT_OK(HnswIndex::Create({.dim = 8}).status());
}

// Against brute force on random unit vectors, growing past the initial
// capacity: recall@10 at least 0.98.
TEST(HnswIndex, RecallAgainstBruteForce) {
  constexpr int kDim = 32;
  constexpr int kCount = 4000;
  ASSERT_OK_AND_ASSIGN(
      auto index, HnswIndex::Create({.dim = kDim, .initial_capacity = 100}));
  std::mt19937 rng(7);
  std::vector<std::vector<float>> vectors;
  for (int i = 0; i < kCount; ++i) {
    vectors.push_back(RandomUnit(rng, kDim));
    ASSERT_OK(index->Upsert(i, vectors.back()));
  }
  EXPECT_EQ(index->size(), static_cast<size_t>(kCount));
  EXPECT_GT(index->memory_bytes(), kCount * kDim * sizeof(float));
  int hits = 0, wanted = 0;
  for (int q = 0; q < 100; ++q) {
    const std::vector<float> probe = RandomUnit(rng, kDim);
    std::vector<std::pair<float, int>> exact;
    for (int i = 0; i < kCount; ++i)
      exact.push_back({-Dot(probe, vectors[i]), i});
    std::partial_sort(exact.begin(), exact.begin() + 10, exact.end());
    ASSERT_OK_AND_ASSIGN(const auto found, index->Search(probe, 10));
    ASSERT_EQ(found.size(), 10u);
    EXPECT_TRUE(std::is_sorted(found.begin(), found.end(),
                               [](const IdCosine& a, const IdCosine& b) {
                                 return a.cosine > b.cosine;
                               }));
    std::set<uint32_t> got;
    for (const IdCosine& m : found) {
      got.insert(m.id);
      EXPECT_NEAR(m.cosine, Dot(probe, vectors[m.id]), 1e-5);
    }
    for (int j = 0; j < 10; ++j) hits += got.count(exact[j].second);
    wanted += 10;
  }
  EXPECT_GE(static_cast<double>(hits) / wanted, 0.98);
}

TEST(HnswIndex, RemoveAndReplaceTakeEffectAtOnce) {
  constexpr int kDim = 16;
  ASSERT_OK_AND_ASSIGN(auto index, HnswIndex::Create({.dim = kDim}));
  std::mt19937 rng(3);
  std::vector<std::vector<float>> vectors;
  for (int i = 0; i < 200; ++i) {
    vectors.push_back(RandomUnit(rng, kDim));
    ASSERT_OK(index->Upsert(i, vectors[i]));
  }
  ASSERT_OK_AND_ASSIGN(auto found, index->Search(vectors[5], 1));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].id, 5u);
  EXPECT_NEAR(found[0].cosine, 1.0f, 1e-5);

  ASSERT_OK(index->Remove(5));
  EXPECT_EQ(index->Remove(5).code(), absl::StatusCode::kNotFound);
  ASSERT_OK_AND_ASSIGN(found, index->Search(vectors[5], 200));
  for (const IdCosine& m : found) EXPECT_NE(m.id, 5u);
  EXPECT_EQ(index->size(), 199u);

  // Id 7 now holds vector 5's direction: found there, and not as before.
  ASSERT_OK(index->Upsert(7, vectors[5]));
  ASSERT_OK_AND_ASSIGN(found, index->Search(vectors[5], 1));
  EXPECT_EQ(found[0].id, 7u);
  ASSERT_OK_AND_ASSIGN(found, index->Search(vectors[7], 1, 0.999f));
  EXPECT_TRUE(found.empty());
  // A removed id comes back with a new vector.
  ASSERT_OK(index->Upsert(5, vectors[9]));
  EXPECT_EQ(index->size(), 200u);
  ASSERT_OK_AND_ASSIGN(found, index->Search(vectors[9], 2));
  EXPECT_THAT((std::set<uint32_t>{found[0].id, found[1].id}),
              (std::set<uint32_t>{5, 9}));
}

TEST(HnswIndex, MinCosineAndWrongDimensions) {
  ASSERT_OK_AND_ASSIGN(auto index, HnswIndex::Create({.dim = 2}));
  ASSERT_OK(index->Upsert(1, std::vector<float>{1, 0}));
  ASSERT_OK(index->Upsert(2, std::vector<float>{0, 1}));
  ASSERT_OK_AND_ASSIGN(auto found,
                       index->Search(std::vector<float>{0.8f, 0.6f}, 10, 0.7f));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].id, 1u);
  EXPECT_NEAR(found[0].cosine, 0.8f, 1e-6);
  EXPECT_EQ(index->Upsert(3, std::vector<float>{1, 0, 0}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(index->Search(std::vector<float>{1}, 1).status().code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_OK_AND_ASSIGN(auto empty, HnswIndex::Create({.dim = 2}));
  ASSERT_OK_AND_ASSIGN(found, empty->Search(std::vector<float>{1, 0}, 5));
  EXPECT_TRUE(found.empty());
}

}  // namespace
}  // namespace neardup
