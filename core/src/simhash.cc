#include "neardup/core/simhash.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/scratch.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/config_hash.h"
#include "neardup/core/enum_tables.h"
#include "neardup/core/internal/token_hashing.h"

namespace neardup {
namespace {

absl::Status EmptyDocument() {
  return absl::InvalidArgumentError("empty document: no tokens to fingerprint");
}

int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) {
    return b > 0 ? std::numeric_limits<int64_t>::max()
                 : std::numeric_limits<int64_t>::min();
  }
  return r;
}

uint64_t BitsFromCounters(const int64_t (&acc)[64]) {
  uint64_t out = 0;
  for (int b = 0; b < 64; ++b) {
    if (acc[b] > 0) out |= uint64_t{1} << b;
  }
  return out;
}

// kSpread[v] has byte i set to bit i of v: adding it to a u64 bumps eight
// byte-wide counters at once.
constexpr std::array<uint64_t, 256> MakeSpread() {
  std::array<uint64_t, 256> t{};
  for (int v = 0; v < 256; ++v) {
    for (int i = 0; i < 8; ++i) t[v] |= uint64_t((v >> i) & 1) << (8 * i);
  }
  return t;
}
constexpr std::array<uint64_t, 256> kSpread = MakeSpread();

// Tf: +1 per set bit, -1 per clear bit, per occurrence. Counting ones is the
// same sum without saturation, which +-1 steps can never reach. Ones are
// counted in byte lanes, flushed before a lane can overflow.
uint64_t TfSimHash(const std::vector<Hash128>& hashes) {
  uint64_t ones[64] = {};
  uint64_t lanes[8] = {};
  int pending = 0;
  auto flush = [&] {
    for (int j = 0; j < 8; ++j) {
      for (int i = 0; i < 8; ++i)
        ones[8 * j + i] += (lanes[j] >> (8 * i)) & 0xFF;
      lanes[j] = 0;
    }
    pending = 0;
  };
  for (const Hash128& h : hashes) {
    for (int j = 0; j < 8; ++j) lanes[j] += kSpread[(h.lo >> (8 * j)) & 0xFF];
    if (++pending == 255) flush();
  }
  flush();
  int64_t acc[64];
  const int64_t n = static_cast<int64_t>(hashes.size());
  for (int b = 0; b < 64; ++b) acc[b] = 2 * static_cast<int64_t>(ones[b]) - n;
  return BitsFromCounters(acc);
}

struct WeightedToken {
  Hash128 hash;
  float idf;
};

// Uniform / IDF: one term per distinct token, weight from its count. Tokens
// are de-duplicated by their 128-bit hash and visited in hash order, so the
// (saturating) sums are deterministic.
uint64_t DistinctSimHash(std::vector<WeightedToken>& tokens, bool idf) {
  std::sort(tokens.begin(), tokens.end(),
            [](const WeightedToken& a, const WeightedToken& b) {
              return a.hash.lo != b.hash.lo ? a.hash.lo < b.hash.lo
                                            : a.hash.hi < b.hash.hi;
            });
  int64_t acc[64] = {};
  for (size_t i = 0; i < tokens.size();) {
    size_t j = i + 1;
    while (j < tokens.size() && tokens[j].hash == tokens[i].hash) ++j;
    int64_t w = 1;
    if (idf) {
      const double tf = static_cast<double>(j - i);
      const double x =
          std::clamp(tf * static_cast<double>(tokens[i].idf), -1e15, 1e15);
      w = static_cast<int64_t>(std::trunc(x));
    }
    const uint64_t lo = tokens[i].hash.lo;
    for (int b = 0; b < 64; ++b) {
      acc[b] = SaturatingAdd(acc[b], ((lo >> b) & 1) ? w : -w);
    }
    i = j;
  }
  return BitsFromCounters(acc);
}

}  // namespace

std::string_view SimHashWeightingName(SimHashWeighting w) {
  return kSimHashWeightings.Name(w);
}

absl::StatusOr<SimHashWeighting> ParseSimHashWeighting(std::string_view name) {
  return kSimHashWeightings.Parse(name);
}

SimHasher::SimHasher(SimHashConfig config, Canonicalizer canonicalizer,
                     std::shared_ptr<const Tokenizer> tokenizer)
    : config_(std::move(config)),
      canonicalizer_(std::move(canonicalizer)),
      tokenizer_(std::move(tokenizer)) {
  config_hash_ = ConfigHash(canonicalizer_.ConfigString(), tokenizer_->Name(),
                            algorithm(), config_.family, config_.seed);
}

absl::StatusOr<SimHasher> SimHasher::Create(const SimHashConfig& config) {
  if (config.weighting == SimHashWeighting::kIdf && config.idf == nullptr) {
    return absl::InvalidArgumentError(
        "idf-weighted SimHash needs an IDF table");
  }
  ASSIGN_OR_RETURN(Canonicalizer canonicalizer,
                   Canonicalizer::Create(config.canonicalizer));
  ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> tokenizer,
                   MakeTokenizer(config.tokenizer));
  SimHashConfig normalized = config;
  normalized.tokenizer = tokenizer->Name();
  return SimHasher(std::move(normalized), std::move(canonicalizer),
                   std::shared_ptr<const Tokenizer>(std::move(tokenizer)));
}

std::string SimHasher::algorithm() const {
  return absl::StrCat("simhash-b64-",
                      AbslView(SimHashWeightingName(config_.weighting)));
}

absl::StatusOr<uint64_t> SimHasher::Fingerprint(std::string_view text) const {
  ASSIGN_OR_RETURN(std::string_view canonical,
                   internal::CanonicalizeToScratch(canonicalizer_, text));
  return FingerprintCanonical(canonical);
}

absl::StatusOr<uint64_t> SimHasher::FingerprintCanonical(
    std::string_view canonical) const {
  if (config_.weighting == SimHashWeighting::kTf) {
    std::vector<Hash128>& hashes = internal::TokenHashScratch(canonical.size());
    hashes.clear();
    internal::HashTokens(*tokenizer_, config_.family, config_.seed, canonical,
                         &hashes);
    if (hashes.empty()) return EmptyDocument();
    return TfSimHash(hashes);
  }
  const bool idf = config_.weighting == SimHashWeighting::kIdf;
  thread_local std::vector<WeightedToken> tokens;
  TrimScratch(tokens, canonical.size());
  tokens.clear();
  internal::ForEachHashedToken(
      *tokenizer_, config_.family, config_.seed, canonical,
      [&](std::string_view token, const Hash128& h) {
        tokens.push_back({h, idf ? config_.idf->Lookup(token) : 1.0f});
      });
  if (tokens.empty()) return EmptyDocument();
  return DistinctSimHash(tokens, idf);
}

double CosineEstimate(uint64_t a, uint64_t b) {
  return SimHashSimilarity(Hamming(a, b));
}

double SimHashSimilarity(int hamming) {
  return std::cos(std::numbers::pi * hamming / 64.0);
}

}  // namespace neardup
