// Candidate recall of the LSH index against the theoretical S-curve
// P(s) = 1 - (1 - s^r)^b, on generated document pairs of known Jaccard.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "neardup/core/index/minhash_lsh_index.h"
#include "neardup/core/minhash.h"
#include "support/status_matchers.h"

namespace neardup {
namespace {

constexpr int kUnion = 100;  // distinct tokens in each pair's union
constexpr int kPairs = 400;  // pairs per similarity level

std::string Tokens(int first, int count) {
  std::string text;
  for (int i = 0; i < count; ++i) absl::StrAppend(&text, "t", first + i, " ");
  return text;
}

struct Level {
  double jaccard;
  double measured_recall;
};

class IndexRecallTest : public ::testing::TestWithParam<LshParams> {};

TEST_P(IndexRecallTest, RecallFollowsSCurve) {
  const LshParams lsh = GetParam();
  MinHashConfig config;
  config.tokenizer = "word-uax29";  // each generated token is one word
  config.num_perm = static_cast<int>(lsh.slots_used());
  auto hasher = MinHasher::Create(config);
  ASSERT_OK(hasher);

  for (int shared : {30, 50, 70, 80, 90}) {
    const double jaccard = shared / double(kUnion);
    auto index = MinHashLshIndex::Create({.num_perm = config.num_perm,
                                          .lsh = lsh,
                                          .slot_bits = 64,
                                          .shards = 8});
    ASSERT_OK(index);
    std::vector<MinHashSignature> probes;
    int next_token = 0;
    for (uint32_t pair = 0; pair < kPairs; ++pair) {
      const int own = (kUnion - shared) / 2;
      const int common_start = next_token;
      const int a_start = common_start + shared;
      const int b_start = a_start + own;
      next_token = b_start + (kUnion - shared - own);
      auto a = hasher->Fingerprint(Tokens(common_start, shared) +
                                   Tokens(a_start, own));
      auto b = hasher->Fingerprint(Tokens(common_start, shared) +
                                   Tokens(b_start, kUnion - shared - own));
      ASSERT_OK(a);
      ASSERT_OK(b);
      ASSERT_OK((*index)->Insert(pair, *a));
      probes.push_back(*std::move(b));
    }
    int found = 0;
    for (uint32_t pair = 0; pair < kPairs; ++pair) {
      auto candidates = (*index)->Candidates(probes[pair]);
      ASSERT_OK(candidates);
      found += std::binary_search(candidates->begin(), candidates->end(), pair);
    }
    const double expected = LshCandidateProbability(jaccard, lsh);
    const double recall = found / double(kPairs);
    const double sigma = std::sqrt(expected * (1 - expected) / kPairs);
    std::printf("%dx%d J=%.2f recall=%.3f expected=%.3f\n", lsh.bands, lsh.rows,
                jaccard, recall, expected);
    EXPECT_NEAR(recall, expected, 4 * sigma + 0.02)
        << lsh.bands << "x" << lsh.rows << " at J=" << jaccard;
  }
}

INSTANTIATE_TEST_SUITE_P(Bandings, IndexRecallTest,
                         ::testing::Values(LshParams{16, 8}, LshParams{32, 4},
                                           LshParams{8, 16}, LshParams{16, 4}));

}  // namespace
}  // namespace neardup
