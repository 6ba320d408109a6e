#include "neardup/embed/fasttext_embedder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>

#include "support/fasttext_model.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace neardup::embed {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

double Dot(const std::vector<float>& a, const std::vector<float>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += double{a[i]} * b[i];
  return sum;
}

class FastTextEmbedderTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new neardup::testing::TempDir();
    path_ = new std::string(
        neardup::testing::TrainTinyFastTextModel(dir_->path(), &log_));
  }
  static void TearDownTestSuite() {
    delete path_;
    delete dir_;
  }
  void SetUp() override { ASSERT_FALSE(path_->empty()) << log_; }

  static neardup::testing::TempDir* dir_;
  static std::string* path_;
  static std::string log_;
};

neardup::testing::TempDir* FastTextEmbedderTest::dir_ = nullptr;
std::string* FastTextEmbedderTest::path_ = nullptr;
std::string FastTextEmbedderTest::log_;

TEST_F(FastTextEmbedderTest, VectorsAreUnitDeterministicAndTopical) {
  ASSERT_OK_AND_ASSIGN(const auto model, FastTextEmbedder::Load(*path_));
  EXPECT_EQ(model->dim(), 16);
  EXPECT_THAT(model->model_id(), StartsWith("fasttext-"));
  EXPECT_EQ(model->model_id().size(), 9u + 16u);
  // The same file loaded again is the same model.
  ASSERT_OK_AND_ASSIGN(const auto again, FastTextEmbedder::Load(*path_));
  EXPECT_EQ(again->model_id(), model->model_id());

  std::mt19937 rng(7);
  const std::string a0 = neardup::testing::TopicSentence(rng, 0, 30);
  const std::string b0 = neardup::testing::TopicSentence(rng, 0, 30);
  const std::string a1 = neardup::testing::TopicSentence(rng, 1, 30);
  const ChunkingOptions chunking;
  ASSERT_OK_AND_ASSIGN(const std::vector<float> va0,
                       model->Embed(a0, chunking));
  ASSERT_OK_AND_ASSIGN(const std::vector<float> vb0,
                       model->Embed(b0, chunking));
  ASSERT_OK_AND_ASSIGN(const std::vector<float> va1,
                       model->Embed(a1, chunking));
  ASSERT_EQ(va0.size(), 16u);
  EXPECT_NEAR(Dot(va0, va0), 1.0, 1e-5);
  ASSERT_OK_AND_ASSIGN(const std::vector<float> repeat,
                       again->Embed(a0, chunking));
  EXPECT_EQ(repeat, va0);  // same bytes
  // Same topic closer than the other topic.
  EXPECT_GT(Dot(va0, vb0), Dot(va0, va1) + 0.1);
}

// Chunks of unequal size are pooled as equals: 8 words and 3 words give
// the mean of the two chunk vectors, which is not the vector of the 11
// words as one chunk (that weighs each word equally). A line break inside a
// chunk reads as a space.
TEST_F(FastTextEmbedderTest, ChunksAreMeanPooled) {
  ASSERT_OK_AND_ASSIGN(const auto model, FastTextEmbedder::Load(*path_));
  std::mt19937 rng(9);
  const std::string first = neardup::testing::TopicSentence(rng, 0, 8);
  const std::string second = neardup::testing::TopicSentence(rng, 1, 3);
  const ChunkingOptions windows{ChunkMode::kFixedTokens, 8, 0};
  const ChunkingOptions whole{ChunkMode::kFixedTokens, 64, 0};
  ASSERT_OK_AND_ASSIGN(const auto v1, model->Embed(first, windows));
  ASSERT_OK_AND_ASSIGN(const auto v2, model->Embed(second, windows));
  std::string broken = first;
  broken[broken.find(' ')] = '\n';
  ASSERT_OK_AND_ASSIGN(const auto v1_broken, model->Embed(broken, windows));
  EXPECT_EQ(v1_broken, v1);
  const std::string text = first + " " + second;
  ASSERT_OK_AND_ASSIGN(const auto pooled, model->Embed(text, windows));
  ASSERT_OK_AND_ASSIGN(const auto one_chunk, model->Embed(text, whole));
  EXPECT_LT(Dot(pooled, one_chunk), 0.9999);  // the chunking mattered
  // fastText's chunk vectors are v1 and v2 up to their norms, so the
  // pooled vector is a positive combination a v1 + b v2 of them and
  // nothing else.
  const double c = Dot(v1, v2), p1 = Dot(pooled, v1), p2 = Dot(pooled, v2);
  const double a = (p1 - c * p2) / (1 - c * c);
  const double b = (p2 - c * p1) / (1 - c * c);
  EXPECT_GT(a, 0.05);
  EXPECT_GT(b, 0.05);
  double residual = 0;
  for (int i = 0; i < 16; ++i) {
    const double r = pooled[i] - a * v1[i] - b * v2[i];
    residual += r * r;
  }
  EXPECT_LT(residual, 1e-8);
}

TEST_F(FastTextEmbedderTest, ClearErrors) {
  EXPECT_EQ(
      FastTextEmbedder::Load(dir_->path() + "/missing.bin").status().code(),
      absl::StatusCode::kNotFound);
  const std::string junk = dir_->path() + "/junk.bin";
  std::ofstream(junk) << "not a model at all";
  EXPECT_EQ(FastTextEmbedder::Load(junk).status().code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_OK_AND_ASSIGN(const auto model, FastTextEmbedder::Load(*path_));
  EXPECT_THAT(model->Embed(" \n\t", {}).status().message(),
              HasSubstr("no word"));
}

}  // namespace
}  // namespace neardup::embed
