#include "neardup/core/index/internal/twin_classes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

namespace neardup::index_internal {
namespace {

using ::testing::ElementsAre;

constexpr uint32_t kNone = 0xFFFFFFFFu;

std::vector<uint32_t> Members(const TwinClasses& twins, uint32_t rep,
                              size_t limit = 0) {
  std::vector<uint32_t> rows;
  twins.ForEachMember(rep, limit, [&](uint32_t row) { rows.push_back(row); });
  return rows;
}

TEST(TwinClasses, RowsOutsideAClassStandForThemselves) {
  TwinClasses twins;
  EXPECT_TRUE(twins.empty());
  EXPECT_EQ(twins.KeyOf(7), nullptr);
  EXPECT_EQ(twins.SizeOf(7), 1u);
  EXPECT_THAT(Members(twins, 7), ElementsAre(7));
  const TwinClasses::Removal removal = twins.Remove(7);
  EXPECT_FALSE(removal.was_member);
  EXPECT_EQ(removal.new_representative, kNone);
}

TEST(TwinClasses, JoinListsMembersInAscendingOrder) {
  TwinClasses twins;
  twins.Join(10, 42, 3);
  twins.Join(10, 99, 25);  // the class keeps the key it was made with
  twins.Join(10, 99, 1);
  ASSERT_NE(twins.KeyOf(10), nullptr);
  EXPECT_EQ(*twins.KeyOf(10), 42u);
  EXPECT_EQ(*twins.KeyOf(3), 42u);
  EXPECT_EQ(twins.SizeOf(10), 4u);
  EXPECT_THAT(Members(twins, 10), ElementsAre(1, 3, 10, 25));
  EXPECT_THAT(Members(twins, 10, 2), ElementsAre(1, 3));
}

TEST(TwinClasses, RemovingTheRepresentativeHandsItOn) {
  TwinClasses twins;
  twins.Join(10, 1, 20);
  twins.Join(10, 1, 30);
  TwinClasses::Removal removal = twins.Remove(20);  // a plain member
  EXPECT_TRUE(removal.was_member);
  EXPECT_EQ(removal.new_representative, kNone);
  EXPECT_THAT(Members(twins, 10), ElementsAre(10, 30));

  removal = twins.Remove(10);  // the representative: 30 takes over
  EXPECT_TRUE(removal.was_member);
  EXPECT_EQ(removal.new_representative, 30u);
  // A class of one is an ordinary row again, and the maps are released.
  EXPECT_TRUE(twins.empty());
  EXPECT_EQ(twins.SizeOf(30), 1u);
  EXPECT_EQ(twins.MemoryBytes(), 0u);
  EXPECT_FALSE(twins.Remove(30).was_member);
}

TEST(TwinClasses, ClassesAreIndependentAndIdsAreReused) {
  TwinClasses twins;
  for (uint32_t round = 0; round < 3; ++round) {
    twins.Join(100, 1, 101);
    twins.Join(200, 2, 201);
    twins.Join(200, 2, 202);
    EXPECT_THAT(Members(twins, 100), ElementsAre(100, 101));
    EXPECT_THAT(Members(twins, 200), ElementsAre(200, 201, 202));
    EXPECT_EQ(*twins.KeyOf(200), 2u);
    twins.Remove(101);
    EXPECT_EQ(twins.SizeOf(100), 1u);
    EXPECT_EQ(twins.SizeOf(200), 3u);
    twins.Remove(201);
    twins.Remove(202);
    EXPECT_TRUE(twins.empty());
  }
}

}  // namespace
}  // namespace neardup::index_internal
