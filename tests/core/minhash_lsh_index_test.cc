#include "neardup/core/index/minhash_lsh_index.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <thread>

#include "support/status_matchers.h"

namespace neardup {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::unique_ptr<MinHashLshIndex> MakeIndex(int slot_bits = 64,
                                           LshParams lsh = {16, 8},
                                           int shards = 4) {
  auto index =
      MinHashLshIndex::Create({.num_perm = static_cast<int>(lsh.slots_used()),
                               .lsh = lsh,
                               .slot_bits = slot_bits,
                               .shards = shards});
  EXPECT_OK(index);
  return *std::move(index);
}

MinHashSignature RandomSignature(std::mt19937_64& rng, int h = 128) {
  MinHashSignature sig;
  sig.slots.resize(h);
  for (uint64_t& slot : sig.slots) slot = rng();
  return sig;
}

// Copy of `base` whose first `equal` slots are kept and the rest replaced.
MinHashSignature WithEqualPrefix(const MinHashSignature& base, int equal,
                                 std::mt19937_64& rng) {
  MinHashSignature sig = base;
  for (size_t i = equal; i < sig.slots.size(); ++i) sig.slots[i] = rng();
  return sig;
}

TEST(MinHashLshIndex, CreateRejectsBadOptions) {
  EXPECT_FALSE(MinHashLshIndex::Create({.lsh = {0, 8}}).ok());
  auto bits = MinHashLshIndex::Create({.slot_bits = 12});
  ASSERT_FALSE(bits.ok());
  EXPECT_THAT(bits.status().message(), HasSubstr("slot_bits"));
  EXPECT_FALSE(MinHashLshIndex::Create({.shards = 0}).ok());
}

// The banding is checked against the signature width the index was given,
// not against itself: 128 x 33554433 wraps to 128 in 32-bit arithmetic and
// once crashed the first query (and every rebuild after it).
TEST(MinHashLshIndex, CreateRejectsBandingThatOverflows) {
  for (const LshParams lsh : std::vector<LshParams>{
           {128, 33554433}, {33554433, 128}, {16, 16}, {2147483647, 2}}) {
    const auto index = MinHashLshIndex::Create({.num_perm = 128, .lsh = lsh});
    ASSERT_FALSE(index.ok()) << lsh.bands << " x " << lsh.rows;
    EXPECT_EQ(index.status().code(), absl::StatusCode::kInvalidArgument);
  }
  EXPECT_FALSE(MinHashLshIndex::Create({.num_perm = 0, .lsh = {0, 0}}).ok());
  EXPECT_FALSE(MinHashLshIndex::Create(
                   {.num_perm = kMaxNumPerm * 2, .lsh = {kMaxNumPerm, 2}})
                   .ok());
}

TEST(MinHashLshIndex, RejectsWrongWidth) {
  auto index = MakeIndex();
  std::mt19937_64 rng(1);
  const absl::Status status = index->Insert(1, RandomSignature(rng, 64));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("64 slots"));
  EXPECT_FALSE(index->Query(RandomSignature(rng, 256), 0.5).ok());
  EXPECT_EQ(index->size(), 0u);
}

TEST(MinHashLshIndex, RejectsReservedId) {
  auto index = MakeIndex();
  std::mt19937_64 rng(1);
  EXPECT_FALSE(index->Insert(0xFFFFFFFFu, RandomSignature(rng)).ok());
}

TEST(MinHashLshIndex, FindsIdenticalAndNearButNotUnrelated) {
  auto index = MakeIndex();
  std::mt19937_64 rng(2);
  const MinHashSignature base = RandomSignature(rng);
  ASSERT_OK(index->Insert(10, base));
  ASSERT_OK(index->Insert(11, WithEqualPrefix(base, 120, rng)));
  ASSERT_OK(index->Insert(12, RandomSignature(rng)));
  auto found = index->Query(base, 0.5);
  ASSERT_OK(found);
  EXPECT_THAT(*found,
              ElementsAre(ScoredId{10, 1.0}, ScoredId{11, 120 / 128.0}));
  EXPECT_THAT(*index->Candidates(base), ElementsAre(10, 11));
}

