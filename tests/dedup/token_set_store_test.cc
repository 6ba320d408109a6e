#include "neardup/dedup/internal/token_set_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "neardup/dedup/internal/hash_chunk.h"

namespace neardup::dedup {
namespace {

std::vector<uint64_t> RandomSet(std::mt19937_64& rng, size_t n) {
  std::vector<uint64_t> set(n);
  for (uint64_t& v : set) v = rng() % 5000;  // repeats on purpose
  return set;
}

std::vector<uint64_t> SortedDistinct(std::vector<uint64_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

std::vector<uint64_t> AsVector(std::span<const uint64_t> s) {
  return {s.begin(), s.end()};
}

TEST(HashChunkWriter, CopiesIntoSharedChunksThatNeverMove) {
  HashChunkWriter writer;
  std::mt19937_64 rng(1);
  std::vector<std::vector<uint64_t>> sets;
  std::vector<std::span<uint64_t>> copies;
  std::vector<std::shared_ptr<HashChunk>> owners;
  // 3000 sets of 1000 hashes: 24 MB, several chunks.
  for (int i = 0; i < 3000; ++i) {
    sets.push_back(RandomSet(rng, 1000));
    std::shared_ptr<HashChunk> owner;
    copies.push_back(writer.Append(sets.back(), &owner));
    ASSERT_NE(owner, nullptr);
    owners.push_back(owner);
  }
  EXPECT_NE(owners.front(), owners.back());
  for (size_t i = 0; i < sets.size(); ++i) {
    ASSERT_EQ(AsVector(copies[i]), sets[i]) << i;
  }
  std::shared_ptr<HashChunk> none;
  EXPECT_TRUE(writer.Append({}, &none).empty());
  EXPECT_EQ(none, nullptr);
}

TEST(HashChunkWriter, OversizedSetGetsAChunkOfItsOwn) {
  HashChunkWriter writer;
  std::vector<uint64_t> huge(3'000'000, 7);  // 24 MB, past the first chunk
  std::shared_ptr<HashChunk> owner;
  EXPECT_EQ(writer.Append(huge, &owner).size(), huge.size());
  EXPECT_GE(owner->capacity(), huge.size());
}

TEST(TokenSetStore, SortsOnFirstGetAndSharesChunks) {
  HashChunkWriter writer;
  TokenSetStore store;
  std::mt19937_64 rng(2);
  std::vector<std::vector<uint64_t>> sets;
  for (uint32_t doc = 0; doc < 100; ++doc) {
    sets.push_back(RandomSet(rng, 300));
    std::shared_ptr<HashChunk> owner;
    const std::span<uint64_t> copy = writer.Append(sets.back(), &owner);
    store.Add(doc, copy, /*sorted=*/false, owner);
  }
  EXPECT_EQ(store.chunks_held(), 1u);  // shared, held once
  for (uint32_t doc = 0; doc < 100; ++doc) {
    EXPECT_EQ(AsVector(store.GetSorted(doc)), SortedDistinct(sets[doc]));
    EXPECT_EQ(AsVector(store.GetSorted(doc)), SortedDistinct(sets[doc]));
  }
  EXPECT_TRUE(store.GetSorted(100).empty());  // never kept
}

TEST(TokenSetStore, AlreadySortedSetsAndEmptySets) {
  HashChunkWriter writer;
  TokenSetStore store;
  const std::vector<uint64_t> sorted = {1, 5, 9};
  std::shared_ptr<HashChunk> owner;
  store.Add(0, writer.Append(sorted, &owner), /*sorted=*/true, owner);
  std::shared_ptr<HashChunk> none;
  store.Add(1, writer.Append({}, &none), /*sorted=*/false, none);
  EXPECT_EQ(AsVector(store.GetSorted(0)), sorted);
  EXPECT_TRUE(store.GetSorted(1).empty());
}

// Duplicates' hashes share chunks with kept ones. When they are most of
// what the store holds, it copies the kept sets out and lets go.
TEST(TokenSetStore, CompactsWhenDuplicatesFillTheChunks) {
  HashChunkWriter writer;
  TokenSetStore store(/*compact_slack_bytes=*/1 << 20);
  std::mt19937_64 rng(3);
  std::vector<std::vector<uint64_t>> kept;
  for (uint32_t doc = 0; doc < 20000; ++doc) {
    std::vector<uint64_t> set = RandomSet(rng, 200);
    std::shared_ptr<HashChunk> owner;
    const std::span<uint64_t> copy = writer.Append(set, &owner);
    if (doc % 10 != 0) continue;  // a duplicate: never added
    store.Add(doc, copy, /*sorted=*/false, owner);
    kept.push_back(std::move(set));
    if (doc % 40 == 0) store.GetSorted(doc);  // some sorted before moving
  }
  // 2000 kept sets of 200 hashes = 3.2 MB; all 20000 written = 32 MB.
  const size_t kept_bytes = kept.size() * 200 * sizeof(uint64_t);
  EXPECT_GT(store.compactions(), 0);
  EXPECT_LE(store.MemoryBytes(), 2 * kept_bytes + (size_t{1} << 20) +
                                     (size_t{32} << 20) /* one chunk */);
  for (size_t i = 0; i < kept.size(); ++i) {
    ASSERT_EQ(AsVector(store.GetSorted(static_cast<uint32_t>(i * 10))),
              SortedDistinct(kept[i]))
        << i;
  }
}

// Chunks a worker still fills cannot be freed: they must not count as
// waste, or every chunk the store takes up again would trigger another
// compaction that copies all kept sets (9 writers, as with 4 threads).
TEST(TokenSetStore, CompactionCopiesLessThanItFrees) {
  std::vector<HashChunkWriter> writers(9);
  TokenSetStore store(/*compact_slack_bytes=*/1 << 20);
  std::mt19937_64 rng(4);
  size_t written = 0;
  std::vector<std::pair<uint32_t, std::vector<uint64_t>>> kept;
  for (uint32_t doc = 0; doc < 36000; ++doc) {
    std::vector<uint64_t> set = RandomSet(rng, 200);
    std::shared_ptr<HashChunk> owner;
    const std::span<uint64_t> copy =
        writers[(doc / 100) % writers.size()].Append(set, &owner);
    written += copy.size_bytes();
    if (doc % 3 != 0) continue;  // two in three are duplicates
    store.Add(doc, copy, /*sorted=*/false, owner);
    // Some sets sorted (and shrunk) before they are moved.
    if (doc % 4 == 0) store.GetSorted(doc);
    kept.emplace_back(doc, std::move(set));
  }
  EXPECT_GT(store.compactions(), 0);
  EXPECT_LT(store.bytes_copied(), written) << store.compactions();
  for (const auto& [doc, set] : kept) {
    ASSERT_EQ(AsVector(store.GetSorted(doc)), SortedDistinct(set)) << doc;
  }
}

}  // namespace
}  // namespace neardup::dedup
