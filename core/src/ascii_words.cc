#include "neardup/core/internal/ascii_words.h"

#include <array>
#include <cstring>

#include "absl/functional/function_ref.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace neardup::internal {
namespace {

enum ClassBit : uint8_t {
  kLetterBit = 1,
  kDigitBit = 2,
  kUnderscoreBit = 4,
  kMidLetterBit = 8,
  kMidNumBit = 16,
};

constexpr std::array<uint8_t, 256> MakeClassTable() {
  std::array<uint8_t, 256> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[c] = kLetterBit;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = kLetterBit;
  for (int c = '0'; c <= '9'; ++c) t[c] = kDigitBit;
  t['_'] = kUnderscoreBit;
  t['.'] = kMidLetterBit | kMidNumBit;   // MidNumLet
  t['\''] = kMidLetterBit | kMidNumBit;  // Single_Quote
  t[':'] = kMidLetterBit;                // MidLetter
  t[','] = kMidNumBit;                   // MidNum
  t[';'] = kMidNumBit;                   // MidNum
  return t;
}
constexpr std::array<uint8_t, 256> kClass = MakeClassTable();

#if defined(__x86_64__)

bool CpuHasAvx2ForWords() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

inline uint64_t Join(uint32_t lo, uint32_t hi) {
  return uint64_t{lo} | (uint64_t{hi} << 32);
}

struct HalfMasks {
  uint32_t letter, digit, underscore, mid_letter, mid_num;
};

#define NEARDUP_AVX2 __attribute__((target("avx2")))

NEARDUP_AVX2 inline __m256i Eq(__m256i c, char v) {
  return _mm256_cmpeq_epi8(c, _mm256_set1_epi8(v));
}

// Signed byte compares: bytes >= 0x80 are negative and match no range.
NEARDUP_AVX2 inline __m256i InRange(__m256i x, char lo, char hi) {
  return _mm256_and_si256(
      _mm256_cmpgt_epi8(x, _mm256_set1_epi8(static_cast<char>(lo - 1))),
      _mm256_cmpgt_epi8(_mm256_set1_epi8(static_cast<char>(hi + 1)), x));
}

NEARDUP_AVX2 inline uint32_t Bits(__m256i m) {
  return static_cast<uint32_t>(_mm256_movemask_epi8(m));
}

NEARDUP_AVX2 inline HalfMasks Classify32(const char* p) {
  const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i folded = _mm256_or_si256(c, _mm256_set1_epi8(0x20));
  const __m256i both_mids = _mm256_or_si256(Eq(c, '.'), Eq(c, '\''));
  return {Bits(InRange(folded, 'a', 'z')), Bits(InRange(c, '0', '9')),
          Bits(Eq(c, '_')), Bits(_mm256_or_si256(both_mids, Eq(c, ':'))),
          Bits(_mm256_or_si256(both_mids,
                               _mm256_or_si256(Eq(c, ','), Eq(c, ';'))))};
}

NEARDUP_AVX2 AsciiClassMasks ClassifyAvx2(const char* p) {
  const HalfMasks lo = Classify32(p);
  const HalfMasks hi = Classify32(p + 32);
  return {Join(lo.letter, hi.letter), Join(lo.digit, hi.digit),
          Join(lo.underscore, hi.underscore),
          Join(lo.mid_letter, hi.mid_letter), Join(lo.mid_num, hi.mid_num)};
}

#undef NEARDUP_AVX2

#endif  // __x86_64__

}  // namespace

AsciiClassMasks ClassifyAsciiChunkScalar(const char* p, size_t len) {
  AsciiClassMasks m;
  for (size_t i = 0; i < len && i < 64; ++i) {
    const uint64_t c = kClass[static_cast<unsigned char>(p[i])];
    m.letter |= (c & kLetterBit) << i;
    m.digit |= ((c & kDigitBit) >> 1) << i;
    m.underscore |= ((c & kUnderscoreBit) >> 2) << i;
    m.mid_letter |= ((c & kMidLetterBit) >> 3) << i;
    m.mid_num |= ((c & kMidNumBit) >> 4) << i;
  }
  return m;
}

AsciiClassMasks ClassifyAsciiChunk(const char* p, size_t len) {
#if defined(__x86_64__)
  if (CpuHasAvx2ForWords()) {
    if (len >= 64) return ClassifyAvx2(p);
    alignas(32) char padded[64] = {};  // NUL is "other"
    std::memcpy(padded, p, len);
    return ClassifyAvx2(padded);
  }
#endif
  return ClassifyAsciiChunkScalar(p, len);
}

namespace {

// Calls emit(begin, end) for every word, in order.
template <typename Emit>
void ScanAsciiWords(std::string_view text, Emit emit_word) {
  const size_t n = text.size();
  if (n == 0) return;
  const char* s = text.data();
  const size_t chunks = (n + 63) / 64;
  auto classify = [&](size_t chunk) {
    const size_t offset = chunk * 64;
    return ClassifyAsciiChunk(s + offset, n - offset);
  };
  auto emit = [&](size_t begin, size_t end) {
    // Mid characters join only letters or digits, so a run without either
    // is all underscores (ExtendNumLet alone): not a word.
    if (s[begin] == '_') {
      size_t i = begin;
      while (i < end && s[i] == '_') ++i;
      if (i == end) return;
    }
    emit_word(begin, end);
  };

  AsciiClassMasks cur = classify(0);
  uint64_t prev_letter = 0, prev_digit = 0, prev_word = 0;
  bool in_run = false;
  size_t run_begin = 0;
  for (size_t chunk = 0; chunk < chunks; ++chunk) {
    const AsciiClassMasks next =
        chunk + 1 < chunks ? classify(chunk + 1) : AsciiClassMasks{};
    // WB6/7: letter (MidLetter|MidNumLet|') letter; WB11/12: digit
    // (MidNum|MidNumLet|') digit. Neighbours may sit in adjacent chunks.
    const uint64_t letter_before = (cur.letter << 1) | (prev_letter >> 63);
    const uint64_t letter_after = (cur.letter >> 1) | (next.letter << 63);
    const uint64_t digit_before = (cur.digit << 1) | (prev_digit >> 63);
    const uint64_t digit_after = (cur.digit >> 1) | (next.digit << 63);
    const uint64_t joins = (cur.mid_letter & letter_before & letter_after) |
                           (cur.mid_num & digit_before & digit_after);
    const uint64_t word = cur.letter | cur.digit | cur.underscore | joins;
    // Bits where a run starts or ends (first byte after it).
    uint64_t edges = word ^ ((word << 1) | (prev_word >> 63));
    const size_t base = chunk * 64;
    while (edges != 0) {
      const size_t pos = base + static_cast<size_t>(__builtin_ctzll(edges));
      edges &= edges - 1;
      if (in_run) {
        emit(run_begin, pos);
      } else {
        run_begin = pos;
      }
      in_run = !in_run;
    }
    prev_letter = cur.letter;
    prev_digit = cur.digit;
    prev_word = word;
    cur = next;
  }
  if (in_run) emit(run_begin, n);
}

}  // namespace

void AppendAsciiWords(std::string_view text,
                      std::vector<std::string_view>* out) {
  ScanAsciiWords(text, [&](size_t begin, size_t end) {
    out->emplace_back(text.data() + begin, end - begin);
  });
}

void ForEachAsciiWord(std::string_view text,
                      absl::FunctionRef<void(std::string_view)> sink) {
  ScanAsciiWords(text, [&](size_t begin, size_t end) {
    sink(text.substr(begin, end - begin));
  });
}

}  // namespace neardup::internal
