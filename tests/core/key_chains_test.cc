#include "neardup/core/index/internal/key_chains.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <vector>

namespace neardup::index_internal {
namespace {

std::vector<uint32_t> RowsOf(const KeyChains& table, uint32_t tag) {
  std::vector<uint32_t> rows;
  table.ForEach(tag, [&](uint32_t row) { rows.push_back(row); });
  std::sort(rows.begin(), rows.end());
  return rows;
}

TEST(KeyChains, EmptyTableFindsNothing) {
  KeyChains table;
  EXPECT_TRUE(RowsOf(table, 42).empty());
  EXPECT_EQ(table.num_keys(), 0u);
}

TEST(KeyChains, ChainsRowsSharingATag) {
  KeyChains table;
  table.Insert(7, 0);
  table.Insert(7, 5);
  table.Insert(9, 3);
  EXPECT_EQ(RowsOf(table, 7), (std::vector<uint32_t>{0, 5}));
  EXPECT_EQ(RowsOf(table, 9), (std::vector<uint32_t>{3}));
  EXPECT_EQ(table.num_keys(), 2u);
  table.Remove(0);  // the chain's tail
  EXPECT_EQ(RowsOf(table, 7), (std::vector<uint32_t>{5}));
  table.Remove(5);
  EXPECT_TRUE(RowsOf(table, 7).empty());
  EXPECT_EQ(table.num_keys(), 1u);
  EXPECT_EQ(RowsOf(table, 9), (std::vector<uint32_t>{3}));
}

TEST(KeyChains, ManyRowsOnOneKey) {
  KeyChains table;
  for (uint32_t row = 0; row < 5000; ++row) table.Insert(123, row);
  EXPECT_EQ(RowsOf(table, 123).size(), 5000u);
  for (uint32_t row = 0; row < 5000; row += 2) table.Remove(row);
  const std::vector<uint32_t> rows = RowsOf(table, 123);
  ASSERT_EQ(rows.size(), 2500u);
  for (uint32_t row : rows) EXPECT_EQ(row % 2, 1u);
}

// Floods: a remove that walks deep into a chain gives it back-links.
// Whatever the order of removal, the chain keeps the rest in insertion
// order, newest first.
std::vector<uint32_t> ChainOrder(const KeyChains& table, uint32_t tag) {
  std::vector<uint32_t> rows;
  table.ForEach(tag, [&](uint32_t row) { rows.push_back(row); });
  return rows;
}

TEST(KeyChains, FloodsEmptyInEitherOrder) {
  for (const bool oldest_first : {true, false}) {
    KeyChains table;
    table.Insert(5, 100000);  // another key, ordinary
    for (uint32_t row = 0; row < 1000; ++row) table.Insert(77, row);
    for (uint32_t i = 0; i < 1000; ++i) {
      table.Remove(oldest_first ? i : 999 - i);
      if (i % 97 == 0) {
        std::vector<uint32_t> expected;
        for (uint32_t r = 999; r != ~0u; --r) {
          if (oldest_first ? r > i : r < 999 - i) expected.push_back(r);
        }
        ASSERT_EQ(ChainOrder(table, 77), expected) << i;
      }
    }
    EXPECT_TRUE(RowsOf(table, 77).empty());
    EXPECT_EQ(table.num_keys(), 1u);
    EXPECT_EQ(RowsOf(table, 5), std::vector<uint32_t>{100000});
    // Rows come back, short chains and long again.
    for (uint32_t row = 0; row < 40; ++row) table.Insert(77, row);
    EXPECT_EQ(ChainOrder(table, 77).front(), 39u);
    EXPECT_EQ(RowsOf(table, 77).size(), 40u);
  }
}

TEST(KeyChains, FloodRemovesFromTheMiddleAndReinserts) {
  KeyChains table;
  std::mt19937 rng(3);
  std::vector<uint32_t> order;  // newest first, as the chain holds them
  for (uint32_t row = 0; row < 300; ++row) {
    table.Insert(9, row);
    order.insert(order.begin(), row);
  }
  for (int step = 0; step < 2000; ++step) {
    if (!order.empty() && rng() % 2 == 0) {
      const size_t at = rng() % order.size();
      table.Remove(order[at]);
      order.erase(order.begin() + static_cast<long>(at));
    } else {
      uint32_t row = rng() % 400;
      if (std::find(order.begin(), order.end(), row) != order.end()) continue;
      table.Insert(9, row);
      order.insert(order.begin(), row);
    }
    ASSERT_EQ(ChainOrder(table, 9), order) << "step " << step;
  }
}

// Random inserts and removes against a reference multimap. A small tag
// space forces long probe runs, wrap-around and backward shifts.
class KeyChainsRandomTest : public ::testing::TestWithParam<uint32_t> {};

TEST_P(KeyChainsRandomTest, MatchesReferenceMultimap) {
  const uint32_t tag_space = GetParam();
  std::mt19937 rng(tag_space);
  KeyChains table;
  std::map<uint32_t, uint32_t> tag_of_row;  // rows currently in the table
  for (int step = 0; step < 40000; ++step) {
    const uint32_t row = rng() % 3000;
    if (auto it = tag_of_row.find(row); it != tag_of_row.end()) {
      table.Remove(row);
      tag_of_row.erase(it);
    } else {
      // Spread tags over the whole 32-bit range so homes differ.
      const uint32_t tag = (rng() % tag_space) * 0x9E3779B1u;
      table.Insert(tag, row);
      tag_of_row[row] = tag;
    }
    if (step % 997 == 0) {
      std::map<uint32_t, std::vector<uint32_t>> expected;
      for (const auto& [r, t] : tag_of_row) expected[t].push_back(r);
      ASSERT_EQ(table.num_keys(), expected.size()) << "step " << step;
      for (const auto& [t, rows] : expected) {
        ASSERT_EQ(RowsOf(table, t), rows) << "step " << step;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(TagSpaces, KeyChainsRandomTest,
                         ::testing::Values(1u, 17u, 500u, 1u << 30));

TEST(KeyChains, ReserveKeepsContents) {
  KeyChains table;
  for (uint32_t row = 0; row < 100; ++row) table.Insert(row * 2654435761u, row);
  table.Reserve(100000, 200000);
  EXPECT_GE(table.MemoryBytes(), 100000u * 5);
  for (uint32_t row = 0; row < 100; ++row) {
    EXPECT_EQ(RowsOf(table, row * 2654435761u), std::vector<uint32_t>{row});
  }
}

}  // namespace
}  // namespace neardup::index_internal
