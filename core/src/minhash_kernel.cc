#include "neardup/core/internal/minhash_kernel.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <limits>
#include <memory>

#include "neardup/base/scratch.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace neardup::internal {

void MinHashSlotsScalar(const Hash128* hashes, size_t n, int num_perm,
                        uint64_t* slots) {
  for (int i = 0; i < num_perm; ++i) {
    slots[i] = std::numeric_limits<uint64_t>::max();
  }
  for (size_t t = 0; t < n; ++t) {
    uint64_t v = hashes[t].lo;  // running add: v = lo + i * hi
    const uint64_t hi = hashes[t].hi;
    for (int i = 0; i < num_perm; ++i) {
      slots[i] = v < slots[i] ? v : slots[i];
      v += hi;
    }
  }
}

#if defined(__x86_64__)

bool CpuHasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

namespace {

// One pass over all tokens for 32 consecutive slots held in 8 registers.
// AVX2 has no unsigned 64-bit min, so values live in a sign-flipped domain
// where signed compare orders them: (x + y) ^ 2^63 == (x ^ 2^63) + y.
// `carry[t]` holds token t's values for the first 4 slots of this block; the
// pass leaves there the values for the next block, so later passes skip the
// scalar set-up.
__attribute__((target("avx2"))) void Avx2Block32(const Hash128* hashes,
                                                 size_t n, __m256i* carry,
                                                 uint64_t* out) {
  constexpr int kVecs = 8;
  const __m256i sign = _mm256_set1_epi64x(std::numeric_limits<int64_t>::min());
  __m256i acc[kVecs];
  for (int b = 0; b < kVecs; ++b) {
    acc[b] = _mm256_set1_epi64x(std::numeric_limits<int64_t>::max());
  }
  for (size_t t = 0; t < n; ++t) {
    __m256i v = _mm256_load_si256(carry + t);
    const __m256i step =
        _mm256_set1_epi64x(static_cast<int64_t>(4 * hashes[t].hi));
    for (int b = 0; b < kVecs; ++b) {
      const __m256i gt = _mm256_cmpgt_epi64(acc[b], v);
      acc[b] = _mm256_blendv_epi8(acc[b], v, gt);
      v = _mm256_add_epi64(v, step);
    }
    _mm256_store_si256(carry + t, v);
  }
  for (int b = 0; b < kVecs; ++b) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 4 * b),
                        _mm256_xor_si256(acc[b], sign));
  }
}

__attribute__((target("avx2"))) void Avx2InitCarry(const Hash128* hashes,
                                                   size_t n, __m256i* carry) {
  for (size_t t = 0; t < n; ++t) {
    const uint64_t hi = hashes[t].hi;
    const uint64_t base = hashes[t].lo ^ 0x8000000000000000ull;
    carry[t] = _mm256_set_epi64x(static_cast<int64_t>(base + 3 * hi),
                                 static_cast<int64_t>(base + 2 * hi),
                                 static_cast<int64_t>(base + hi),
                                 static_cast<int64_t>(base));
  }
}

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};

}  // namespace

void MinHashSlotsAvx2(const Hash128* hashes, size_t n, int num_perm,
                      uint64_t* slots) {
  // Per-thread scratch of 32 bytes per token, grown as needed and given
  // back after a document that took it past the budget (scratch.h).
  thread_local std::unique_ptr<void, AlignedFree> carry;
  thread_local size_t capacity = 0;
  if (capacity * sizeof(__m256i) > kScratchKeepBytes && n * 2 < capacity) {
    carry.reset();
    capacity = 0;
  }
  if (n > capacity) {
    capacity = std::max(n, 2 * capacity);
    carry.reset((std::aligned_alloc(32, capacity * sizeof(__m256i))));
  }
  __m256i* const carry_lanes = static_cast<__m256i*>(carry.get());
  Avx2InitCarry(hashes, n, carry_lanes);
  for (int first = 0; first < num_perm; first += 32) {
    Avx2Block32(hashes, n, carry_lanes, slots + first);
  }
}