TEST(MinHashLshIndex, ThresholdIsInclusive) {
  auto index = MakeIndex();
  std::mt19937_64 rng(3);
  const MinHashSignature base = RandomSignature(rng);
  // 100 equal slots: bands 0..11 match, the score is exactly 100/128.
  ASSERT_OK(index->Insert(1, WithEqualPrefix(base, 100, rng)));
  EXPECT_EQ(index->Query(base, 100 / 128.0)->size(), 1u);
  EXPECT_TRUE(index->Query(base, 101 / 128.0)->empty());
  EXPECT_FALSE(index->Query(base, 1.5).ok());
}

TEST(MinHashLshIndex, ReinsertReplaces) {
  auto index = MakeIndex();
  std::mt19937_64 rng(4);
  const MinHashSignature first = RandomSignature(rng);
  const MinHashSignature second = RandomSignature(rng);
  ASSERT_OK(index->Insert(5, first));
  ASSERT_OK(index->Insert(5, second));
  EXPECT_EQ(index->size(), 1u);
  EXPECT_TRUE(index->Query(first, 0.1)->empty());
  EXPECT_THAT(*index->Query(second, 0.1), ElementsAre(ScoredId{5, 1.0}));
  EXPECT_EQ(*index->Get(5), second.slots);
}

TEST(MinHashLshIndex, Remove) {
  auto index = MakeIndex();
  std::mt19937_64 rng(5);
  const MinHashSignature sig = RandomSignature(rng);
  ASSERT_OK(index->Insert(7, sig));
  ASSERT_OK(index->Insert(8, sig));
  EXPECT_TRUE(index->Remove(7));
  EXPECT_FALSE(index->Remove(7));
  EXPECT_FALSE(index->Remove(1234));
  EXPECT_FALSE(index->Contains(7));
  EXPECT_FALSE(index->Get(7).has_value());
  EXPECT_THAT(*index->Query(sig, 0.9), ElementsAre(ScoredId{8, 1.0}));
  EXPECT_EQ(index->size(), 1u);
  ASSERT_OK(index->Insert(7, sig));  // ids can come back
  EXPECT_EQ(index->Query(sig, 0.9)->size(), 2u);
}

TEST(MinHashLshIndex, GetKeepsOnlyVerifyBits) {
  auto index = MakeIndex(16);
  std::mt19937_64 rng(6);
  const MinHashSignature sig = RandomSignature(rng);
  ASSERT_OK(index->Insert(3, sig));
  const std::vector<uint64_t> kept = *index->Get(3);
  ASSERT_EQ(kept.size(), 128u);
  for (int i = 0; i < 128; ++i) EXPECT_EQ(kept[i], sig.slots[i] & 0xFFFF);
  EXPECT_THAT(*index->Query(sig, 1.0), ElementsAre(ScoredId{3, 1.0}));
}

// Fewer kept bits only err upward: an unequal slot whose low bits agree
// reads as equal, an equal one is never missed. 8 bits against 64 on the
// same signatures, with slots made to agree in their low byte only.
TEST(MinHashLshIndex, EightBitScoresNeverFallBelowTheEstimate) {
  auto narrow = MakeIndex(8, {16, 8}, 1);
  auto exact = MakeIndex(64, {16, 8}, 1);
  std::mt19937_64 rng(11);
  const MinHashSignature probe = RandomSignature(rng);
  for (uint32_t id = 0; id < 200; ++id) {
    MinHashSignature sig = WithEqualPrefix(probe, 64 + id % 60, rng);
    // Slots 120.. differ above their low byte only.
    for (int i = 120; i < 128; ++i) {
      sig.slots[i] = probe.slots[i] ^ (uint64_t{1 + id} << 8);
    }
    ASSERT_OK(narrow->Insert(id, sig));
    ASSERT_OK(exact->Insert(id, sig));
  }
  const auto narrow_top = *narrow->TopK(probe, 200);
  const auto exact_top = *exact->TopK(probe, 200);
  ASSERT_EQ(narrow_top.size(), 200u);
  ASSERT_EQ(exact_top.size(), 200u);
  std::map<uint32_t, double> exact_score;
  for (const ScoredId& m : exact_top) exact_score[m.id] = m.score;
  int above = 0;
  for (const ScoredId& m : narrow_top) {
    // The 8 low-byte twins read as equal; random slots rarely.
    EXPECT_GE(m.score, exact_score[m.id] + 8 / 128.0) << m.id;
    above += m.score > exact_score[m.id] + 8 / 128.0;
  }
  // A random slot's low byte agrees 1 time in 256: about 20 ids of 200.
  EXPECT_LT(above, 100);
  const std::vector<uint64_t> full = *exact->Get(5);
  std::vector<uint64_t> low;
  for (uint64_t slot : full) low.push_back(slot & 0xFF);
  EXPECT_EQ(*narrow->Get(5), low);
}

