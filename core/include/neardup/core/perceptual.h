#ifndef NEARDUP_CORE_PERCEPTUAL_H_
#define NEARDUP_CORE_PERCEPTUAL_H_

// UCFP's perceptual fingerprint (seeds/ucfp-perceptual.md): a pure function
// of canonical tokens and a PerceptualConfig.
//   1. Rolling-hash shingles: each window of k consecutive tokens hashed by
//      a polynomial rolling hash.
//   2. Winnowing ("minq"): the minimum shingle hash of every window of w
//      consecutive shingles, kept once per run (rightmost minimum on ties).
//      Data reduction only: about 2 / (w + 1) of the shingles survive.
//   3. MinHash of the unique winnowed hashes, bands x rows slots, indexable
//      by the same LSH index as plain MinHash.
//
// The seed fixes the structure but not the constants; ours (version 1),
// frozen by golden vectors:
//   - token value: XXH3_64bits_withSeed(token bytes, seed) mod p, with
//     p = 2^61 - 1 (a Mersenne prime: exact modular arithmetic, no bias);
//   - shingle: H = sum_j value(t[i+j]) * B^(k-1-j) mod p, B = the base
//     derived from the seed (splitmix64(seed) mod p, raised to >= 2^32), then
//     spread over 64 bits by murmur3's fmix64;
//   - MinHash slot i: min over winnowed hashes x of (lo(x) + i * hi(x))
//     mod 2^64 (txtfp's double hashing, the same kernel as plain MinHash),
//     lo(x) = fmix64(x ^ key1), hi(x) = fmix64(x ^ key2) | 1, key1 and
//     key2 the first two outputs of splitmix64 seeded with
//     seed ^ 0x5045524345505455 ("PERCEPTU").

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "neardup/core/canonicalizer.h"
#include "neardup/core/hash.h"
#include "neardup/core/minhash.h"
#include "neardup/core/tokenizer.h"

namespace neardup {

inline constexpr uint32_t kPerceptualVersion = 1;
inline constexpr char kPerceptualAlgorithm[] = "rolling+minq+minhash_v1";

// UCFP's defaults: 9-token shingles, a winnowing window of 4.
inline constexpr int kDefaultPerceptualK = 9;
inline constexpr int kDefaultWinnowWindow = 4;

struct PerceptualConfig {
  uint32_t version = kPerceptualVersion;  // only 1 exists
  int k = kDefaultPerceptualK;            // tokens per shingle, 1..64
  int w = kDefaultWinnowWindow;  // winnowing window in shingles, 1..1024
  int bands = 16;                // bands * rows MinHash slots, at most 1024
  int rows = 8;
  uint64_t seed = kDefaultSeed;

  int minhash_len() const { return bands * rows; }
  bool operator==(const PerceptualConfig&) const = default;
};

// INVALID_ARGUMENT naming the field for an invalid config.
absl::Status ValidatePerceptualConfig(const PerceptualConfig& config);

struct WinnowedShingle {
  uint64_t hash;
  size_t start;  // index of the shingle's first token

  bool operator==(const WinnowedShingle&) const = default;
};

struct PerceptualMeta {
  uint32_t perceptual_version = kPerceptualVersion;
  std::string algorithm = kPerceptualAlgorithm;
  int k = 0;
  int w = 0;
  int minhash_len = 0;
  int bands = 0;
  int rows = 0;
  uint64_t seed = 0;
  uint32_t config_version = 0;
  size_t tokens = 0;    // canonical tokens in
  size_t shingles = 0;  // rolling shingles made
  size_t winnowed = 0;  // shingles winnowing kept
};

struct PerceptualFingerprint {
  MinHashSignature minhash;  // the part to store and index
  PerceptualMeta meta;
  // Filled only when asked for (debugging, explaining matches).
  std::vector<uint64_t> shingles;
  std::vector<WinnowedShingle> winnowed;
};

// The polynomial rolling hash of every window of k tokens (n - k + 1 of
// them; none when n < k).
std::vector<uint64_t> RollingShingles(std::span<const std::string_view> tokens,
                                      int k, uint64_t seed);

// Winnowing with a monotonic deque: for each window of w shingles (one
// window of all of them when w exceeds their number) the minimum, the
// rightmost on ties, emitted when it differs from the last one emitted.
std::vector<WinnowedShingle> WinnowMinQ(std::span<const uint64_t> shingles,
                                        int w);

// MinHash of `hashes` (duplicates allowed, they change nothing) over
// `slots` slots.
std::vector<uint64_t> PerceptualMinHash(std::span<const uint64_t> hashes,
                                        int slots, uint64_t seed);

// The distinct winnowed hashes of a fingerprint made with intermediates,
// sorted: the set its MinHash summarises.
std::vector<uint64_t> WinnowedSet(const PerceptualFingerprint& fingerprint);

// The whole pipeline. INVALID_ARGUMENT for an invalid config, or "not enough
// tokens" when there are fewer than k.
absl::StatusOr<PerceptualFingerprint> PerceptualizeTokens(
    std::span<const std::string_view> tokens, const PerceptualConfig& config,
    bool include_intermediates = false);

// Text in: canonicalize, split into words ("word-uax29"), perceptualize.
// Thread-safe.
class PerceptualHasher {
 public:
  static absl::StatusOr<PerceptualHasher> Create(
      const PerceptualConfig& config = {},
      const CanonicalizerOptions& canonicalizer = {});

  absl::StatusOr<PerceptualFingerprint> Fingerprint(
      std::string_view text, bool include_intermediates = false) const;
  // The canonical text and its word tokens (views into *canonical), as
  // Fingerprint sees them: for callers that map shingles back to bytes.
  absl::Status CanonicalTokens(std::string_view text, std::string* canonical,
                               std::vector<std::string_view>* tokens) const;

  const PerceptualConfig& config() const { return config_; }
  const Canonicalizer& canonicalizer() const { return canonicalizer_; }
  // "rolling+minq+minhash_v1-k9-w4-h128"
  std::string algorithm() const;
  // ConfigHash(canonicalizer, "word-uax29", algorithm(), xxh3-64, seed).
  uint64_t config_hash() const { return config_hash_; }

 private:
  PerceptualHasher(const PerceptualConfig& config, Canonicalizer canonicalizer);

  PerceptualConfig config_;
  Canonicalizer canonicalizer_;
  std::shared_ptr<const Tokenizer> words_;
  uint64_t config_hash_;
};

}  // namespace neardup

#endif  // NEARDUP_CORE_PERCEPTUAL_H_