bool CpuHasAvx512Dq() {
  static const bool has =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
  return has;
}

namespace {

// kVecs * 8 consecutive slots from `first`, in one pass over the tokens.
// AVX-512 has an unsigned 64-bit min, so no sign trick and no blend: with
// 16 accumulators a 128-slot signature takes a single pass, two operations
// per 8 slots per token (AVX2 needs four passes of four per 4 slots).
template <int kVecs>
__attribute__((target("avx512f,avx512dq"))) void Avx512Block(
    const Hash128* hashes, size_t n, int first, uint64_t* out) {
  const __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
  __m512i acc[kVecs];
  for (int b = 0; b < kVecs; ++b) acc[b] = _mm512_set1_epi64(-1);
  for (size_t t = 0; t < n; ++t) {
    const uint64_t hi = hashes[t].hi;
    const __m512i hi_lanes = _mm512_set1_epi64(static_cast<int64_t>(hi));
    // Slot first + b * 8 + j holds lo + (first + b * 8 + j) * hi (mod 2^64).
    __m512i v = _mm512_add_epi64(
        _mm512_set1_epi64(static_cast<int64_t>(hashes[t].lo + first * hi)),
        _mm512_mullo_epi64(hi_lanes, lane));
    const __m512i step = _mm512_set1_epi64(static_cast<int64_t>(hi << 3));
    for (int b = 0; b < kVecs; ++b) {
      // The all-lanes masked form: GCC 12 warns inside the unmasked one.
      acc[b] = _mm512_mask_min_epu64(acc[b], 0xff, acc[b], v);
      v = _mm512_add_epi64(v, step);
    }
  }
  for (int b = 0; b < kVecs; ++b) {
    _mm512_storeu_si512(out + 8 * b, acc[b]);
  }
}

}  // namespace

void MinHashSlotsAvx512(const Hash128* hashes, size_t n, int num_perm,
                        uint64_t* slots) {
  int first = 0;
  for (; first + 128 <= num_perm; first += 128) {
    Avx512Block<16>(hashes, n, first, slots + first);
  }
  for (; first < num_perm; first += 32) {
    Avx512Block<4>(hashes, n, first, slots + first);
  }
}

#else

bool CpuHasAvx2() { return false; }
bool CpuHasAvx512Dq() { return false; }
void MinHashSlotsAvx2(const Hash128* hashes, size_t n, int num_perm,
                      uint64_t* slots) {
  MinHashSlotsScalar(hashes, n, num_perm, slots);
}
void MinHashSlotsAvx512(const Hash128* hashes, size_t n, int num_perm,
                        uint64_t* slots) {
  MinHashSlotsScalar(hashes, n, num_perm, slots);
}

#endif

namespace {

std::atomic<MinHashKernelCap> kernel_cap{MinHashKernelCap::kNone};

bool UseAvx512() {
  return kernel_cap.load(std::memory_order_relaxed) ==
             MinHashKernelCap::kNone &&
         CpuHasAvx512Dq();
}

bool UseAvx2() {
  return kernel_cap.load(std::memory_order_relaxed) !=
             MinHashKernelCap::kScalar &&
         CpuHasAvx2();
}

}  // namespace

void CapMinHashKernel(MinHashKernelCap cap) {
  kernel_cap.store(cap, std::memory_order_relaxed);
}

void MinHashSlots(const Hash128* hashes, size_t n, int num_perm,
                  uint64_t* slots) {
  if (num_perm % 32 != 0) {
    MinHashSlotsScalar(hashes, n, num_perm, slots);
  } else if (UseAvx512()) {
    MinHashSlotsAvx512(hashes, n, num_perm, slots);
  } else if (UseAvx2()) {
    MinHashSlotsAvx2(hashes, n, num_perm, slots);
  } else {
    MinHashSlotsScalar(hashes, n, num_perm, slots);
  }
}

std::string_view MinHashKernelName() {
  return UseAvx512() ? "avx512" : UseAvx2() ? "avx2" : "scalar";
}

}  // namespace neardup::internal