TEST(MinHashLshIndex, TopKIsBestFirstWithIdTieBreak) {
  auto index = MakeIndex();
  std::mt19937_64 rng(7);
  const MinHashSignature base = RandomSignature(rng);
  const int equal[] = {40, 120, 80, 120, 16};
  for (uint32_t id = 0; id < 5; ++id) {
    ASSERT_OK(index->Insert(100 - id, WithEqualPrefix(base, equal[id], rng)));
  }
  EXPECT_THAT(*index->TopK(base, 3),
              ElementsAre(ScoredId{97, 120 / 128.0}, ScoredId{99, 120 / 128.0},
                          ScoredId{98, 80 / 128.0}));
  EXPECT_EQ(index->TopK(base, 50)->size(), 5u);
  EXPECT_TRUE(index->TopK(base, 0)->empty());
}

TEST(MinHashLshIndex, ManyExactDuplicates) {
  auto index = MakeIndex(16);
  std::mt19937_64 rng(8);
  const MinHashSignature sig = RandomSignature(rng);
  for (uint32_t id = 0; id < 3000; ++id) ASSERT_OK(index->Insert(id, sig));
  EXPECT_EQ(index->Query(sig, 1.0)->size(), 3000u);
  for (uint32_t id = 0; id < 3000; id += 3) ASSERT_TRUE(index->Remove(id));
  EXPECT_EQ(index->Query(sig, 1.0)->size(), 2000u);
}

// A flood of identical signatures: delete in both orders, and replace
// members (with another signature, and with the same one) mid-flood.
TEST(MinHashLshIndex, FloodDeletesAndReplacesInAnyOrder) {
  for (const bool oldest_first : {true, false}) {
    auto index = MakeIndex(16, {20, 4});
    std::mt19937_64 rng(9);
    const MinHashSignature same = RandomSignature(rng, 80);
    const MinHashSignature other = RandomSignature(rng, 80);
    constexpr uint32_t kFlood = 2000;
    for (uint32_t id = 0; id < kFlood; ++id) ASSERT_OK(index->Insert(id, same));
    for (uint32_t id = 100; id < 200; ++id) ASSERT_OK(index->Insert(id, other));
    for (uint32_t id = 200; id < 300; ++id) ASSERT_OK(index->Insert(id, same));
    EXPECT_EQ(index->Query(same, 1.0)->size(), kFlood - 100);
    EXPECT_EQ(index->Query(other, 1.0)->size(), 100u);
    uint32_t left = kFlood;
    for (uint32_t i = 0; i < kFlood; ++i) {
      ASSERT_TRUE(index->Remove(oldest_first ? i : kFlood - 1 - i));
      --left;
      if (i % 250 == 0) {
        std::vector<uint32_t> expected;  // every id still there, as `same`
        for (uint32_t id = 0; id < kFlood; ++id) {
          const bool gone = oldest_first ? id <= i : id >= kFlood - 1 - i;
          if (!gone && (id < 100 || id >= 200)) expected.push_back(id);
        }
        ASSERT_OK_AND_ASSIGN(const std::vector<ScoredId> hits,
                             index->Query(same, 1.0));
        std::vector<uint32_t> found;
        for (const ScoredId& hit : hits) found.push_back(hit.id);
        ASSERT_EQ(found, expected) << "after " << i + 1 << " deletes";
      }
    }
    EXPECT_EQ(index->size(), 0u);
    EXPECT_TRUE(index->Candidates(same)->empty());
  }
}

