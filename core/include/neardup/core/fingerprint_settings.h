#ifndef NEARDUP_CORE_FINGERPRINT_SETTINGS_H_
#define NEARDUP_CORE_FINGERPRINT_SETTINGS_H_

// The one vocabulary of fingerprint settings. The CLI's flags, the server's
// FingerprintConfig and offline dedup all fill this struct and turn it into
// fingerprinter configs here, so the same words and numbers give the same
// config (and config_hash) everywhere.

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "neardup/core/canonicalizer.h"
#include "neardup/core/collection_config.h"
#include "neardup/core/hash.h"
#include "neardup/core/minhash.h"
#include "neardup/core/perceptual.h"
#include "neardup/core/simhash.h"

namespace neardup {

struct FingerprintSettings {
  CanonicalizerOptions canonicalizer;
  // Base tokenizer: word (UAX #29 words), grapheme or cjk (ICU dictionary
  // segmentation), or a full name such as "word-uax29".
  std::string tokenizer = "word";
  // Tokens per shingle, in [0, kMaxShingleK]. 0: the algorithm's default
  // (MinHash: 5-token shingles; SimHash: plain tokens). 1: plain tokens.
  int shingle_k = 0;
  int num_perm = 128;  // MinHash slots: 64, 128 or 256
  uint64_t seed = kDefaultSeed;
  HashFamily family = HashFamily::kXxh3;
  SimHashWeighting weighting = SimHashWeighting::kTf;  // SimHash only
};

inline constexpr int kDefaultMinHashShingleK = 5;

// "word" -> "word-uax29", "grapheme" -> "grapheme-uax29", "cjk" ->
// "cjk-icu"; full base names pass through. INVALID_ARGUMENT otherwise.
absl::StatusOr<std::string> BaseTokenizerName(std::string_view name);
// The tokenizer name for k-token shingles of `base`: k == 1 is `base`
// itself (so plain tokens have one name and one config hash).
absl::StatusOr<std::string> ShingledTokenizerName(std::string_view base, int k);
// The inverse for names made by ShingledTokenizerName: {base, k}.
struct SplitTokenizer {
  std::string base;
  int shingle_k = 1;
};
absl::StatusOr<SplitTokenizer> SplitTokenizerName(std::string_view name);

// Decimal or 0x-prefixed hexadecimal, at most 64 bits.
absl::StatusOr<uint64_t> ParseSeed(std::string_view text);
// nfkc, nfc or none.
absl::StatusOr<Normalization> ParseNormalization(std::string_view name);
// full (also "simple", txtfp's name) or none.
absl::StatusOr<CaseFold> ParseCaseFold(std::string_view name);

absl::StatusOr<MinHashConfig> MinHashConfigOf(
    const FingerprintSettings& settings);
// With shingle_k 0 (the default) SimHash runs over the plain base tokens.
absl::StatusOr<SimHashConfig> SimHashConfigOf(
    const FingerprintSettings& settings);

// UCFP's perceptual config from the settings: k = shingle_k (0 means 9),
// w = winnow_window, num_perm / 8 bands of 8 rows, the seed. Checked by
// ValidatePerceptualConfig, not here.
PerceptualConfig PerceptualConfigOf(const FingerprintSettings& settings,
                                    int winnow_window);

// The fingerprint fields of a collection's config: the MinHash as
// MinHashConfigOf, the SimHash over the plain base tokens (a collection's
// SimHash is never shingled). The other fields keep their defaults;
// NormalizeCollectionConfig checks the result.
absl::StatusOr<CollectionConfig> CollectionConfigOf(
    const FingerprintSettings& settings);

}  // namespace neardup

#endif  // NEARDUP_CORE_FINGERPRINT_SETTINGS_H_
