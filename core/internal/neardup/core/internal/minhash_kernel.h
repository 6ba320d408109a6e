#ifndef NEARDUP_CORE_INTERNAL_MINHASH_KERNEL_H_
#define NEARDUP_CORE_INTERNAL_MINHASH_KERNEL_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "neardup/core/hash.h"

namespace neardup::internal {

// slots[i] = min over tokens t of (t.lo + i * t.hi) mod 2^64, i < num_perm.
// Picks the fastest kernel this CPU runs (chosen once, at first use).
void MinHashSlots(const Hash128* hashes, size_t n, int num_perm,
                  uint64_t* slots);

// The individual kernels, for tests and benchmarks.
void MinHashSlotsScalar(const Hash128* hashes, size_t n, int num_perm,
                        uint64_t* slots);
// Requires AVX2 and num_perm % 32 == 0.
void MinHashSlotsAvx2(const Hash128* hashes, size_t n, int num_perm,
                      uint64_t* slots);
bool CpuHasAvx2();
// Requires AVX-512 F and DQ and num_perm % 32 == 0.
void MinHashSlotsAvx512(const Hash128* hashes, size_t n, int num_perm,
                        uint64_t* slots);
bool CpuHasAvx512Dq();
// Name of the kernel MinHashSlots uses: "avx512", "avx2" or "scalar".
std::string_view MinHashKernelName();

}  // namespace neardup::internal

#endif  // NEARDUP_CORE_INTERNAL_MINHASH_KERNEL_H_
