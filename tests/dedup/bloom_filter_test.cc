#include "neardup/dedup/internal/bloom_filter.h"

#include <gtest/gtest.h>

namespace neardup::dedup {
namespace {

TEST(BloomFilter, NoFalseNegativesAndFalsePositivesNearTarget) {
  constexpr uint64_t kKeys = 20000;
  BloomFilter filter(kKeys, 0.01);
  for (uint64_t k = 0; k < kKeys; ++k) filter.Insert(k * 0x9E3779B97F4A7C15ULL);
  for (uint64_t k = 0; k < kKeys; ++k) {
    ASSERT_TRUE(filter.MayContain(k * 0x9E3779B97F4A7C15ULL));
  }
  int false_positives = 0;
  for (uint64_t k = 0; k < 100000; ++k) {
    false_positives += filter.MayContain(~k * 0xC2B2AE3D27D4EB4FULL);
  }
  EXPECT_LT(false_positives, 2000);  // target 1% of 100000
  // -ln(0.01) / ln(2)^2 = 9.6 bits per key.
  EXPECT_NEAR(static_cast<double>(filter.num_bits()) / kKeys, 9.6, 0.1);
  EXPECT_EQ(filter.num_probes(), 7);
}

}  // namespace
}  // namespace neardup::dedup
