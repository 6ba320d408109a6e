#include "neardup/core/index/semantic_index.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "support/status_matchers.h"

namespace neardup {
namespace {

constexpr int kDim = 24;

std::vector<float> RandomUnit(std::mt19937& rng) {
  std::normal_distribution<float> normal;
  std::vector<float> v(kDim);
  for (float& x : v) x = normal(rng);
  return *UnitEmbedding(v, kDim);
}

float Dot(std::span<const float> a, std::span<const float> b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += double{a[i]} * b[i];
  return static_cast<float>(sum);
}

// Every id in [first, vectors.size()) by its cosine to `probe`, best first.
std::vector<IdCosine> BruteForce(std::span<const float> probe,
                                 const std::vector<std::vector<float>>& vectors,
                                 size_t first = 0) {
  std::vector<IdCosine> truth;
  for (size_t i = first; i < vectors.size(); ++i) {
    truth.push_back({static_cast<uint32_t>(i), Dot(probe, vectors[i])});
  }
  std::sort(truth.begin(), truth.end(), BetterMatch);
  return truth;
}

TEST(SemanticIndex, ShardsAreChecked) {
  EXPECT_FALSE(SemanticIndex::Create({.dim = kDim}, 0).ok());
  EXPECT_FALSE(SemanticIndex::Create({.dim = 0}, 2).ok());
  EXPECT_OK(SemanticIndex::Create({.dim = kDim}, 3).status());
}

// Three shards filled in bulk on two threads answer as brute force does
// (small graphs, high ef: every neighbour is reachable), and the exact
// cosine of each id is its dot product.
TEST(SemanticIndex, MergesShardsLikeBruteForce) {
  std::mt19937 rng(7);
  constexpr int kCount = 600;
  std::vector<uint32_t> ids;
  std::vector<float> flat;
  std::vector<std::vector<float>> vectors;
  for (int i = 0; i < kCount; ++i) {
    ids.push_back(static_cast<uint32_t>(i));
    vectors.push_back(RandomUnit(rng));
    flat.insert(flat.end(), vectors.back().begin(), vectors.back().end());
  }
  ASSERT_OK_AND_ASSIGN(
      auto index, SemanticIndex::Create({.dim = kDim, .ef_search = 400}, 3));
  ASSERT_OK(index->BulkUpsert(ids, flat, 2));
  EXPECT_EQ(index->size(), static_cast<size_t>(kCount));
  EXPECT_GT(index->memory_bytes(), kCount * kDim * sizeof(float));
  for (int q = 0; q < 20; ++q) {
    const std::vector<float> probe = RandomUnit(rng);
    const std::vector<IdCosine> truth = BruteForce(probe, vectors);
    ASSERT_OK_AND_ASSIGN(const auto found, index->Search(probe, 10, -1));
    ASSERT_EQ(found.size(), 10u);
    for (size_t r = 0; r < found.size(); ++r) {
      EXPECT_EQ(found[r].id, truth[r].id) << "query " << q << " rank " << r;
      EXPECT_NEAR(found[r].cosine, truth[r].cosine, 1e-5);
    }
    const std::vector<uint32_t> some = {truth[0].id, truth[50].id};
    const auto cosines = index->CosineTo(probe, some);
    EXPECT_NEAR(*cosines[0], truth[0].cosine, 1e-6);
    EXPECT_NEAR(*cosines[1], truth[50].cosine, 1e-6);
  }
}

// Exact shards score every vector: the brute-force answer (where small
// graphs searched narrowly would miss neighbours), deleted vectors out.
TEST(SemanticIndex, ExactSearchIsBruteForce) {
  std::mt19937 rng(13);
  constexpr int kCount = 2000;
  std::vector<std::vector<float>> vectors;
  ASSERT_OK_AND_ASSIGN(
      auto index,
      SemanticIndex::Create({.dim = kDim, .m = 4, .ef_construction = 8}, 2,
                            /*exact=*/true));
  for (int i = 0; i < kCount; ++i) {
    vectors.push_back(RandomUnit(rng));
    ASSERT_OK(index->Upsert(static_cast<uint32_t>(i), vectors.back()));
  }
  for (uint32_t gone = 0; gone < 100; ++gone) ASSERT_OK(index->Remove(gone));
  for (int q = 0; q < 20; ++q) {
    const std::vector<float> probe = RandomUnit(rng);
    const std::vector<IdCosine> truth = BruteForce(probe, vectors, 100);
    ASSERT_OK_AND_ASSIGN(const auto found, index->Search(probe, 10, -1));
    ASSERT_EQ(found.size(), 10u);
    for (size_t r = 0; r < found.size(); ++r) {
      EXPECT_EQ(found[r].id, truth[r].id) << "query " << q << " rank " << r;
    }
    // The floor cuts the list short.
    ASSERT_OK_AND_ASSIGN(const auto above,
                         index->Search(probe, 10, truth[3].cosine - 1e-6f));
    EXPECT_EQ(above.size(), 4u);
  }
}

// Graph shards grow ahead by Reserve, then take the vectors without
// growing again; both kinds of shard still answer.
TEST(SemanticIndex, ReserveGrowsEveryShard) {
  std::mt19937 rng(37);
  for (const bool exact : {false, true}) {
    ASSERT_OK_AND_ASSIGN(
        auto index,
        SemanticIndex::Create({.dim = kDim, .initial_capacity = 4}, 2, exact));
    ASSERT_OK(index->Reserve(300));
    const size_t reserved = index->memory_bytes();
    std::vector<float> last;
    for (uint32_t id = 0; id < 300; ++id) {
      last = RandomUnit(rng);
      ASSERT_OK(index->Upsert(id, last));
    }
    EXPECT_EQ(index->size(), 300u);
    if (exact) {
      EXPECT_EQ(index->memory_bytes(), reserved);
    }
    ASSERT_OK_AND_ASSIGN(const auto found, index->Search(last, 1, 0.99f));
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].id, 299u);
  }
}

TEST(SemanticIndex, ReplaceRemoveAndFloor) {
  std::mt19937 rng(11);
  ASSERT_OK_AND_ASSIGN(auto index, SemanticIndex::Create({.dim = kDim}, 2));
  const std::vector<float> a = RandomUnit(rng), b = RandomUnit(rng);
  ASSERT_OK(index->Upsert(4, a));
  ASSERT_OK(index->Upsert(5, b));
  ASSERT_OK_AND_ASSIGN(auto found, index->Search(a, 10, 0.99f));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].id, 4u);
  // Id 4 now holds b: a finds nothing at 0.99, b finds both.
  ASSERT_OK(index->Upsert(4, b));
  ASSERT_OK_AND_ASSIGN(found, index->Search(a, 10, 0.99f));
  EXPECT_TRUE(found.empty());
  ASSERT_OK_AND_ASSIGN(found, index->Search(b, 10, 0.99f));
  EXPECT_EQ(found.size(), 2u);
  ASSERT_OK(index->Remove(5));
  EXPECT_EQ(index->Remove(5).code(), absl::StatusCode::kNotFound);
  ASSERT_OK_AND_ASSIGN(found, index->Search(b, 10, 0.99f));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].id, 4u);
  const std::vector<uint32_t> ids = {4, 5};
  const auto cosines = index->CosineTo(b, ids);
  EXPECT_NEAR(*cosines[0], 1.0f, 1e-5);
  EXPECT_FALSE(cosines[1].has_value());
  EXPECT_EQ(index->size(), 1u);
}

}  // namespace
}  // namespace neardup
