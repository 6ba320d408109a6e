#ifndef NEARDUP_CORE_INTERNAL_DOT_KERNEL_H_
#define NEARDUP_CORE_INTERNAL_DOT_KERNEL_H_

// Dot products of one query with many rows of floats, for exact vector
// search. Rows and the query are padded with zeros to a multiple of
// kDotLanes floats. Every kernel sums in the same order (16 lanes, lane j
// taking the elements j mod 16 with fused multiply-adds, then a fixed
// pairwise reduction), so all give the same bits: answers do not depend on
// the CPU.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace neardup::internal {

inline constexpr size_t kDotLanes = 16;

// out[r] = dot(query, rows + r * stride) over `stride` floats, r < n.
// `stride` is a multiple of kDotLanes. Picks the fastest kernel this CPU
// runs (once, at first use).
void DotMany(const float* query, const float* rows, size_t n, size_t stride,
             float* out);

// The kernels, for tests and benchmarks. Avx2 needs AVX2 and FMA; Avx512
// needs AVX-512F.
void DotManyPortable(const float* query, const float* rows, size_t n,
                     size_t stride, float* out);
void DotManyAvx2(const float* query, const float* rows, size_t n, size_t stride,
                 float* out);
void DotManyAvx512(const float* query, const float* rows, size_t n,
                   size_t stride, float* out);
bool CpuHasAvx2Fma();
bool CpuHasAvx512();

// The same over int8 codes (rows padded with zeros to a multiple of
// kInt8Lanes): out[r] = sum of query[i] * rows[r * stride + i] in int32,
// exact (|codes| <= 127 and stride <= 4096 cannot overflow), so every
// kernel gives the same numbers.
inline constexpr size_t kInt8Lanes = 32;
void Int8DotMany(const int8_t* query, const int8_t* rows, size_t n,
                 size_t stride, int32_t* out);
void Int8DotManyPortable(const int8_t* query, const int8_t* rows, size_t n,
                         size_t stride, int32_t* out);
// AVX2 (CpuHasAvx2 in minhash_kernel.h); and AVX-512BW.
void Int8DotManyAvx2(const int8_t* query, const int8_t* rows, size_t n,
                     size_t stride, int32_t* out);
void Int8DotManyAvx512(const int8_t* query, const int8_t* rows, size_t n,
                       size_t stride, int32_t* out);
bool CpuHasAvx512Bw();
// "avx512", "avx2" or "portable".
std::string_view DotKernelName();

}  // namespace neardup::internal

#endif  // NEARDUP_CORE_INTERNAL_DOT_KERNEL_H_