// A query that hits a flood scores it once and lists only the members the
// caller asked for, lowest ids first.
TEST(MinHashLshIndex, FloodQueriesListOnlyTheBestMembers) {
  auto index = MakeIndex(16, {20, 4});
  std::mt19937_64 rng(11);
  const MinHashSignature same = RandomSignature(rng, 80);
  constexpr uint32_t kFlood = 5000;
  for (uint32_t id = 0; id < kFlood; ++id) ASSERT_OK(index->Insert(id, same));
  const MinHashSignature near = WithEqualPrefix(same, 72, rng);
  ASSERT_OK(index->Insert(kFlood, near));

  IndexQueryStats stats;
  ASSERT_OK_AND_ASSIGN(const std::vector<ScoredId> top,
                       index->Query(same, 0.5, &stats, 3));
  EXPECT_THAT(
      top, ElementsAre(ScoredId{0, 1.0}, ScoredId{1, 1.0}, ScoredId{2, 1.0}));
  EXPECT_EQ(stats.candidates, kFlood + 1);  // counts what groups stand for

  // One group per shard, each listing two members.
  ASSERT_OK_AND_ASSIGN(const std::vector<ScoredGroup> groups,
                       index->QueryGroups(same, 0.5, 2));
  ASSERT_EQ(groups.size(), 5u);
  size_t members = 0;
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(groups[i].score, 1.0);
    EXPECT_EQ(groups[i].ids.size(), 2u);
    EXPECT_LT(groups[i].ids[0], groups[i].ids[1]);
    members += groups[i].size;
  }
  EXPECT_EQ(members, kFlood);
  EXPECT_EQ(groups[4].ids, std::vector<uint32_t>{kFlood});
  EXPECT_EQ(groups[4].size, 1u);
  EXPECT_LT(groups[4].score, 1.0);
  EXPECT_EQ(index->TopK(same, 4)->size(), 4u);
  EXPECT_EQ(index->Query(same, 0.5)->size(), kFlood + 1);
}

// With twin keys, equal signatures share an entry only when their keys are
// equal; an unknown key keeps a document apart.
TEST(MinHashLshIndex, TwinKeysKeepUnequalEvidenceApart) {
  MinHashIndexOptions options{
      .num_perm = 80, .lsh = {20, 4}, .slot_bits = 16, .shards = 1};
  options.twin_key = [](uint32_t id) -> std::optional<uint64_t> {
    if (id % 10 == 9) return std::nullopt;
    return id % 2;
  };
  ASSERT_OK_AND_ASSIGN(auto index, MinHashLshIndex::Create(options));
  std::mt19937_64 rng(12);
  const MinHashSignature same = RandomSignature(rng, 80);
  for (uint32_t id = 0; id < 100; ++id) ASSERT_OK(index->Insert(id, same));
  ASSERT_OK_AND_ASSIGN(const std::vector<ScoredGroup> groups,
                       index->QueryGroups(same, 1.0, 0));
  size_t even = 0, odd = 0, alone = 0;
  for (const ScoredGroup& group : groups) {
    ASSERT_EQ(group.ids.size(), group.size);
    if (group.size == 1 && group.ids[0] % 10 == 9) {
      ++alone;
      continue;
    }
    for (uint32_t id : group.ids) {
      EXPECT_NE(id % 10, 9u);
      EXPECT_EQ(id % 2, group.ids[0] % 2) << "mixed keys in one group";
    }
    (group.ids[0] % 2 == 0 ? even : odd) += group.size;
  }
  EXPECT_EQ(alone, 10u);
  EXPECT_EQ(even, 50u);
  EXPECT_EQ(odd, 40u);
}

