#ifndef NEARDUP_CORE_INTERNAL_UTF8_H_
#define NEARDUP_CORE_INTERNAL_UTF8_H_

// Strict UTF-8 helpers (no overlongs, no surrogates, nothing above U+10FFFF).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace neardup::internal {

inline constexpr size_t kNoError = static_cast<size_t>(-1);

// Decodes the code point at `s[i]`. Returns its byte length, or 0 if the bytes
// there are not a complete, valid sequence.
inline int DecodeUtf8(std::string_view s, size_t i, char32_t* cp) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data()) + i;
  const size_t left = s.size() - i;
  const unsigned char b0 = p[0];
  if (b0 < 0x80) {
    *cp = b0;
    return 1;
  }
  if (b0 < 0xC2) return 0;
  if (b0 < 0xE0) {
    if (left < 2 || (p[1] & 0xC0) != 0x80) return 0;
    *cp = ((b0 & 0x1Fu) << 6) | (p[1] & 0x3Fu);
    return 2;
  }
  if (b0 < 0xF0) {
    if (left < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return 0;
    if (b0 == 0xE0 && p[1] < 0xA0) return 0;   // overlong
    if (b0 == 0xED && p[1] >= 0xA0) return 0;  // surrogate
    *cp = ((b0 & 0x0Fu) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu);
    return 3;
  }
  if (b0 < 0xF5) {
    if (left < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 ||
        (p[3] & 0xC0) != 0x80) {
      return 0;
    }
    if (b0 == 0xF0 && p[1] < 0x90) return 0;   // overlong
    if (b0 == 0xF4 && p[1] >= 0x90) return 0;  // above U+10FFFF
    *cp = ((b0 & 0x07u) << 18) | ((p[1] & 0x3Fu) << 12) |
          ((p[2] & 0x3Fu) << 6) | (p[3] & 0x3Fu);
    return 4;
  }
  return 0;
}

// Like DecodeUtf8 but never fails: an invalid byte decodes as U+FFFD of
// length 1. For tokenizers, whose input was validated upstream.
inline int DecodeUtf8Lenient(std::string_view s, size_t i, char32_t* cp) {
  const int n = DecodeUtf8(s, i, cp);
  if (n > 0) return n;
  *cp = 0xFFFD;
  return 1;
}

// Offset of the first byte >= 0x80, or s.size().
inline size_t FirstNonAscii(std::string_view s) {
  size_t i = 0;
  const char* d = s.data();
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, d + i, 8);
    if (w & 0x8080808080808080ull) break;
  }
  for (; i < s.size(); ++i) {
    if (static_cast<unsigned char>(d[i]) >= 0x80) return i;
  }
  return i;
}

inline bool IsAscii(std::string_view s) { return FirstNonAscii(s) == s.size(); }

// Offset of the first invalid byte, or kNoError.
inline size_t FindInvalidUtf8(std::string_view s) {
  size_t i = FirstNonAscii(s);
  while (i < s.size()) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    char32_t cp = 0;
    const int n = DecodeUtf8(s, i, &cp);
    if (n == 0) return i;
    i += n;
  }
  return kNoError;
}

// True if the `n` bytes at `p` (n < the sequence length its lead byte
// announces) can still be completed into a valid sequence: the second byte
// obeys the Unicode Table 3-7 ranges and the rest are continuation bytes.
inline bool IsViablePrefix(const unsigned char* p, size_t n) {
  if (n >= 2) {
    const unsigned char b0 = p[0], b1 = p[1];
    unsigned char lo = 0x80, hi = 0xBF;
    if (b0 == 0xE0)
      lo = 0xA0;
    else if (b0 == 0xED)
      hi = 0x9F;
    else if (b0 == 0xF0)
      lo = 0x90;
    else if (b0 == 0xF4)
      hi = 0x8F;
    if (b1 < lo || b1 > hi) return false;
  }
  for (size_t i = 2; i < n; ++i) {
    if ((p[i] & 0xC0) != 0x80) return false;
  }
  return true;
}

// Number of bytes at the end of `s` that begin a sequence which is valid so
// far but incomplete (0..3). Used to stitch chunks in streaming input; bytes
// that can never become valid are not held back (so they are reported now).
inline size_t IncompleteUtf8Tail(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  for (size_t back = 1; back <= 3 && back <= n; ++back) {
    const unsigned char b = p[n - back];
    if ((b & 0xC0) == 0x80) continue;  // continuation byte: keep looking
    size_t need = 0;
    if (b >= 0xC2 && b < 0xE0)
      need = 2;
    else if (b >= 0xE0 && b < 0xF0)
      need = 3;
    else if (b >= 0xF0 && b < 0xF5)
      need = 4;
    return need > back && IsViablePrefix(p + n - back, back) ? back : 0;
  }
  return 0;
}

}  // namespace neardup::internal

#endif  // NEARDUP_CORE_INTERNAL_UTF8_H_
