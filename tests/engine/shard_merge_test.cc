// MergeShardAnswers: the ranking of every shard's answer a single node
// would give, cut before what a shard that left matches out could hide.

#include "neardup/engine/shard_merge.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace neardup::engine {
namespace {

using ::testing::ElementsAre;

// The merged ranking as "id:similarity" strings.
std::vector<std::string> Ids(const std::vector<ShardAnswer>& answers,
                             const MergedRanking& merged) {
  std::vector<std::string> out;
  for (const MergedRanking::Entry& e : merged.entries) {
    out.emplace_back(answers[e.shard].matches[e.match].id);
  }
  return out;
}

TEST(ShardMergeTest, RanksBestFirstWithTiesToTheLowerIdUpToTopK) {
  const std::vector<ShardAnswer> answers = {
      {{{"b", 0.9}, {"d", 0.7}}, false},
      {{{"a", 0.9}, {"c", 0.8}, {"e", 0.5}}, false},
      {{}, false}};
  MergedRanking merged = MergeShardAnswers(answers, 10);
  EXPECT_THAT(Ids(answers, merged), ElementsAre("a", "b", "c", "d", "e"));
  EXPECT_FALSE(merged.truncated);
  merged = MergeShardAnswers(answers, 2);
  EXPECT_THAT(Ids(answers, merged), ElementsAre("a", "b"));
  EXPECT_EQ(merged.entries[0].shard, 1u);
  EXPECT_EQ(merged.entries[0].match, 0u);
}

TEST(ShardMergeTest, ATruncatedShardCutsTheRankingAfterItsLastMatch) {
  // Shard 0 left out matches ranked after 0.8: anything below 0.8 from the
  // others could rank below one of them, so the ranking ends at 0.8.
  const std::vector<ShardAnswer> answers = {
      {{{"a", 0.95}, {"c", 0.8}}, true},
      {{{"b", 0.9}, {"d", 0.8}, {"e", 0.6}}, false}};
  const MergedRanking merged = MergeShardAnswers(answers, 10);
  EXPECT_THAT(Ids(answers, merged), ElementsAre("a", "b", "c"));
  EXPECT_TRUE(merged.truncated);
}

TEST(ShardMergeTest, TheBestCutOfSeveralTruncatedShardsCounts) {
  const std::vector<ShardAnswer> answers = {{{{"a", 0.95}, {"c", 0.7}}, true},
                                            {{{"b", 0.9}}, true},
                                            {{{"d", 0.85}}, false}};
  EXPECT_THAT(Ids(answers, MergeShardAnswers(answers, 10)),
              ElementsAre("a", "b"));
}

TEST(ShardMergeTest, ATruncatedShardWithNoMatchLeavesNothingRankable) {
  const std::vector<ShardAnswer> answers = {{{}, true}, {{{"a", 1.0}}, false}};
  const MergedRanking merged = MergeShardAnswers(answers, 10);
  EXPECT_TRUE(merged.entries.empty());
  EXPECT_TRUE(merged.truncated);
}

}  // namespace
}  // namespace neardup::engine
