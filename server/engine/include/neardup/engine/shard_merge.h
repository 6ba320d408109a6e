#ifndef NEARDUP_ENGINE_SHARD_MERGE_H_
#define NEARDUP_ENGINE_SHARD_MERGE_H_

// A query of a collection of several shards asks one replica of every shard
// and merges their answers into the ranking a single node would give:
// best first, ties to the lower id, at most top_k. A shard that left
// matches out (its answer outgrew a message) makes the merge stop before
// the matches that could rank below those it left out.

#include <cstddef>
#include <string_view>
#include <vector>

namespace neardup::engine {

struct ShardMatch {
  std::string_view id;  // the external id
  double similarity = 0;
};

// One shard's answer: its matches best first, as it ranked them.
struct ShardAnswer {
  std::vector<ShardMatch> matches;
  bool truncated = false;  // it left matches out
};

struct MergedRanking {
  struct Entry {
    size_t shard;  // index into the answers
    size_t match;  // index into that answer's matches
  };
  std::vector<Entry> entries;  // best first, at most top_k
  bool truncated = false;      // some shard's matches are left out
};

MergedRanking MergeShardAnswers(const std::vector<ShardAnswer>& answers,
                                size_t top_k);

}  // namespace neardup::engine

#endif  // NEARDUP_ENGINE_SHARD_MERGE_H_
