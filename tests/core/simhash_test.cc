#include "neardup/core/simhash.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "neardup/core/hash.h"
#include "support/status_matchers.h"

namespace neardup {
namespace {

SimHasher Make(SimHashWeighting w = SimHashWeighting::kTf,
               std::shared_ptr<const IdfTable> idf = nullptr) {
  SimHashConfig config;
  config.weighting = w;
  config.idf = std::move(idf);
  auto hasher = SimHasher::Create(config);
  EXPECT_OK(hasher);
  return *std::move(hasher);
}

// Reference from the definition: 64 signed counters, +w / -w per bit.
uint64_t Reference(const std::vector<std::pair<std::string, int64_t>>& terms) {
  int64_t acc[64] = {};
  for (const auto& [token, w] : terms) {
    const uint64_t lo = Xxh3Hash128(token, kDefaultSeed).lo;
    for (int b = 0; b < 64; ++b) acc[b] += ((lo >> b) & 1) ? w : -w;
  }
  uint64_t out = 0;
  for (int b = 0; b < 64; ++b) {
    if (acc[b] > 0) out |= uint64_t{1} << b;
  }
  return out;
}

TEST(SimHash, TfCountsEveryOccurrence) {
  EXPECT_EQ(*Make().Fingerprint("the the fox"),
            Reference({{"the", 2}, {"fox", 1}}));
  EXPECT_NE(*Make().Fingerprint("the the the fox"),
            *Make().Fingerprint("the fox"));
}

TEST(SimHash, UniformCountsDistinctTokens) {
  const SimHasher uniform = Make(SimHashWeighting::kUniform);
  EXPECT_EQ(*uniform.Fingerprint("the the the fox"),
            *uniform.Fingerprint("fox the"));
  EXPECT_EQ(*uniform.Fingerprint("a b c"),
            Reference({{"a", 1}, {"b", 1}, {"c", 1}}));
}

TEST(SimHash, IdfWeightsTfTimesIdfTruncated) {
  auto table = std::make_shared<IdfTable>();
  table->Set("the", 0.1f);
  table->Set("dog", 4.0f);
  table->Set("cat", 2.6f);
  const SimHasher idf = Make(SimHashWeighting::kIdf, table);
  // "the" x3: trunc(0.3) = 0; "dog": 4; "cat" x2: trunc(5.2) = 5; "ox": 1.
  EXPECT_EQ(*idf.Fingerprint("the dog the cat the cat ox"),
            Reference({{"the", 0}, {"dog", 4}, {"cat", 5}, {"ox", 1}}));
}

TEST(SimHash, IdfWeightingNeedsATable) {
  SimHashConfig config;
  config.weighting = SimHashWeighting::kIdf;
  EXPECT_EQ(SimHasher::Create(config).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(SimHash, EmptyAndInvalidInput) {
  EXPECT_THAT(Make().Fingerprint("  ...  ").status().message(),
              ::testing::HasSubstr("empty document"));
  EXPECT_EQ(Make(SimHashWeighting::kUniform).Fingerprint("").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Make().Fingerprint("\xC3").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(SimHash, HammingAndCosine) {
  EXPECT_EQ(Hamming(0, 0), 0);
  EXPECT_EQ(Hamming(0, ~uint64_t{0}), 64);
  EXPECT_EQ(Hamming(0b1011, 0b0001), 2);
  EXPECT_DOUBLE_EQ(CosineEstimate(5, 5), 1.0);
  EXPECT_DOUBLE_EQ(CosineEstimate(0, ~uint64_t{0}), -1.0);
  EXPECT_NEAR(CosineEstimate(0, 0xFFFFFFFFull), 0.0, 1e-12);  // 32 bits
  EXPECT_NEAR(CosineEstimate(0, 0xFFull), std::cos(M_PI / 8), 1e-12);
}

TEST(SimHash, WeightingNamesRoundTrip) {
  for (auto w : {SimHashWeighting::kTf, SimHashWeighting::kUniform,
                 SimHashWeighting::kIdf}) {
    EXPECT_EQ(*ParseSimHashWeighting(SimHashWeightingName(w)), w);
  }
  EXPECT_FALSE(ParseSimHashWeighting("bm25").ok());
}

TEST(SimHash, SimilarTextsAreCloserThanUnrelated) {
  const SimHasher h = Make();
  const std::string a =
      "stocks rallied on wall street as investors cheered strong earnings "
      "from technology companies and a drop in bond yields";
  const std::string b =
      "stocks rallied on wall street as investors cheered strong earnings "
      "from technology firms and a fall in bond yields";
  const std::string c =
      "the garden needs watering twice a week during the dry summer months "
      "and the roses should be pruned in early spring";
  EXPECT_LT(Hamming(*h.Fingerprint(a), *h.Fingerprint(b)),
            Hamming(*h.Fingerprint(a), *h.Fingerprint(c)));
}

}  // namespace
}  // namespace neardup
