#include "neardup/core/internal/dot_kernel.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "neardup/core/internal/minhash_kernel.h"  // CpuHasAvx2

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

// The int8 kernels are exact integer sums: every kernel equals a plain
// loop, extreme codes included.
TEST(DotKernel, Int8KernelsAreExact) {
  std::mt19937 rng(19);
  std::uniform_int_distribution<int> code(-127, 127);
  for (size_t stride : {size_t{32}, size_t{64}, size_t{416}, size_t{4096}}) {
    constexpr size_t kRows = 29;
    std::vector<int8_t> query(stride), rows(kRows * stride);
    for (int8_t& x : query) x = static_cast<int8_t>(code(rng));
    for (int8_t& x : rows) x = static_cast<int8_t>(code(rng));
    // The largest sum there can be: every product 127 * 127.
    std::fill(rows.begin(), rows.begin() + stride, int8_t{127});
    std::fill(query.begin(), query.begin() + stride / 2, int8_t{127});
    std::vector<int32_t> expected(kRows), got(kRows);
    for (size_t r = 0; r < kRows; ++r) {
      int64_t sum = 0;
      for (size_t i = 0; i < stride; ++i)
        sum += query[i] * rows[r * stride + i];
      expected[r] = static_cast<int32_t>(sum);
    }
    Int8DotManyPortable(query.data(), rows.data(), kRows, stride, got.data());
    EXPECT_EQ(got, expected) << "portable stride " << stride;
    if (CpuHasAvx2()) {
      Int8DotManyAvx2(query.data(), rows.data(), kRows, stride, got.data());
      EXPECT_EQ(got, expected) << "avx2 stride " << stride;
    }
    if (CpuHasAvx512Bw()) {
      Int8DotManyAvx512(query.data(), rows.data(), kRows, stride, got.data());
      EXPECT_EQ(got, expected) << "avx512 stride " << stride;
    }
    Int8DotMany(query.data(), rows.data(), kRows, stride, got.data());
    EXPECT_EQ(got, expected) << "dispatched stride " << stride;
  }
}

}  // namespace
}  // namespace neardup::internal
