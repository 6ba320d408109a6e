#include "neardup/engine/shard_merge.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace neardup::engine {
namespace {

// Best first, as a single node ranks; ties to the lower id (a single node
// breaks them by its internal ids).
bool Better(const ShardMatch& a, const ShardMatch& b) {
  return a.similarity != b.similarity ? a.similarity > b.similarity
                                      : a.id < b.id;
}

}  // namespace

MergedRanking MergeShardAnswers(const std::vector<ShardAnswer>& answers,
                                size_t top_k) {
  MergedRanking merged;
  // Of a shard that left matches out: its last match. Matches ranked after
  // the best of these may be below ones left out, so the ranking ends
  // before them.
  std::optional<ShardMatch> cut;
  for (size_t s = 0; s < answers.size(); ++s) {
    const ShardAnswer& answer = answers[s];
    if (answer.truncated) {
      merged.truncated = true;
      // Nothing of it: nothing can be ranked safely.
      const ShardMatch last =
          answer.matches.empty()
              ? ShardMatch{"", std::numeric_limits<double>::infinity()}
              : answer.matches.back();
      if (!cut.has_value() || Better(last, *cut)) cut = last;
    }
    for (size_t m = 0; m < answer.matches.size(); ++m) {
      merged.entries.push_back({s, m});
    }
  }
  const auto match = [&](const MergedRanking::Entry& e) -> const ShardMatch& {
    return answers[e.shard].matches[e.match];
  };
  std::sort(merged.entries.begin(), merged.entries.end(),
            [&](const MergedRanking::Entry& a, const MergedRanking::Entry& b) {
              return Better(match(a), match(b));
            });
  if (cut.has_value()) {
    std::erase_if(merged.entries, [&](const MergedRanking::Entry& e) {
      return Better(*cut, match(e));
    });
  }
  if (merged.entries.size() > top_k) merged.entries.resize(top_k);
  return merged;
}

}  // namespace neardup::engine
