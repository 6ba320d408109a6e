// PodVector against std::vector: the same contents through growth from
// malloc into a mapping, growth of a mapping (mremap), copies and moves.

#include "neardup/core/index/internal/pod_vector.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace neardup::index_internal {
namespace {

template <typename T>
std::vector<T> Contents(const PodVector<T>& v) {
  return std::vector<T>(v.begin(), v.end());
}

TEST(PodVectorTest, EmptyHasNoStorage) {
  PodVector<uint32_t> v;
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v.size(), 0u);
  EXPECT_EQ(v.capacity(), 0u);
  EXPECT_EQ(v.data(), nullptr);
}

TEST(PodVectorTest, GrowsLikeStdVectorFromSmallToMapped) {
  PodVector<uint32_t> pod;
  std::vector<uint32_t> expected;
  // Steps of an eighth, as the index grows: malloc below 64 KiB, a mapping
  // (grown by mremap) above, up to 4 MiB.
  size_t size = 16;
  uint32_t value = 1;
  while (size < (size_t{1} << 20)) {
    const size_t next = size + size / 8 + 16;
    pod.resize(next, 0xFFFFFFFFu);
    expected.resize(next, 0xFFFFFFFFu);
    // Overwrite every other new element, so kept and filled values mix.
    for (size_t i = size; i < next; i += 2) {
      pod[i] = value;
      expected[i] = value;
      ++value;
    }
    ASSERT_GE(pod.capacity(), pod.size());
    size = next;
  }
  EXPECT_EQ(pod.size(), expected.size());
  EXPECT_EQ(Contents(pod), expected);
}

TEST(PodVectorTest, ReserveKeepsContentsAndSize) {
  PodVector<uint64_t> v;
  v.resize(100, 7);
  v.reserve(1 << 16);  // into a mapping
  EXPECT_EQ(v.size(), 100u);
  EXPECT_GE(v.capacity(), size_t{1} << 16);
  EXPECT_EQ(Contents(v), std::vector<uint64_t>(100, 7));
  v.reserve(10);  // never shrinks
  EXPECT_GE(v.capacity(), size_t{1} << 16);
}

TEST(PodVectorTest, AssignAndShrinkingResize) {
  PodVector<uint8_t> v;
  v.assign(200000, 0x80);
  EXPECT_EQ(Contents(v), std::vector<uint8_t>(200000, 0x80));
  v.resize(10);
  EXPECT_EQ(Contents(v), std::vector<uint8_t>(10, 0x80));
  v.resize(20, 3);  // the re-grown part is the fill, not the old bytes
  std::vector<uint8_t> expected(20, 3);
  for (size_t i = 0; i < 10; ++i) expected[i] = 0x80;
  EXPECT_EQ(Contents(v), expected);
  v.assign(5, 9);
  EXPECT_EQ(Contents(v), std::vector<uint8_t>(5, 9));
}

TEST(PodVectorTest, CopiesAreDeepAndMovesEmptyTheSource) {
  for (const size_t n : {size_t{100}, size_t{100000}}) {  // malloc, mapped
    PodVector<uint32_t> a;
    a.resize(n, 5);
    a[n / 2] = 9;
    PodVector<uint32_t> copy = a;
    copy[0] = 1;
    EXPECT_EQ(a[0], 5u);
    EXPECT_EQ(copy[n / 2], 9u);
    PodVector<uint32_t> moved = std::move(a);
    EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): moved-from
                             // state is specified
    EXPECT_EQ(a.capacity(), 0u);
    EXPECT_EQ(moved.size(), n);
    EXPECT_EQ(moved[n / 2], 9u);
    copy = moved;
    EXPECT_EQ(Contents(copy), Contents(moved));
    copy = std::move(moved);
    EXPECT_EQ(copy[n / 2], 9u);
  }
}

TEST(PodVectorTest, VectorOfPodVectorsSurvivesReallocation) {
  std::vector<PodVector<uint32_t>> tables;
  for (uint32_t i = 0; i < 40; ++i) {
    tables.emplace_back();
    tables.back().resize(1000 + i * 1000, i);
  }
  for (uint32_t i = 0; i < 40; ++i) {
    ASSERT_EQ(tables[i].size(), 1000 + i * 1000);
    EXPECT_EQ(tables[i][tables[i].size() - 1], i);
  }
}

}  // namespace
}  // namespace neardup::index_internal