// Twin keys may cost a store read: they are fetched with no index lock
// held, so a query on another thread answers meanwhile (it would wait for
// the shard's write lock, and this test time out, otherwise).
TEST(MinHashLshIndex, TwinKeysAreFetchedWhileQueriesGoOn) {
  MinHashIndexOptions options{
      .num_perm = 80, .lsh = {20, 4}, .slot_bits = 16, .shards = 1};
  std::mt19937_64 rng(14);
  const MinHashSignature same = RandomSignature(rng, 80);
  MinHashLshIndex* index_ptr = nullptr;
  std::atomic<int> fetched{0};
  bool every_query_answered = true;
  // Kept out here: a future's destructor waits for its query, which would
  // never end while this callback held the lock.
  std::vector<std::future<bool>> queries;
  options.twin_key = [&](uint32_t id) -> std::optional<uint64_t> {
    ++fetched;
    std::future<bool>& query = queries.emplace_back(std::async(
        std::launch::async, [&] { return index_ptr->Query(same, 0.5).ok(); }));
    every_query_answered =
        every_query_answered &&
        query.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
    return id % 2;
  };
  ASSERT_OK_AND_ASSIGN(auto index, MinHashLshIndex::Create(options));
  index_ptr = index.get();
  for (uint32_t id = 0; id < 6; ++id) ASSERT_OK(index->Insert(id, same));
  // The rebuild's path too.
  const std::vector<uint32_t> more = {6, 7, 8, 9};
  const std::vector<MinHashSignature> sigs(more.size(), same);
  ASSERT_OK(index->BulkInsert(more, sigs, 1));
  // Every query done while the index is alive, even if one timed out.
  for (std::future<bool>& query : queries) query.wait();
  EXPECT_GT(fetched.load(), 0);
  EXPECT_TRUE(every_query_answered);
  // Keys still decide the groups: evens with evens, odds with odds.
  ASSERT_OK_AND_ASSIGN(const std::vector<ScoredGroup> groups,
                       index->QueryGroups(same, 1.0, 0));
  ASSERT_EQ(groups.size(), 2u);
  for (const ScoredGroup& group : groups) {
    EXPECT_EQ(group.size, 5u);
    for (uint32_t id : group.ids) EXPECT_EQ(id % 2, group.ids[0] % 2);
  }
}

// Random inserts, replaces and removes over a few signatures, many of them
// identical: every query equals a brute-force scan, whole and cut to k.
TEST(MinHashLshIndex, TwinGroupsAnswerLikeBruteForce) {
  std::mt19937_64 rng(13);
  const MinHashSignature base = RandomSignature(rng, 64);
  std::vector<MinHashSignature> pool;  // all share band 0 with `base`
  for (int equal : {64, 64, 60, 56, 40, 8}) {
    pool.push_back(WithEqualPrefix(base, equal, rng));
  }
  for (const bool keyed : {false, true}) {
    MinHashIndexOptions options{
        .num_perm = 64, .lsh = {16, 4}, .slot_bits = 64, .shards = 3};
    if (keyed) {
      options.twin_key = [](uint32_t id) { return uint64_t{id % 3 == 0}; };
    }
    ASSERT_OK_AND_ASSIGN(auto index, MinHashLshIndex::Create(options));
    std::map<uint32_t, const MinHashSignature*> live;
    for (int step = 0; step < 4000; ++step) {
      const uint32_t id = rng() % 300;
      if (rng() % 3 == 0) {
        EXPECT_EQ(index->Remove(id), live.erase(id) == 1);
      } else {
        const MinHashSignature& sig = pool[rng() % pool.size()];
        ASSERT_OK(index->Insert(id, sig));
        live[id] = &sig;
      }
      if (step % 97 != 0) continue;
      const MinHashSignature& probe = pool[rng() % pool.size()];
      std::vector<ScoredId> every;  // all live documents share band 0
      std::vector<uint32_t> live_ids;
      for (const auto& [doc, sig] : live) {
        int equal = 0;
        for (int i = 0; i < 64; ++i) equal += sig->slots[i] == probe.slots[i];
        every.push_back({doc, equal / 64.0});
        live_ids.push_back(doc);
      }
      std::sort(every.begin(), every.end(),
                [](const ScoredId& a, const ScoredId& b) {
                  return a.score != b.score ? a.score > b.score : a.id < b.id;
                });
      std::vector<ScoredId> expected;
      for (const ScoredId& e : every) {
        if (e.score >= 0.5) expected.push_back(e);
      }
      ASSERT_EQ(*index->Candidates(probe), live_ids);
      const size_t five = std::min<size_t>(5, every.size());
      ASSERT_EQ(*index->TopK(probe, 5),
                std::vector<ScoredId>(every.begin(), every.begin() + five));
      ASSERT_EQ(*index->Query(probe, 0.5), expected) << "step " << step;
      const size_t k = std::min<size_t>(7, expected.size());
      ASSERT_EQ(*index->Query(probe, 0.5, nullptr, 7),
                std::vector<ScoredId>(expected.begin(), expected.begin() + k));
      ASSERT_EQ(index->size(), live.size());
    }
  }
}

