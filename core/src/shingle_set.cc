#include "neardup/core/shingle_set.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/scratch.h"

namespace neardup {
namespace {

// Elias-Fano's split for n values below 2^universe_bits: about
// log2(universe / n) low bits, so the unary high parts take about 2n bits.
int LowBits(uint64_t n, int universe_bits) {
  const int width = n <= 1 ? 1 : static_cast<int>(std::bit_width(n - 1));
  return std::clamp(universe_bits - width, 0, universe_bits - 1);
}

bool ValidUniverse(int universe_bits) {
  return universe_bits >= 1 && universe_bits <= 64;
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

// The 8 bytes from `byte` on (zeros past the end), little-endian.
uint64_t Load64(std::string_view data, uint64_t byte) {
  uint64_t word = 0;
  if (byte + 8 <= data.size()) {
    std::memcpy(&word, data.data() + byte, 8);
  } else if (byte < data.size()) {
    std::memcpy(&word, data.data() + byte, data.size() - byte);
  }
  return word;
}

// `bits` in [1, 63] starting at bit `bit` (zeros past the end).
uint64_t GetBits(std::string_view data, uint64_t bit, int bits) {
  const uint64_t first = bit / 8;
  const int offset = static_cast<int>(bit % 8);
  uint64_t value = Load64(data, first) >> offset;
  // One load covers 64 - offset >= 57 bits; wider fields need the next byte.
  if (offset + bits > 64) {
    value |= Load64(data, first + 8) << (64 - offset);
  }
  return value & ((uint64_t{1} << bits) - 1);
}

// Writes 64-bit words one after another into zeroed memory: each word is
// stored once, so no store waits on an overlapping one (setting bits in
// place, word by word at 7-byte steps, stalled on exactly that).
class WordWriter {
 public:
  explicit WordWriter(char* out) : out_(out) {}
  // Appends the low `bits` (1..63) of `value`; its upper bits must be zero.
  void Append(uint64_t value, int bits) {
    word_ |= value << filled_;
    filled_ += bits;
    if (filled_ >= 64) {
      Store(word_);
      filled_ -= 64;
      // filled_ was >= 1 before this value, so the shift is below 64.
      word_ = filled_ == 0 ? 0 : value >> (bits - filled_);
    }
  }
  // Stores the partly filled last word.
  void Finish() {
    if (filled_ > 0) Store(word_);
  }

 private:
  void Store(uint64_t word) { std::memcpy(out_ + 8 * words_++, &word, 8); }
  char* out_;
  uint64_t word_ = 0;
  int filled_ = 0;
  size_t words_ = 0;
};

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
  TrimScratch(sorted, n);
  TrimScratch(starts, size_t{1} << bits);
  TrimScratch(next, size_t{1} << bits);
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

std::string EncodeShingleSet(std::span<const uint64_t> sorted,
                             int universe_bits) {
  const uint64_t n = sorted.size();
  std::string out;
  PutVarint(n, &out);
  if (n == 0) return out;
  // A value past the universe is the caller's bug (callers check widths
  // first): it would size the unary part by the value. Such input is coded
  // over 64 bits instead, which the narrower decoder does not take for it.
  const bool fits =
      ValidUniverse(universe_bits) &&
      (universe_bits == 64 || (sorted.back() >> universe_bits) == 0);
  assert(fits);
  if (!fits) universe_bits = 64;
  const int low_bits = LowBits(n, universe_bits);
  const uint64_t high_max = sorted.back() >> low_bits;
  // n low parts, then the unary high parts: value i sets bit
  // (n * low_bits + high_i + i).
  const uint64_t total_bits = n * low_bits + high_max + n;
  const size_t header = out.size();
  const size_t body = (total_bits + 7) / 8;
  out.resize(header + body + 16, '\0');  // slack for whole-word stores
  char* const bits = out.data() + header;
  const uint64_t low_mask = (uint64_t{1} << low_bits) - 1;
  WordWriter lows(bits);
  for (uint64_t value : sorted) lows.Append(value & low_mask, low_bits);
  lows.Finish();
  // Highs set ascending bits: gather each 64-bit word's bits in a register
  // and OR it in once (the first may share its word with the last lows).
  const uint64_t high_start = n * low_bits;
  uint64_t word_index = high_start / 64;
  uint64_t word = 0;
  auto flush = [&] {
    uint64_t current;
    std::memcpy(&current, bits + 8 * word_index, 8);
    current |= word;
    std::memcpy(bits + 8 * word_index, &current, 8);
  };
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t bit = high_start + (sorted[i] >> low_bits) + i;
    if (bit / 64 != word_index) {
      flush();
      word_index = bit / 64;
      word = 0;
    }
    word |= uint64_t{1} << (bit % 64);
  }
  flush();
  out.resize(header + body);
  return out;
}

absl::Status DecodeShingleSet(std::string_view bytes,
                              std::vector<uint64_t>* out, int universe_bits,
                              uint64_t max_count) {
  out->clear();
  if (!ValidUniverse(universe_bits)) {
    return absl::InvalidArgumentError(
        absl::StrCat("hash width ", universe_bits, " is not 1..64 bits"));
  }
  uint64_t n = 0;
  if (!GetVarint(&bytes, &n)) return Corrupt("bad count");
  if (n == 0) {
    if (!bytes.empty()) return Corrupt("trailing bytes");
    return absl::OkStatus();
  }
  const int low_bits = LowBits(n, universe_bits);
  // Every value costs at least low_bits + 1 bits: a bound before allocating.
  if (n > bytes.size() * 8 / (low_bits + 1)) return Corrupt("count too large");
  if (n > max_count) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shingle set of ", n, " hashes, over the limit of ", max_count));
  }
  const uint64_t total_bits = bytes.size() * 8;
  const uint64_t low_end = n * low_bits;
  out->resize(n);
  for (uint64_t i = 0; i < n; ++i) {
    (*out)[i] = GetBits(bytes, i * low_bits, low_bits);
  }
  // The unary highs: every set bit ends one value. A window holds several
  // (about two bits each), all taken before the next load.
  uint64_t bit = low_end, high = 0, i = 0;
  while (i < n) {
    if (bit >= total_bits) return Corrupt("truncated high parts");
    const int window =
        static_cast<int>(std::min<uint64_t>(56, total_bits - bit));
    uint64_t word = GetBits(bytes, bit, window);
    int used = 0;
    while (word != 0 && i < n) {
      const int zeros = std::countr_zero(word);
      high += zeros;
      used += zeros + 1;
      word = (word >> zeros) >> 1;  // zeros + 1 may be 56, never 64
      if (high > (std::numeric_limits<uint64_t>::max() >>
                  (64 - universe_bits + low_bits))) {
        return Corrupt("value out of range");
      }
      (*out)[i] |= high << low_bits;
      if (i > 0 && (*out)[i] <= (*out)[i - 1]) {
        return Corrupt("values out of order");
      }
      ++i;
    }
    if (i == n) {
      bit += used;
      break;
    }
    high += window - used;
    bit += window;
  }
  if ((bit + 7) / 8 != bytes.size()) return Corrupt("trailing bytes");
  return absl::OkStatus();
}

bool ValidEvidenceBits(int evidence_bits) {
  return evidence_bits == 32 || evidence_bits == 64;
}

void NarrowEvidence(int evidence_bits, std::vector<uint64_t>* sorted) {
  if (evidence_bits >= 64) return;
  const int shift = 64 - evidence_bits;
  for (uint64_t& value : *sorted) value >>= shift;
  sorted->erase(std::unique(sorted->begin(), sorted->end()), sorted->end());
}

uint64_t EvidenceConfigHash(uint64_t minhash_config_hash, int evidence_bits) {
  if (evidence_bits == 64) return minhash_config_hash;
  // splitmix64 of the pair: any fixed, well-mixed function would do, but it
  // is part of the store format now.
  uint64_t x = minhash_config_hash ^
               (static_cast<uint64_t>(evidence_bits) * 0x9E3779B97F4A7C15ull);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace neardup
