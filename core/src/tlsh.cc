#include "neardup/core/tlsh.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/config_hash.h"

namespace neardup {
namespace {

// Pearson's permutation of 0..255, the reference's mixing table.
constexpr uint8_t kPearson[256] = {
    1,   87,  49,  12,  176, 178, 102, 166, 121, 193, 6,   84,  249, 230, 44,
    163, 14,  197, 213, 181, 161, 85,  218, 80,  64,  239, 24,  226, 236, 142,
    38,  200, 110, 177, 104, 103, 141, 253, 255, 50,  77,  101, 81,  18,  45,
    96,  31,  222, 25,  107, 190, 70,  86,  237, 240, 34,  72,  242, 20,  214,
    244, 227, 149, 235, 97,  234, 57,  22,  60,  250, 82,  175, 208, 5,   127,
    199, 111, 62,  135, 248, 174, 169, 211, 58,  66,  154, 106, 195, 245, 171,
    17,  187, 182, 179, 0,   243, 132, 56,  148, 75,  128, 133, 158, 100, 130,
    126, 91,  13,  153, 246, 216, 219, 119, 68,  223, 78,  83,  88,  201, 99,
    122, 11,  92,  32,  136, 114, 52,  10,  138, 30,  48,  183, 156, 35,  61,
    26,  143, 74,  251, 94,  129, 162, 63,  152, 170, 7,   115, 167, 241, 206,
    3,   150, 55,  59,  151, 220, 90,  53,  23,  131, 125, 173, 15,  238, 79,
    95,  89,  16,  105, 137, 225, 224, 217, 160, 37,  123, 118, 73,  2,   157,
    46,  116, 9,   145, 134, 228, 207, 212, 202, 215, 69,  229, 27,  188, 67,
    124, 168, 252, 42,  4,   29,  108, 21,  247, 19,  205, 39,  203, 233, 40,
    186, 147, 198, 192, 155, 33,  164, 191, 98,  204, 165, 180, 117, 76,  140,
    36,  210, 172, 41,  54,  159, 8,   185, 232, 113, 196, 231, 47,  146, 120,
    51,  65,  28,  144, 254, 221, 93,  189, 194, 139, 112, 43,  71,  109, 184,
    209,
};

// Upper bounds of the 170 length codes: code i covers lengths in
// (kLengthTops[i-1], kLengthTops[i]]. They are where the reference's
// single-precision formula floor(logf(len) / ln 1.5) (up to 656 bytes),
// floor(logf(len) / ln 1.3 - 8.72777) (up to 3199), and
// floor(logf(len) / ln 1.1 - 62.5472) changes value; a table keeps the
// code the same whatever a machine's logf rounds.
constexpr uint32_t kLengthTops[170] = {
    1,          2,          3,          5,          7,          11,
    17,         25,         38,         57,         86,         129,
    194,        291,        437,        656,        854,        1110,
    1443,       1876,       2439,       3171,       3475,       3823,
    4205,       4626,       5088,       5597,       6157,       6772,
    7450,       8195,       9014,       9916,       10907,      11998,
    13198,      14518,      15970,      17567,      19323,      21256,
    23382,      25720,      28292,      31121,      34233,      37656,
    41422,      45564,      50121,      55133,      60646,      66711,
    73382,      80721,      88793,      97672,      107439,     118183,
    130002,     143002,     157302,     173032,     190335,     209369,
    230306,     253337,     278670,     306538,     337191,     370911,
    408002,     448802,     493682,     543050,     597356,     657091,
    722800,     795081,     874589,     962048,     1058252,    1164078,
    1280486,    1408534,    1549388,    1704327,    1874759,    2062236,
    2268459,    2495305,    2744836,    3019320,    3321252,    3653374,
    4018711,    4420582,    4862641,    5348905,    5883796,    6472176,
    7119394,    7831333,    8614467,    9475909,    10423501,   11465851,
    12612437,   13873681,   15261050,   16787154,   18465870,   20312458,
    22343706,   24578077,   27035886,   29739474,   32713425,   35984770,
    39583245,   43541573,   47895730,   52685306,   57953837,   63749221,
    70124148,   77136564,   84850228,   93335252,   102668779,  112935659,
    124229227,  136652151,  150317384,  165349128,  181884040,  200072456,
    220079703,  242087671,  266296456,  292926096,  322218735,  354440623,
    389884688,  428873168,  471760495,  518936559,  570830240,  627913311,
    690704607,  759775136,  835752671,  919327967,  1011260767, 1112386880,
    1223623232, 1345985727, 1480584256, 1628642751, 1791507135, 1970657856,
    2167723648, 2384496256, 2622945920, 2885240448, 3173764736, 3491141248,
    3840255616, 4224281216,
};

constexpr int kBuckets = 128;  // of the 256 the mixing can reach
constexpr int kBodyBytes = 32;

// One Pearson hash of a salt and three bytes; `salt_entry` is
// kPearson[salt], looked up once.
inline uint8_t Mix(uint8_t salt_entry, uint8_t a, uint8_t b, uint8_t c) {
  return kPearson[kPearson[kPearson[salt_entry ^ a] ^ b] ^ c];
}

uint8_t LengthCode(uint64_t length) {
  const auto it =
      std::lower_bound(std::begin(kLengthTops), std::end(kLengthTops), length);
  return static_cast<uint8_t>(it - std::begin(kLengthTops));
}

// Swaps the nibbles of a byte, as the reference's hex form does.
uint8_t SwapNibbles(uint8_t b) { return static_cast<uint8_t>(b << 4 | b >> 4); }

// Shortest way around a ring of `range` values.
int RingDistance(int x, int y, int range) {
  const int d = std::abs(x - y);
  return std::min(d, range - d);
}

// Ratio terms: 0 or 1 count as they are, more costs 12 per step past 1.
int RatioPenalty(int x, int y) {
  const int d = RingDistance(x, y, 16);
  return d <= 1 ? d : (d - 1) * 12;
}

// Per 2-bit bucket: the quartile difference, 3 costing 6.
int BodyDistance(const std::array<uint8_t, 32>& a,
                 const std::array<uint8_t, 32>& b) {
  int total = 0;
  for (int i = 0; i < kBodyBytes; ++i) {
    for (int shift = 0; shift < 8; shift += 2) {
      const int d = std::abs(((a[i] >> shift) & 3) - ((b[i] >> shift) & 3));
      total += d == 3 ? 6 : d;
    }
  }
  return total;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

absl::StatusOr<TlshDigest> TlshOfBytes(std::string_view bytes) {
  if (bytes.size() < kTlshMinBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("TLSH needs at least ", kTlshMinBytes,
                     " bytes of input, got ", bytes.size()));
  }
  if (bytes.size() > 0xFFFFFFFFu) {
    return absl::InvalidArgumentError("TLSH input is over 4 GiB");
  }
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t n = bytes.size();
  uint32_t counts[256] = {};
  uint8_t checksum = 0;
  // Each position sees the window data[i-4..i] and counts six of its
  // triplets, each anchored at the newest byte, under six salts.
  const uint8_t s0 = kPearson[0], s2 = kPearson[2], s3 = kPearson[3],
                s5 = kPearson[5], s7 = kPearson[7], s11 = kPearson[11],
                s13 = kPearson[13];
  for (size_t i = 4; i < n; ++i) {
    const uint8_t a0 = data[i - 4], a1 = data[i - 3], a2 = data[i - 2],
                  a3 = data[i - 1], a4 = data[i];
    checksum = Mix(s0, a4, a3, checksum);
    ++counts[Mix(s2, a4, a3, a2)];
    ++counts[Mix(s3, a4, a3, a1)];
    ++counts[Mix(s5, a4, a2, a1)];
    ++counts[Mix(s7, a4, a2, a0)];
    ++counts[Mix(s11, a4, a3, a0)];
    ++counts[Mix(s13, a4, a1, a0)];
  }

  uint32_t sorted[kBuckets];
  std::copy(counts, counts + kBuckets, sorted);
  std::sort(sorted, sorted + kBuckets);
  const uint32_t q1 = sorted[kBuckets / 4 - 1];
  const uint32_t q2 = sorted[kBuckets / 2 - 1];
  const uint32_t q3 = sorted[kBuckets - kBuckets / 4 - 1];
  const int nonzero = static_cast<int>(
      std::count_if(counts, counts + kBuckets, [](uint32_t c) { return c; }));
  if (q3 == 0 || nonzero <= kBuckets / 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("input too uniform for TLSH: ", nonzero, " of its ",
                     kBuckets, " buckets are used, more than half must be"));
  }

