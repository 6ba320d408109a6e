#include "neardup/core/internal/dot_kernel.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

namespace neardup::internal {
namespace {

// Every kernel this CPU runs gives the portable kernel's bits, for padded
// widths of one to many lane blocks; the sum is the dot product.
TEST(DotKernel, EveryKernelGivesThePortableBits) {
  std::mt19937 rng(17);
  std::normal_distribution<float> normal;
  for (size_t stride : {size_t{16}, size_t{32}, size_t{48}, size_t{384},
                        size_t{400}, size_t{4096}}) {
    constexpr size_t kRows = 37;
    std::vector<float> query(stride), rows(kRows * stride);
    for (float& x : query) x = normal(rng);
    for (float& x : rows) x = normal(rng);
    std::vector<float> portable(kRows), other(kRows);
    DotManyPortable(query.data(), rows.data(), kRows, stride, portable.data());
    for (size_t r = 0; r < kRows; ++r) {
      double expected = 0;
      for (size_t i = 0; i < stride; ++i) {
        expected += double{query[i]} * rows[r * stride + i];
      }
      EXPECT_NEAR(portable[r], expected, 1e-3 * std::sqrt(double(stride)));
    }
    auto same_bits = [&](const char* name) {
      EXPECT_EQ(
          std::memcmp(portable.data(), other.data(), kRows * sizeof(float)), 0)
          << name << " stride " << stride;
    };
    if (CpuHasAvx2Fma()) {
      DotManyAvx2(query.data(), rows.data(), kRows, stride, other.data());
      same_bits("avx2");
    }
    if (CpuHasAvx512()) {
      DotManyAvx512(query.data(), rows.data(), kRows, stride, other.data());
      same_bits("avx512");
    }
    DotMany(query.data(), rows.data(), kRows, stride, other.data());
    same_bits("dispatched");
  }
  std::printf("dot kernel in use: %s\n", std::string(DotKernelName()).c_str());
}

}  // namespace
}  // namespace neardup::internal