TEST(MinHashLshIndex, BulkInsertMatchesSequentialInserts) {
  std::mt19937_64 rng(9);
  std::vector<uint32_t> ids;
  std::vector<MinHashSignature> sigs;
  const MinHashSignature base = RandomSignature(rng);
  for (uint32_t i = 0; i < 2000; ++i) {
    ids.push_back(i * 3 + 1);
    sigs.push_back(WithEqualPrefix(base, 8 + (i % 120), rng));
  }
  auto sequential = MakeIndex();
  for (size_t i = 0; i < ids.size(); ++i) {
    ASSERT_OK(sequential->Insert(ids[i], sigs[i]));
  }
  for (int threads : {1, 2, 8}) {
    auto bulk = MakeIndex();
    ASSERT_OK(bulk->BulkInsert(ids, sigs, threads));
    EXPECT_EQ(bulk->size(), sequential->size());
    for (size_t i = 0; i < ids.size(); i += 97) {
      EXPECT_EQ(*bulk->Query(sigs[i], 0.3), *sequential->Query(sigs[i], 0.3));
    }
  }
  auto bad = MakeIndex();
  EXPECT_FALSE(bad->BulkInsert(ids, std::span(sigs).first(10), 2).ok());
}

TEST(MinHashLshIndex, MemoryGrowsWithDocuments) {
  auto index = MakeIndex(16);
  std::mt19937_64 rng(10);
  const size_t empty = index->MemoryBytes();
  for (uint32_t id = 0; id < 1000; ++id) {
    ASSERT_OK(index->Insert(id, RandomSignature(rng)));
  }
  // 16-bit slots alone take 256 bytes per document.
  EXPECT_GT(index->MemoryBytes(), empty + 1000 * 256);
}

