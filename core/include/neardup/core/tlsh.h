#ifndef NEARDUP_CORE_TLSH_H_
#define NEARDUP_CORE_TLSH_H_

// TLSH (Trend Micro Locality Sensitive Hash), 128 buckets with a 1-byte
// checksum, exact against the reference implementation's "T1" hashes and
// distances. A byte-level fuzzy hash: a histogram of 5-byte window
// triplets, quantized by its quartiles. Lower distance = more similar; below
// about 50 is "very similar" for this variant. There is no TLSH index: the
// distance is computed pairwise.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "neardup/core/canonicalizer.h"
#include "neardup/core/kept_family.h"

namespace neardup {

struct TlshDigest {
  uint8_t checksum = 0;
  uint8_t length_code = 0;  // log-scale bucket of the input length
  uint8_t q1_ratio = 0;     // 100 * q1 / q3, mod 16
  uint8_t q2_ratio = 0;     // 100 * q2 / q3, mod 16
  // Two bits per bucket (its quartile), four buckets per byte, bucket 0 in
  // the low bits of body[0].
  std::array<uint8_t, 32> body = {};

  bool operator==(const TlshDigest&) const = default;
};

// Shortest input TLSH hashes (the reference's minimum).
inline constexpr size_t kTlshMinBytes = 50;

// TLSH of `bytes` as they are. INVALID_ARGUMENT when shorter than 50 bytes,
// longer than 4 GiB, or too uniform to hash (half or more of the 128
// buckets empty, or the third quartile 0), as the reference refuses them.
absl::StatusOr<TlshDigest> TlshOfBytes(std::string_view bytes);

// "T1" and 70 uppercase hex digits, as the reference prints them.
std::string FormatTlsh(const TlshDigest& digest);
// Accepts FormatTlsh's output (any case), with or without the "T1".
absl::StatusOr<TlshDigest> ParseTlsh(std::string_view text);

// The reference's distance: length, quartile ratios, checksum and body
// terms; without the length term when `include_length` is false.
int TlshDistance(const TlshDigest& a, const TlshDigest& b,
                 bool include_length = true);

// TLSH over canonicalized text (txtfp's TlshFingerprinter), or over the raw
// bytes (txtfp's sketch_bytes). Thread-safe.
class TlshFingerprinter {
 public:
  static absl::StatusOr<TlshFingerprinter> Create(
      const CanonicalizerOptions& canonicalizer = {});

  // Canonicalizes, then hashes the UTF-8 bytes. INVALID_ARGUMENT for
  // invalid UTF-8 or fewer than 50 bytes after canonicalization.
  absl::StatusOr<TlshDigest> Fingerprint(std::string_view text) const;

  const Canonicalizer& canonicalizer() const { return canonicalizer_; }
  // "tlsh-128-1"
  static std::string_view Algorithm() { return "tlsh-128-1"; }
  // ConfigHash(canonicalizer config, "bytes", "tlsh-128-1", xxh3, 0).
  uint64_t config_hash() const { return config_hash_; }
  // The config hash of raw-byte TLSH: canonicalizer config "raw".
  static uint64_t RawConfigHash();

 private:
  explicit TlshFingerprinter(Canonicalizer canonicalizer);

  Canonicalizer canonicalizer_;
  uint64_t config_hash_;
};

// TLSH as a family collections keep ("tlsh"): the canonical text's digest
// in FormatTlsh's form, compared by TlshDistance.
extern const KeptFamily kTlshFamily;

}  // namespace neardup

#endif  // NEARDUP_CORE_TLSH_H_
