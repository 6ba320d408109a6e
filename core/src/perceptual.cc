#include "neardup/core/perceptual.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/config_hash.h"
#include "neardup/core/internal/inline_hash.h"
#include "neardup/core/internal/minhash_kernel.h"

namespace neardup {
namespace {

constexpr uint64_t kMersenne61 = (uint64_t{1} << 61) - 1;
constexpr int kMaxK = 64;
constexpr int kMaxW = 1024;
constexpr int kMaxSlots = 1024;

uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// a mod p for a < 2^64, p = 2^61 - 1.
uint64_t Reduce61(uint64_t a) {
  uint64_t r = (a & kMersenne61) + (a >> 61);
  return r >= kMersenne61 ? r - kMersenne61 : r;
}

// a * b mod p for a, b < p.
uint64_t MulMod61(uint64_t a, uint64_t b) {
  const unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
  const uint64_t low = static_cast<uint64_t>(product) & kMersenne61;
  const uint64_t high = static_cast<uint64_t>(product >> 61);
  return Reduce61(low + high);
}

uint64_t AddMod61(uint64_t a, uint64_t b) { return Reduce61(a + b); }
uint64_t SubMod61(uint64_t a, uint64_t b) {
  return a >= b ? a - b : a + kMersenne61 - b;
}

// The rolling hash's base: from the seed, at least 2^32 so that short
// windows do not stay small.
uint64_t BaseOf(uint64_t seed) {
  uint64_t state = seed;
  const uint64_t base = Reduce61(SplitMix64(&state));
  return base < (uint64_t{1} << 32) ? base + (uint64_t{1} << 32) : base;
}

uint64_t TokenValue(std::string_view token, uint64_t seed) {
  return Reduce61(XXH3_64bits_withSeed(token.data(), token.size(), seed));
}

}  // namespace

absl::Status ValidatePerceptualConfig(const PerceptualConfig& config) {
  if (config.version != kPerceptualVersion) {
    return absl::InvalidArgumentError(absl::StrCat(
        "perceptual version ", config.version,
        " is not supported; this build has version ", kPerceptualVersion));
  }
  if (config.k < 1 || config.k > kMaxK) {
    return absl::InvalidArgumentError(absl::StrCat(
        "perceptual k must be in [1, ", kMaxK, "], got ", config.k));
  }
  if (config.w < 1 || config.w > kMaxW) {
    return absl::InvalidArgumentError(absl::StrCat(
        "perceptual w must be in [1, ", kMaxW, "], got ", config.w));
  }
  if (config.bands < 1 || config.rows < 1 ||
      static_cast<int64_t>(config.bands) * config.rows > kMaxSlots) {
    return absl::InvalidArgumentError(absl::StrCat(
        "perceptual bands and rows must be >= 1 with bands * rows <= ",
        kMaxSlots, ", got ", config.bands, " x ", config.rows));
  }
  return absl::OkStatus();
}

std::vector<uint64_t> RollingShingles(std::span<const std::string_view> tokens,
                                      int k, uint64_t seed) {
  std::vector<uint64_t> out;
  if (k < 1 || tokens.size() < static_cast<size_t>(k)) return out;
  out.reserve(tokens.size() - k + 1);
  const uint64_t base = BaseOf(seed);
  uint64_t top = 1;  // base^(k-1): the weight of the token leaving
  for (int i = 1; i < k; ++i) top = MulMod61(top, base);
  uint64_t h = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (i >= static_cast<size_t>(k)) {
      h = SubMod61(h, MulMod61(TokenValue(tokens[i - k], seed), top));
    }
    h = AddMod61(MulMod61(h, base), TokenValue(tokens[i], seed));
    if (i + 1 >= static_cast<size_t>(k)) {
      out.push_back(internal::Fmix64(h));
    }
  }
  return out;
}

std::vector<WinnowedShingle> WinnowMinQ(std::span<const uint64_t> shingles,
                                        int w) {
  std::vector<WinnowedShingle> out;
  const size_t n = shingles.size();
  if (n == 0) return out;
  const size_t window = std::clamp<size_t>(static_cast<size_t>(w), 1, n);
  std::deque<size_t> candidates;  // indices, hashes non-decreasing
  size_t last_emitted = std::numeric_limits<size_t>::max();
  for (size_t i = 0; i < n; ++i) {
    // Out of the window [i - window + 1, i].
    while (!candidates.empty() && candidates.front() + window <= i) {
      candidates.pop_front();
    }
    // A newer hash that is no larger wins: rightmost minimum on ties.
    while (!candidates.empty() && shingles[candidates.back()] >= shingles[i]) {
      candidates.pop_back();
    }
    candidates.push_back(i);
    if (i + 1 >= window && candidates.front() != last_emitted) {
      last_emitted = candidates.front();
      out.push_back({shingles[last_emitted], last_emitted});
    }
  }
  return out;
}