  TlshDigest digest;
  digest.checksum = checksum;
  digest.length_code = LengthCode(n);
  // The reference's arithmetic, overflow of q * 100 included.
  digest.q1_ratio =
      static_cast<uint8_t>(static_cast<uint32_t>(static_cast<float>(q1 * 100u) /
                                                 static_cast<float>(q3)) %
                           16);
  digest.q2_ratio =
      static_cast<uint8_t>(static_cast<uint32_t>(static_cast<float>(q2 * 100u) /
                                                 static_cast<float>(q3)) %
                           16);
  for (int i = 0; i < kBodyBytes; ++i) {
    uint8_t byte = 0;
    for (int j = 0; j < 4; ++j) {
      const uint32_t c = counts[4 * i + j];
      const int quartile = c > q3 ? 3 : c > q2 ? 2 : c > q1 ? 1 : 0;
      byte |= static_cast<uint8_t>(quartile << (2 * j));
    }
    digest.body[i] = byte;
  }
  return digest;
}

std::string FormatTlsh(const TlshDigest& digest) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "T1";
  out.reserve(2 + 70);
  auto put = [&](uint8_t b) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  };
  put(SwapNibbles(digest.checksum));
  put(SwapNibbles(digest.length_code));
  put(static_cast<uint8_t>(digest.q1_ratio << 4 | digest.q2_ratio));
  for (int i = kBodyBytes - 1; i >= 0; --i) put(digest.body[i]);
  return out;
}

