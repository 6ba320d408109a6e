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

// The widest kernel MinHashSlots may pick, process-wide: benchmarks time the
// whole fingerprint on a narrower kernel than the CPU's best (an AVX-512
// machine measuring what an AVX2-only one does). Every kernel gives the
// same slots, so this changes speed only.
enum class MinHashKernelCap { kNone, kAvx2, kScalar };
void CapMinHashKernel(MinHashKernelCap cap);

}  // namespace neardup::internal

#endif  // NEARDUP_CORE_INTERNAL_MINHASH_KERNEL_H_