// Run under TSan: writers and readers on overlapping shards.
TEST(MinHashLshIndex, ConcurrentInsertsQueriesAndRemoves) {
  auto index = MakeIndex(16, {16, 8}, 8);
  std::mt19937_64 seed_rng(11);
  const MinHashSignature base = RandomSignature(seed_rng);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(100 + t);
      for (uint32_t i = 0; i < 500; ++i) {
        const uint32_t id = t * 1000 + i;
        if (!index->Insert(id, WithEqualPrefix(base, 64, rng)).ok()) ++failures;
        if (!index->Query(base, 0.4).ok()) ++failures;
        if (i % 5 == 0 && !index->Remove(id)) ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(index->size(), 4u * 400);
  EXPECT_EQ(index->Query(base, 0.5)->size(), 4u * 400);
}

// Boilerplate at the slot level: documents that share a paragraph take
// each slot from the paragraph's signature about half the time, so every
// band whose four slots all come from it shares one key, a chain that grows
// with the collection.
class HotBandKeys : public ::testing::Test {
 protected:
  static constexpr LshParams kLsh = {20, 4};  // the default banding
  static constexpr uint32_t kShared = 2000;   // ~125 per hot key

  void SetUp() override {
    paragraph_ = RandomSignature(rng_, 128);
    for (uint32_t id = 0; id < kShared; ++id) {
      MinHashSignature sig = RandomSignature(rng_, 128);
      for (size_t i = 0; i < sig.slots.size(); ++i) {
        if (rng_() % 2 == 0) sig.slots[i] = paragraph_.slots[i];
      }
      documents_.push_back(sig);
    }
    // The document asked about: its first two bands are the paragraph's.
    for (size_t i = 0; i < 8; ++i) documents_[7].slots[i] = paragraph_.slots[i];
    for (auto* index : {&hot_, &plain_}) {
      ASSERT_OK_AND_ASSIGN(*index,
                           MinHashLshIndex::Create(
                               {.num_perm = 128,
                                .lsh = kLsh,
                                .slot_bits = 64,
                                .shards = 1,
                                .hot_band_rows = index == &hot_ ? 32u : 0u}));
      for (uint32_t id = 0; id < kShared; ++id) {
        ASSERT_OK((*index)->Insert(id, documents_[id]));
      }
    }
  }

  std::mt19937_64 rng_{23};
  MinHashSignature paragraph_;
  std::vector<MinHashSignature> documents_;
  std::unique_ptr<MinHashLshIndex> hot_;
  std::unique_ptr<MinHashLshIndex> plain_;
};

// At 0.8 the hot keys are left out and the answer is the same; at the
// floor the banding needs every band, so none is.
TEST_F(HotBandKeys, AreLeftOutWhileTheOtherBandsStillFindTheThreshold) {
  // A near copy of document 7 (the last 8 of its slots replaced): the same
  // hot keys.
  const MinHashSignature probe = WithEqualPrefix(documents_[7], 120, rng_);
  IndexQueryStats hot_stats, plain_stats;
  ASSERT_OK_AND_ASSIGN(const auto hot, hot_->Query(probe, 0.8, &hot_stats));
  ASSERT_OK_AND_ASSIGN(const auto plain,
                       plain_->Query(probe, 0.8, &plain_stats));
  EXPECT_EQ(hot, plain);
  ASSERT_FALSE(hot.empty());
  EXPECT_EQ(hot.front().id, 7u);
  EXPECT_GE(hot_stats.hot_bands_skipped, 2u);
  EXPECT_EQ(plain_stats.hot_bands_skipped, 0u);
  EXPECT_LT(hot_stats.scored * 5, plain_stats.scored)
      << hot_stats.scored << " vs " << plain_stats.scored;

  IndexQueryStats floor_stats;
  ASSERT_OK_AND_ASSIGN(const auto at_floor,
                       hot_->Query(probe, 0.7, &floor_stats));
  EXPECT_EQ(at_floor, *plain_->Query(probe, 0.7));
  EXPECT_EQ(floor_stats.hot_bands_skipped, 0u);
  EXPECT_EQ(floor_stats.scored, plain_stats.scored);

  // A looser score filter for a query at 0.8 (exact verification's) skips
  // as the query may.
  IndexQueryStats loose_stats;
  ASSERT_OK(hot_->QueryGroups(probe, 0.5, 0, &loose_stats, 0.8));
  EXPECT_EQ(loose_stats.hot_bands_skipped, hot_stats.hot_bands_skipped);

  // Unscored candidates and TopK walk every band.
  EXPECT_EQ(*hot_->Candidates(probe), *plain_->Candidates(probe));
  EXPECT_EQ(*hot_->TopK(probe, 5), *plain_->TopK(probe, 5));
}

TEST_F(HotBandKeys, AJaccardLevelAboveOneIsRefused) {
  for (const double found_at :
       {1.5, std::numeric_limits<double>::quiet_NaN()}) {
    EXPECT_EQ(hot_->QueryGroups(documents_[0], 0.8, 0, nullptr, found_at)
                  .status()
                  .code(),
              absl::StatusCode::kInvalidArgument)
        << found_at;
  }
  EXPECT_OK(hot_->QueryGroups(documents_[0], 0.8, 0, nullptr, 1.0).status());
}

// A flood of near-identical documents makes every band hot: at most the
// skippable bands are left out, and the rest find every member.
TEST_F(HotBandKeys, AFloodWhoseEveryBandIsHotIsStillFound) {
  const MinHashSignature base = RandomSignature(rng_, 128);
  for (uint32_t id = kShared; id < kShared + 300; ++id) {
    MinHashSignature copy = base;
    copy.slots[rng_() % 80] = rng_();  // one band differs at most
    ASSERT_OK(hot_->Insert(id, copy));
    ASSERT_OK(plain_->Insert(id, copy));
  }
  IndexQueryStats stats;
  ASSERT_OK_AND_ASSIGN(const auto hot, hot_->Query(base, 0.8, &stats));
  EXPECT_EQ(hot, *plain_->Query(base, 0.8));
  EXPECT_EQ(hot.size(), 300u);
  EXPECT_EQ(stats.hot_bands_skipped, static_cast<size_t>(SkippableBands(
                                         kLsh, 0.8, kRecallFloorProbability)));
}

}  // namespace
}  // namespace neardup
