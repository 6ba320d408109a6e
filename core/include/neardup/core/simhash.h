#ifndef NEARDUP_CORE_SIMHASH_H_
#define NEARDUP_CORE_SIMHASH_H_

// 64-bit SimHash (Charikar 2002), byte-compatible with txtfp's SimHash64.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "neardup/core/canonicalizer.h"
#include "neardup/core/hash.h"
#include "neardup/core/tokenizer.h"

namespace neardup {

enum class SimHashWeighting {
  kTf,       // +-1 per occurrence (default)
  kUniform,  // +-1 per distinct token
  kIdf,      // +-trunc(clamp(tf * idf, +-1e15)) per distinct token
};

std::string_view SimHashWeightingName(SimHashWeighting w);  // "tf", ...
absl::StatusOr<SimHashWeighting> ParseSimHashWeighting(std::string_view name);

// Inverse document frequencies keyed by canonical token. Tokens not in the
// table weigh idf = 1.0.
class IdfTable {
 public:
  void Set(std::string_view token, float idf) {
    idf_[std::string(token)] = idf;
  }
  float Lookup(std::string_view token) const {
    auto it = idf_.find(absl::string_view(token.data(), token.size()));
    return it == idf_.end() ? 1.0f : it->second;
  }
  size_t size() const { return idf_.size(); }

 private:
  absl::flat_hash_map<std::string, float> idf_;
};

struct SimHashConfig {
  CanonicalizerOptions canonicalizer;
  std::string tokenizer = "word-uax29";  // plain words by default
  SimHashWeighting weighting = SimHashWeighting::kTf;
  uint64_t seed = kDefaultSeed;
  HashFamily family = HashFamily::kXxh3;
  // Required when weighting == kIdf. Not part of the config hash (as in
  // txtfp): keep the table fixed for a collection.
  std::shared_ptr<const IdfTable> idf;
};

// Thread-safe; build once and share.
class SimHasher {
 public:
  static absl::StatusOr<SimHasher> Create(const SimHashConfig& config = {});

  // Errors: INVALID_ARGUMENT for invalid UTF-8 or no tokens.
  absl::StatusOr<uint64_t> Fingerprint(std::string_view text) const;
  absl::StatusOr<uint64_t> FingerprintCanonical(
      std::string_view canonical) const;

  const SimHashConfig& config() const { return config_; }
  const Canonicalizer& canonicalizer() const { return canonicalizer_; }
  const Tokenizer& tokenizer() const { return *tokenizer_; }
  std::string algorithm() const;  // "simhash-b64-tf"
  uint64_t config_hash() const { return config_hash_; }

 private:
  SimHasher(SimHashConfig config, Canonicalizer canonicalizer,
            std::shared_ptr<const Tokenizer> tokenizer);

  SimHashConfig config_;
  Canonicalizer canonicalizer_;
  std::shared_ptr<const Tokenizer> tokenizer_;
  uint64_t config_hash_;
};

// Number of differing bits, 0..64.
inline int Hamming(uint64_t a, uint64_t b) {
  return __builtin_popcountll(a ^ b);
}
// cos(pi * hamming / 64), in [-1, 1].
double CosineEstimate(uint64_t a, uint64_t b);
// The same from a Hamming distance: cos(pi * hamming / 64). The one
// similarity of SimHash matches, in the server and in dedup's clusters.
double SimHashSimilarity(int hamming);

}  // namespace neardup

#endif  // NEARDUP_CORE_SIMHASH_H_
