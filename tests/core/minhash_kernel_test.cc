#include "neardup/core/internal/minhash_kernel.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace neardup::internal {
namespace {

std::vector<Hash128> RandomHashes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Hash128> out(n);
  for (Hash128& h : out) h = {rng(), rng()};
  return out;
}

// Straight from the definition, with an explicit multiply.
std::vector<uint64_t> Reference(const std::vector<Hash128>& hashes, int h) {
  std::vector<uint64_t> slots(h, ~uint64_t{0});
  for (const Hash128& t : hashes) {
    for (int i = 0; i < h; ++i) {
      const uint64_t v = t.lo + static_cast<uint64_t>(i) * t.hi;
      if (v < slots[i]) slots[i] = v;
    }
  }
  return slots;
}

TEST(MinHashKernel, ScalarMatchesDefinition) {
  for (int h : {64, 128, 256}) {
    for (size_t n : {1u, 2u, 7u, 500u}) {
      const auto hashes = RandomHashes(n, n * 31 + h);
      std::vector<uint64_t> slots(h);
      MinHashSlotsScalar(hashes.data(), hashes.size(), h, slots.data());
      EXPECT_EQ(slots, Reference(hashes, h)) << "h=" << h << " n=" << n;
    }
  }
}

TEST(MinHashKernel, DispatchedMatchesDefinitionIncludingSignBoundaries) {
  // Values straddling 2^63 exercise the sign-flip trick of the AVX2 kernel.
  std::vector<Hash128> hashes = RandomHashes(300, 99);
  hashes.push_back({0x7fffffffffffffffull, 1});
  hashes.push_back({0x8000000000000000ull, 0});
  hashes.push_back({0xffffffffffffffffull, 0xffffffffffffffffull});
  hashes.push_back({0, 0x8000000000000000ull});
  for (int h : {64, 128, 256}) {
    std::vector<uint64_t> slots(h);
    MinHashSlots(hashes.data(), hashes.size(), h, slots.data());
    EXPECT_EQ(slots, Reference(hashes, h)) << "kernel " << MinHashKernelName();
  }
}

TEST(MinHashKernel, Avx2MatchesScalarWhenAvailable) {
  if (!CpuHasAvx2()) {
    // Nothing to compare on this CPU; the dispatcher uses the scalar kernel,
    // which the test above covers.
    EXPECT_EQ(MinHashKernelName(), "scalar");
    return;
  }
  for (size_t n : {1u, 3u, 1000u}) {
    const auto hashes = RandomHashes(n, n);
    std::vector<uint64_t> a(128), b(128);
    MinHashSlotsAvx2(hashes.data(), n, 128, a.data());
    MinHashSlotsScalar(hashes.data(), n, 128, b.data());
    EXPECT_EQ(a, b);
  }
}

TEST(MinHashKernel, Avx512MatchesScalarWhenAvailable) {
  if (!CpuHasAvx512Dq()) {
    EXPECT_NE(MinHashKernelName(), "avx512");
    GTEST_SKIP() << "this CPU has no AVX-512 F+DQ";
  }
  // 128 takes one 16-register pass; 96, 160 and 288 add 32-slot passes.
  for (int h : {32, 96, 128, 160, 288}) {
    for (size_t n : {0u, 1u, 3u, 1000u}) {
      auto hashes = RandomHashes(n, n + h);
      if (n > 0) hashes[0] = {0xffffffffffffffffull, 0x8000000000000000ull};
      std::vector<uint64_t> a(h), b(h);
      MinHashSlotsAvx512(hashes.data(), n, h, a.data());
      MinHashSlotsScalar(hashes.data(), n, h, b.data());
      EXPECT_EQ(a, b) << h << " slots, " << n << " tokens";
    }
  }
}

TEST(MinHashKernel, CapNarrowsTheDispatchAndKeepsTheSlots) {
  const auto hashes = RandomHashes(700, 5);
  std::vector<uint64_t> best(128), capped(128);
  MinHashSlots(hashes.data(), hashes.size(), 128, best.data());
  CapMinHashKernel(MinHashKernelCap::kAvx2);
  EXPECT_EQ(MinHashKernelName(), CpuHasAvx2() ? "avx2" : "scalar");
  MinHashSlots(hashes.data(), hashes.size(), 128, capped.data());
  EXPECT_EQ(capped, best);
  CapMinHashKernel(MinHashKernelCap::kScalar);
  EXPECT_EQ(MinHashKernelName(), "scalar");
  MinHashSlots(hashes.data(), hashes.size(), 128, capped.data());
  EXPECT_EQ(capped, best);
  CapMinHashKernel(MinHashKernelCap::kNone);
  EXPECT_EQ(MinHashKernelName(), CpuHasAvx512Dq() ? "avx512"
                                 : CpuHasAvx2()   ? "avx2"
                                                  : "scalar");
}

}  // namespace
}  // namespace neardup::internal
