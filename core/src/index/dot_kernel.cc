#include "neardup/core/internal/dot_kernel.h"

#include <immintrin.h>

#include <cmath>

namespace neardup::internal {
namespace {

// The fixed reduction of 16 lane sums: halves added pairwise, 16 -> 1.
float Reduce16(float lanes[kDotLanes]) {
  for (size_t width = kDotLanes / 2; width >= 1; width /= 2) {
    for (size_t i = 0; i < width; ++i) lanes[i] += lanes[i + width];
  }
  return lanes[0];
}

}  // namespace

void DotManyPortable(const float* query, const float* rows, size_t n,
                     size_t stride, float* out) {
  for (size_t r = 0; r < n; ++r) {
    const float* row = rows + r * stride;
    float lanes[kDotLanes] = {};
    for (size_t i = 0; i < stride; i += kDotLanes) {
      for (size_t j = 0; j < kDotLanes; ++j) {
        lanes[j] = std::fma(query[i + j], row[i + j], lanes[j]);
      }
    }
    out[r] = Reduce16(lanes);
  }
}

__attribute__((target("avx2,fma"))) void DotManyAvx2(const float* query,
                                                     const float* rows,
                                                     size_t n, size_t stride,
                                                     float* out) {
  for (size_t r = 0; r < n; ++r) {
    const float* row = rows + r * stride;
    __m256 low = _mm256_setzero_ps();   // lanes 0-7
    __m256 high = _mm256_setzero_ps();  // lanes 8-15
    for (size_t i = 0; i < stride; i += kDotLanes) {
      low = _mm256_fmadd_ps(_mm256_loadu_ps(query + i),
                            _mm256_loadu_ps(row + i), low);
      high = _mm256_fmadd_ps(_mm256_loadu_ps(query + i + 8),
                             _mm256_loadu_ps(row + i + 8), high);
    }
    alignas(32) float lanes[kDotLanes];
    _mm256_store_ps(lanes, low);
    _mm256_store_ps(lanes + 8, high);
    out[r] = Reduce16(lanes);
  }
}

__attribute__((target("avx512f"))) void DotManyAvx512(const float* query,
                                                      const float* rows,
                                                      size_t n, size_t stride,
                                                      float* out) {
  for (size_t r = 0; r < n; ++r) {
    const float* row = rows + r * stride;
    __m512 sum = _mm512_setzero_ps();
    for (size_t i = 0; i < stride; i += kDotLanes) {
      sum = _mm512_fmadd_ps(_mm512_loadu_ps(query + i),
                            _mm512_loadu_ps(row + i), sum);
    }
    alignas(64) float lanes[kDotLanes];
    _mm512_store_ps(lanes, sum);
    out[r] = Reduce16(lanes);
  }
}

bool CpuHasAvx2Fma() {
  static const bool has =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

bool CpuHasAvx512() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}

std::string_view DotKernelName() {
  return CpuHasAvx512() ? "avx512" : CpuHasAvx2Fma() ? "avx2" : "portable";
}

void DotMany(const float* query, const float* rows, size_t n, size_t stride,
             float* out) {
  using Kernel = void (*)(const float*, const float*, size_t, size_t, float*);
  static const Kernel kernel = CpuHasAvx512()    ? DotManyAvx512
                               : CpuHasAvx2Fma() ? DotManyAvx2
                                                 : DotManyPortable;
  kernel(query, rows, n, stride, out);
}

}  // namespace neardup::internal
