#include "neardup/core/internal/dot_kernel.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <cmath>

#include "neardup/core/internal/minhash_kernel.h"  // CpuHasAvx2

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

void Int8DotManyPortable(const int8_t* query, const int8_t* rows, size_t n,
                         size_t stride, int32_t* out) {
  for (size_t r = 0; r < n; ++r) {
    const int8_t* row = rows + r * stride;
    int32_t sum = 0;
    for (size_t i = 0; i < stride; ++i) sum += int32_t{query[i]} * row[i];
    out[r] = sum;
  }
}

#if defined(__x86_64__)

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

__attribute__((target("avx2"))) void Int8DotManyAvx2(const int8_t* query,
                                                     const int8_t* rows,
                                                     size_t n, size_t stride,
                                                     int32_t* out) {
  for (size_t r = 0; r < n; ++r) {
    const int8_t* row = rows + r * stride;
    __m256i sum = _mm256_setzero_si256();
    for (size_t i = 0; i < stride; i += kInt8Lanes) {
      const __m256i q =
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(query + i));
      const __m256i x =
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + i));
      // Widened to int16, multiplied and summed in pairs into int32.
      sum = _mm256_add_epi32(
          sum,
          _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm256_castsi256_si128(q)),
                            _mm256_cvtepi8_epi16(_mm256_castsi256_si128(x))));
      sum = _mm256_add_epi32(
          sum, _mm256_madd_epi16(
                   _mm256_cvtepi8_epi16(_mm256_extracti128_si256(q, 1)),
                   _mm256_cvtepi8_epi16(_mm256_extracti128_si256(x, 1))));
    }
    alignas(32) int32_t lanes[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), sum);
    int32_t total = 0;
    for (int32_t lane : lanes) total += lane;
    out[r] = total;
  }
}

__attribute__((target("avx512f,avx512bw"))) void Int8DotManyAvx512(
    const int8_t* query, const int8_t* rows, size_t n, size_t stride,
    int32_t* out) {
  for (size_t r = 0; r < n; ++r) {
    const int8_t* row = rows + r * stride;
    __m512i sum = _mm512_setzero_si512();
    for (size_t i = 0; i < stride; i += kInt8Lanes) {
      const __m512i q = _mm512_cvtepi8_epi16(
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(query + i)));
      const __m512i x = _mm512_cvtepi8_epi16(
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + i)));
      sum = _mm512_add_epi32(sum, _mm512_madd_epi16(q, x));
    }
    // (Not _mm512_reduce_add_epi32: GCC 12 warns inside it.)
    alignas(64) int32_t lanes[16];
    _mm512_store_si512(lanes, sum);
    int32_t total = 0;
    for (int32_t lane : lanes) total += lane;
    out[r] = total;
  }
}

bool CpuHasAvx512Bw() {
  static const bool has =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  return has;
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

#else  // no x86 SIMD: the portable kernels stand in

bool CpuHasAvx512Bw() { return false; }
bool CpuHasAvx2Fma() { return false; }
bool CpuHasAvx512() { return false; }
void DotManyAvx2(const float* query, const float* rows, size_t n, size_t stride,
                 float* out) {
  DotManyPortable(query, rows, n, stride, out);
}
void DotManyAvx512(const float* query, const float* rows, size_t n,
                   size_t stride, float* out) {
  DotManyPortable(query, rows, n, stride, out);
}
void Int8DotManyAvx2(const int8_t* query, const int8_t* rows, size_t n,
                     size_t stride, int32_t* out) {
  Int8DotManyPortable(query, rows, n, stride, out);
}
void Int8DotManyAvx512(const int8_t* query, const int8_t* rows, size_t n,
                       size_t stride, int32_t* out) {
  Int8DotManyPortable(query, rows, n, stride, out);
}

#endif

void Int8DotMany(const int8_t* query, const int8_t* rows, size_t n,
                 size_t stride, int32_t* out) {
  using Kernel =
      void (*)(const int8_t*, const int8_t*, size_t, size_t, int32_t*);
  static const Kernel kernel = CpuHasAvx512Bw() ? Int8DotManyAvx512
                               : CpuHasAvx2()   ? Int8DotManyAvx2
                                                : Int8DotManyPortable;
  kernel(query, rows, n, stride, out);
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