std::vector<uint64_t> PerceptualMinHash(std::span<const uint64_t> hashes,
                                        int slots, uint64_t seed) {
  // Two keyed mixes of each hash feed the MinHash kernel (the AVX2 one where
  // the CPU has it): slot i takes the minimum of lo + i * hi.
  uint64_t state = seed ^ 0x5045524345505455ull;  // "PERCEPTU"
  const uint64_t key_lo = SplitMix64(&state);
  const uint64_t key_hi = SplitMix64(&state);
  std::vector<Hash128> doubled;
  doubled.reserve(hashes.size());
  for (uint64_t x : hashes) {
    doubled.push_back(
        {internal::Fmix64(x ^ key_lo), internal::Fmix64(x ^ key_hi) | 1});
  }
  std::vector<uint64_t> out(std::max(slots, 0));
  internal::MinHashSlots(doubled.data(), doubled.size(),
                         static_cast<int>(out.size()), out.data());
  return out;
}

std::vector<uint64_t> WinnowedSet(const PerceptualFingerprint& fingerprint) {
  std::vector<uint64_t> set;
  set.reserve(fingerprint.winnowed.size());
  for (const WinnowedShingle& s : fingerprint.winnowed) set.push_back(s.hash);
  std::sort(set.begin(), set.end());
  set.erase(std::unique(set.begin(), set.end()), set.end());
  return set;
}

absl::StatusOr<PerceptualFingerprint> PerceptualizeTokens(
    std::span<const std::string_view> tokens, const PerceptualConfig& config,
    bool include_intermediates) {
  RETURN_IF_ERROR(ValidatePerceptualConfig(config));
  if (tokens.size() < static_cast<size_t>(config.k)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "not enough tokens for a perceptual fingerprint: ", tokens.size(),
        " < k = ", config.k));
  }
  std::vector<uint64_t> shingles =
      RollingShingles(tokens, config.k, config.seed);
  std::vector<WinnowedShingle> winnowed = WinnowMinQ(shingles, config.w);
  std::vector<uint64_t> unique;
  unique.reserve(winnowed.size());
  for (const WinnowedShingle& s : winnowed) unique.push_back(s.hash);
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());

  PerceptualFingerprint fp;
  fp.minhash.slots =
      PerceptualMinHash(unique, config.minhash_len(), config.seed);
  PerceptualMeta& meta = fp.meta;
  meta.k = config.k;
  meta.w = config.w;
  meta.minhash_len = config.minhash_len();
  meta.bands = config.bands;
  meta.rows = config.rows;
  meta.seed = config.seed;
  meta.config_version = config.version;
  meta.tokens = tokens.size();
  meta.shingles = shingles.size();
  meta.winnowed = winnowed.size();
  if (include_intermediates) {
    fp.shingles = std::move(shingles);
    fp.winnowed = std::move(winnowed);
  }
  return fp;
}

absl::StatusOr<PerceptualHasher> PerceptualHasher::Create(
    const PerceptualConfig& config, const CanonicalizerOptions& canonicalizer) {
  RETURN_IF_ERROR(ValidatePerceptualConfig(config));
  ASSIGN_OR_RETURN(Canonicalizer canon, Canonicalizer::Create(canonicalizer));
  return PerceptualHasher(config, std::move(canon));
}

PerceptualHasher::PerceptualHasher(const PerceptualConfig& config,
                                   Canonicalizer canonicalizer)
    : config_(config),
      canonicalizer_(std::move(canonicalizer)),
      words_(MakeWordTokenizer()),
      config_hash_(ConfigHash(canonicalizer_.ConfigString(), words_->Name(),
                              algorithm(), HashFamily::kXxh3, config.seed)) {}

std::string PerceptualHasher::algorithm() const {
  return absl::StrCat(kPerceptualAlgorithm, "-k", config_.k, "-w", config_.w,
                      "-h", config_.minhash_len());
}

absl::Status PerceptualHasher::CanonicalTokens(
    std::string_view text, std::string* canonical,
    std::vector<std::string_view>* tokens) const {
  RETURN_IF_ERROR(canonicalizer_.CanonicalizeInto(text, canonical));
  tokens->clear();
  if (!words_->CollectTokenViews(*canonical, tokens)) {
    return absl::InternalError("the word tokenizer does not give views");
  }
  return absl::OkStatus();
}

absl::StatusOr<PerceptualFingerprint> PerceptualHasher::Fingerprint(
    std::string_view text, bool include_intermediates) const {
  std::string canonical;
  std::vector<std::string_view> tokens;
  RETURN_IF_ERROR(CanonicalTokens(text, &canonical, &tokens));
  return PerceptualizeTokens(tokens, config_, include_intermediates);
}

}  // namespace neardup
