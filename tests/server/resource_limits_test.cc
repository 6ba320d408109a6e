// Parsing of cgroup limits and the extraction sizing derived from them.

#include "neardup/server/internal/resource_limits.h"

#include <gtest/gtest.h>

namespace neardup::server {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

TEST(ResourceLimits, CgroupV2CpuMax) {
  EXPECT_EQ(ParseCpuMax("max 100000\n"), std::nullopt);
  EXPECT_DOUBLE_EQ(*ParseCpuMax("150000 100000\n"), 1.5);
  EXPECT_DOUBLE_EQ(*ParseCpuMax("200000 100000"), 2.0);
  EXPECT_EQ(ParseCpuMax(""), std::nullopt);
  EXPECT_EQ(ParseCpuMax("garbage"), std::nullopt);
}

TEST(ResourceLimits, CgroupV1CfsQuota) {
  EXPECT_EQ(ParseCfsQuota("-1\n", "100000\n"), std::nullopt);
  EXPECT_DOUBLE_EQ(*ParseCfsQuota("50000\n", "100000\n"), 0.5);
  EXPECT_EQ(ParseCfsQuota("", ""), std::nullopt);
}

TEST(ResourceLimits, MemoryLimit) {
  EXPECT_EQ(ParseMemoryLimit("max\n"), std::nullopt);
  EXPECT_EQ(*ParseMemoryLimit("2147483648\n"), size_t{2} << 30);
  // cgroup v1's "no limit".
  EXPECT_EQ(ParseMemoryLimit("9223372036854771712\n"), std::nullopt);
}

TEST(ResourceLimits, DetectGivesSomething) {
  const ResourceLimits limits = DetectResourceLimits();
  EXPECT_GT(limits.cpus, 0);
  EXPECT_GT(limits.memory_bytes, 0u);
}

TEST(ResourceLimits, ExtractionFollowsThePodNotTheNode) {
  // A pod of 1.5 cores and 2 GiB on any node: two workers, 512 MiB in all.
  ResourceLimits pod{.cpus = 1.5, .memory_bytes = size_t{2} << 30};
  ExtractSizing sizing = SizeExtraction(pod, 0, 0);
  EXPECT_EQ(sizing.workers, 2);
  EXPECT_EQ(sizing.memory_bytes, 512 * kMiB);
  // Little memory: fewer workers, each with at least 128 MiB.
  pod = {.cpus = 8, .memory_bytes = 1024 * kMiB};
  sizing = SizeExtraction(pod, 0, 0);
  EXPECT_EQ(sizing.memory_bytes, 256 * kMiB);
  EXPECT_EQ(sizing.workers, 2);
  // A big machine: at most 8 workers and 2 GiB.
  pod = {.cpus = 64, .memory_bytes = size_t{256} << 30};
  sizing = SizeExtraction(pod, 0, 0);
  EXPECT_EQ(sizing.workers, 8);
  EXPECT_EQ(sizing.memory_bytes, 2048 * kMiB);
  // Flags win.
  sizing = SizeExtraction(pod, 3, 900 * kMiB);
  EXPECT_EQ(sizing.workers, 3);
  EXPECT_EQ(sizing.memory_bytes, 900 * kMiB);
}

}  // namespace
}  // namespace neardup::server
