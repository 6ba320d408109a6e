#ifndef NEARDUP_CORE_STATELESS_H_
#define NEARDUP_CORE_STATELESS_H_

// Fingerprinting and comparing texts without a collection: what the
// server's Fingerprint and Compare calls and the CLI's `fingerprint` and
// `compare` compute, once. Each of them renders the result its own way.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "neardup/core/collection_config.h"
#include "neardup/core/fingerprint_settings.h"
#include "neardup/core/kept_family.h"
#include "neardup/core/minhash.h"
#include "neardup/core/newsbot_simhash.h"
#include "neardup/core/perceptual.h"
#include "neardup/core/tlsh.h"

namespace neardup {

// What a stateless call computes (the API's FingerprintKind, the CLI's
// --kind).
enum class FingerprintKind {
  // What a collection of the config stores: its MinHash, its SimHash when
  // on, its kept families. Compare always adds the SimHash and tries every
  // kept family.
  kCollection,
  kMinHash,     // the settings' MinHash (a shingled collection's)
  kSimHash,     // the settings' SimHash (over shingles when shingle_k > 1)
  kTlsh,        // TLSH of the canonical text
  kTlshRaw,     // TLSH of the bytes as they are
  kNewsbot,     // newsbot's MD5 SimHash, newsbot_bits wide
  kPerceptual,  // UCFP's winnowed MinHash, k = shingle_k (0: 9)
};

struct StatelessOptions {
  FingerprintKind kind = FingerprintKind::kCollection;
  FingerprintSettings settings;
  // kCollection only: the collection's config, families included (it is
  // normalized first). Unset: CollectionConfigOf(settings), a shingled
  // collection without SimHash or TLSH.
  std::optional<CollectionConfig> collection;
  int newsbot_bits = kDefaultNewsbotBits;    // kNewsbot: 16, 32, 64 or 128
  int winnow_window = kDefaultWinnowWindow;  // kPerceptual: [1, 1024]
};

// A text and the name its errors carry: "a", "text", a file's path.
struct NamedText {
  std::string_view name;
  std::string_view text;
};

struct TextFingerprint {
  // kCollection, kMinHash, kPerceptual. shingle_count: the distinct
  // shingles (winnowed ones for perceptual) the signature summarises.
  std::optional<MinHashSignature> minhash;
  uint64_t minhash_config_hash = 0;
  size_t shingle_count = 0;
  std::string minhash_tokenizer;  // e.g. "shingle-k=5/word-uax29"; not
                                  // for kPerceptual (see perceptual)
  // kCollection (SimHash on), kSimHash.
  std::optional<uint64_t> simhash;
  uint64_t simhash_config_hash = 0;
  std::string simhash_tokenizer;
  // kCollection: each kept family's value, or why the text has none (too
  // short, too uniform...): a reason, not an error.
  std::vector<KeptValue> kept;
  std::vector<KeptUnavailable> kept_unavailable;
  // kTlsh, kTlshRaw, and kCollection when it keeps "tlsh" (the same value
  // as in `kept`; the API has carried these fields since before kept
  // families).
  std::optional<TlshDigest> tlsh;
  uint64_t tlsh_config_hash = 0;
  std::string tlsh_unavailable;
  // kNewsbot, with the number of newsbot tokens hashed.
  std::optional<NewsbotFingerprint> newsbot;
  uint64_t newsbot_config_hash = 0;
  size_t newsbot_tokens = 0;
  // kPerceptual: the winnowing's figures.
  std::optional<PerceptualMeta> perceptual;
  // The kind's fingerprinter: algorithm name and canonicalizer config
  // string ("raw" for kTlshRaw).
  std::string algorithm;
  std::string canonicalizer;
};

struct TextComparison {
  // MinHash kinds: the signatures' estimate and the exact Jaccard of the
  // shingle sets (winnowed ones for perceptual).
  std::optional<double> estimated_jaccard;
  std::optional<double> exact_jaccard;
  // SimHash kinds (and kCollection): Hamming distance and cos(pi d / bits).
  std::optional<int> hamming_distance;
  std::optional<double> cosine_estimate;
  // kCollection: each kept family's distance where both texts have a value
  // (otherwise kept_unavailable says why, "a: ..." or "b: ...").
  std::vector<KeptDistance> kept_distances;
  std::vector<KeptUnavailable> kept_unavailable;
  // TLSH kinds, and kCollection where both texts have one (otherwise
  // tlsh_unavailable says why).
  std::optional<int> tlsh_distance;
  std::optional<int> tlsh_distance_without_length;
  std::string tlsh_unavailable;
  TextFingerprint a, b;
};

// INVALID_ARGUMENT for bad options (naming the setting) or a text the kind
// cannot fingerprint (prefixed with its name: "a: empty document").
absl::StatusOr<TextFingerprint> FingerprintText(const StatelessOptions& options,
                                                NamedText text);
absl::StatusOr<TextComparison> CompareTexts(const StatelessOptions& options,
                                            NamedText a, NamedText b);

}  // namespace neardup

#endif  // NEARDUP_CORE_STATELESS_H_
