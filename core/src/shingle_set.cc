#include "neardup/core/shingle_set.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/core/internal/scratch.h"

namespace neardup {
namespace {

int LowBits(uint64_t n) {
  return n <= 1 ? 63
                : std::min(63, 64 - static_cast<int>(std::bit_width(n - 1)));
}

void PutVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

bool GetVarint(std::string_view* in, uint64_t* value) {
  *value = 0;
  for (int shift = 0; shift < 64 && !in->empty(); shift += 7) {
    const uint8_t byte = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    *value |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return shift < 63 || byte <= 1;
  }
  return false;
}

// `bits` in [1, 63] starting at bit `bit`; the caller keeps them in range.
uint64_t GetBits(std::string_view data, uint64_t bit, int bits) {
  const uint64_t first = bit / 8;
  const int offset = static_cast<int>(bit % 8);
  uint64_t words[2] = {0, 0};
  std::memcpy(words, data.data() + first,
              std::min<uint64_t>(16, data.size() - first));
  uint64_t value = words[0] >> offset;
  if (offset != 0) value |= words[1] << (64 - offset);
  return value & ((uint64_t{1} << bits) - 1);
}

absl::Status Corrupt(std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("shingle set encoding is corrupt: ", AbslView(why)));
}

}  // namespace

double ExactJaccard64(std::span<const uint64_t> a,
                      std::span<const uint64_t> b) {
  if (a.empty() && b.empty()) return 1.0;
  size_t i = 0, j = 0, common = 0;
  while (i < a.size() && j < b.size()) {
    const uint64_t x = a[i], y = b[j];
    common += x == y;
    i += x <= y;
    j += y <= x;
  }
  return static_cast<double>(common) /
         static_cast<double>(a.size() + b.size() - common);
}

void SortUniqueHashes(std::vector<uint64_t>* hashes) {
  hashes->resize(SortUniqueHashes(std::span<uint64_t>(*hashes)));
}

size_t SortUniqueHashes(std::span<uint64_t> hashes) {
  const size_t n = hashes.size();
  if (n < 64) {
    std::sort(hashes.begin(), hashes.end());
    return static_cast<size_t>(std::unique(hashes.begin(), hashes.end()) -
                               hashes.begin());
  }
  // Hashes are close to uniform: one counting pass on the top bits leaves
  // ~1 value per bucket, and each bucket is then sorted on its own
  // (insertion sort when small, std::sort otherwise, so crafted inputs that
  // crowd one bucket stay O(n log n)). About 3x faster than std::sort here.
  const int bits = std::min(20, static_cast<int>(std::bit_width(n)));
  const int shift = 64 - bits;
  thread_local std::vector<uint32_t> starts;
  thread_local std::vector<uint64_t> sorted;
  thread_local std::vector<uint32_t> next;
  // A huge document must not leave its buffers on this thread for good.
  internal::TrimScratch(sorted, n);
  internal::TrimScratch(starts, size_t{1} << bits);
  internal::TrimScratch(next, size_t{1} << bits);
  starts.assign((size_t{1} << bits) + 1, 0);
  for (uint64_t v : hashes) ++starts[(v >> shift) + 1];
  for (size_t b = 1; b < starts.size(); ++b) starts[b] += starts[b - 1];
  sorted.resize(n);
  next.assign(starts.begin(), starts.end() - 1);
  for (uint64_t v : hashes) sorted[next[v >> shift]++] = v;
  for (size_t b = 0; b + 1 < starts.size(); ++b) {
    uint64_t* const first = sorted.data() + starts[b];
    uint64_t* const last = sorted.data() + starts[b + 1];
    if (last - first > 16) {
      std::sort(first, last);
      continue;
    }
    for (uint64_t* i = first + 1; i < last; ++i) {
      const uint64_t value = *i;
      uint64_t* j = i;
      for (; j > first && *(j - 1) > value; --j) *j = *(j - 1);
      *j = value;
    }
  }
  const auto last = std::unique(sorted.begin(), sorted.end());
  std::copy(sorted.begin(), last, hashes.begin());
  return static_cast<size_t>(last - sorted.begin());
}

std::string EncodeShingleSet(std::span<const uint64_t> sorted) {
  const uint64_t n = sorted.size();
  std::string out;
  PutVarint(n, &out);
  if (n == 0) return out;
  const int low_bits = LowBits(n);
  const uint64_t high_max = sorted.back() >> low_bits;
  // n low parts, then the unary high parts: value i sets bit
  // (n * low_bits + high_i + i).
  const uint64_t total_bits = n * low_bits + high_max + n;
  const size_t header = out.size();
  const size_t body = (total_bits + 7) / 8;
  out.resize(header + body + 16, '\0');  // slack for 8-byte stores
  char* const bits = out.data() + header;
  auto or_word = [bits](uint64_t byte, uint64_t word) {
    uint64_t current;
    std::memcpy(&current, bits + byte, 8);
    current |= word;
    std::memcpy(bits + byte, &current, 8);
  };
  const uint64_t low_mask = (uint64_t{1} << low_bits) - 1;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t position = i * low_bits;
    const int offset = static_cast<int>(position % 8);
    const uint64_t low = sorted[i] & low_mask;
    or_word(position / 8, low << offset);
    // low_bits + offset may exceed 64: the rest goes to the next word.
    if (offset != 0 && low_bits + offset > 64) {
      or_word(position / 8 + 8, low >> (64 - offset));
    }
  }
  const uint64_t high_start = n * low_bits;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t bit = high_start + (sorted[i] >> low_bits) + i;
    bits[bit / 8] = static_cast<char>(static_cast<uint8_t>(bits[bit / 8]) |
                                      (1u << (bit % 8)));
  }
  out.resize(header + body);
  return out;
}

absl::Status DecodeShingleSet(std::string_view bytes,
                              std::vector<uint64_t>* out) {
  out->clear();
  uint64_t n = 0;
  if (!GetVarint(&bytes, &n)) return Corrupt("bad count");
  if (n == 0) {
    if (!bytes.empty()) return Corrupt("trailing bytes");
    return absl::OkStatus();
  }
  const int low_bits = LowBits(n);
  // Every value costs at least low_bits + 1 bits: a bound before allocating.
  if (n > bytes.size() * 8 / (low_bits + 1)) return Corrupt("count too large");
  const uint64_t total_bits = bytes.size() * 8;
  const uint64_t low_end = n * low_bits;
  out->resize(n);
  for (uint64_t i = 0; i < n; ++i) {
    (*out)[i] = GetBits(bytes, i * low_bits, low_bits);
  }
  uint64_t bit = low_end, high = 0, i = 0;
  while (i < n) {
    if (bit >= total_bits) return Corrupt("truncated high parts");
    const int window =
        static_cast<int>(std::min<uint64_t>(63, total_bits - bit));
    const uint64_t word = GetBits(bytes, bit, window);
    if (word == 0) {
      high += window;
      bit += window;
      continue;
    }
    const int zeros = std::countr_zero(word);
    high += zeros;
    bit += zeros + 1;
    if (high > (std::numeric_limits<uint64_t>::max() >> low_bits)) {
      return Corrupt("value out of range");
    }
    (*out)[i] |= high << low_bits;
    if (i > 0 && (*out)[i] <= (*out)[i - 1]) {
      return Corrupt("values out of order");
    }
    ++i;
  }
  if ((bit + 7) / 8 != bytes.size()) return Corrupt("trailing bytes");
  return absl::OkStatus();
}

}  // namespace neardup