absl::StatusOr<TlshDigest> ParseTlsh(std::string_view text) {
  std::string_view hex = text;
  if (hex.size() >= 2 && (hex[0] == 'T' || hex[0] == 't') && hex[1] == '1') {
    hex.remove_prefix(2);
  }
  if (hex.size() != 70) {
    return absl::InvalidArgumentError(
        absl::StrCat("a TLSH is \"T1\" and 70 hex digits, got ", text.size(),
                     " characters"));
  }
  uint8_t bytes[35];
  for (int i = 0; i < 35; ++i) {
    const int hi = HexValue(hex[2 * i]), lo = HexValue(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("TLSH has a non-hex character at ", 2 * i + 2));
    }
    bytes[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  TlshDigest digest;
  digest.checksum = SwapNibbles(bytes[0]);
  digest.length_code = SwapNibbles(bytes[1]);
  digest.q1_ratio = bytes[2] >> 4;
  digest.q2_ratio = bytes[2] & 15;
  for (int i = 0; i < kBodyBytes; ++i) digest.body[i] = bytes[34 - i];
  return digest;
}

int TlshDistance(const TlshDigest& a, const TlshDigest& b,
                 bool include_length) {
  int total = 0;
  if (include_length) {
    const int d = RingDistance(a.length_code, b.length_code, 256);
    total += d <= 1 ? d : d * 12;
  }
  total += RatioPenalty(a.q1_ratio, b.q1_ratio);
  total += RatioPenalty(a.q2_ratio, b.q2_ratio);
  if (a.checksum != b.checksum) ++total;
  return total + BodyDistance(a.body, b.body);
}

absl::StatusOr<TlshFingerprinter> TlshFingerprinter::Create(
    const CanonicalizerOptions& canonicalizer) {
  ASSIGN_OR_RETURN(Canonicalizer canon, Canonicalizer::Create(canonicalizer));
  return TlshFingerprinter(std::move(canon));
}

TlshFingerprinter::TlshFingerprinter(Canonicalizer canonicalizer)
    : canonicalizer_(std::move(canonicalizer)),
      config_hash_(ConfigHash(canonicalizer_.ConfigString(), "bytes",
                              Algorithm(), HashFamily::kXxh3, 0)) {}

uint64_t TlshFingerprinter::RawConfigHash() {
  return ConfigHash("raw", "bytes", Algorithm(), HashFamily::kXxh3, 0);
}

absl::StatusOr<TlshDigest> TlshFingerprinter::Fingerprint(
    std::string_view text) const {
  ASSIGN_OR_RETURN(const std::string canonical,
                   canonicalizer_.Canonicalize(text));
  if (canonical.size() < kTlshMinBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("TLSH needs at least ", kTlshMinBytes,
                     " bytes after canonicalization, got ", canonical.size()));
  }
  return TlshOfBytes(canonical);
}

namespace {

class TlshKeptFingerprinter final : public KeptFingerprinter {
 public:
  explicit TlshKeptFingerprinter(TlshFingerprinter tlsh)
      : tlsh_(std::move(tlsh)) {}
  uint64_t config_hash() const override { return tlsh_.config_hash(); }
  absl::StatusOr<std::string> Fingerprint(
      std::string_view text) const override {
    ASSIGN_OR_RETURN(const TlshDigest digest, tlsh_.Fingerprint(text));
    return FormatTlsh(digest);
  }

 private:
  TlshFingerprinter tlsh_;
};

absl::StatusOr<std::unique_ptr<KeptFingerprinter>> CreateTlshKept(
    const CanonicalizerOptions& canonicalizer) {
  ASSIGN_OR_RETURN(TlshFingerprinter tlsh,
                   TlshFingerprinter::Create(canonicalizer));
  return std::make_unique<TlshKeptFingerprinter>(std::move(tlsh));
}

absl::StatusOr<std::string> NormalizeTlsh(std::string_view value) {
  ASSIGN_OR_RETURN(const TlshDigest digest, ParseTlsh(value));
  return FormatTlsh(digest);
}

absl::StatusOr<int> TlshKeptDistance(std::string_view a, std::string_view b) {
  ASSIGN_OR_RETURN(const TlshDigest left, ParseTlsh(a));
  ASSIGN_OR_RETURN(const TlshDigest right, ParseTlsh(b));
  return TlshDistance(left, right);
}

}  // namespace

const KeptFamily kTlshFamily = {
    .name = "tlsh",
    .summary =
        "TLSH of the canonical text (at least 50 bytes, varied "
        "enough); matches report its distance, lower is closer",
    .create = CreateTlshKept,
    .normalize = NormalizeTlsh,
    .distance = TlshKeptDistance,
};

}  // namespace neardup
