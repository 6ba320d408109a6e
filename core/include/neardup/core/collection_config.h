#ifndef NEARDUP_CORE_COLLECTION_CONFIG_H_
#define NEARDUP_CORE_COLLECTION_CONFIG_H_

// Everything that defines a collection: how its documents are fingerprinted
// and indexed. Immutable once a collection is created; the config hashes of
// its fingerprinters are stamped on every stored signature.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "neardup/core/canonicalizer.h"
#include "neardup/core/chunking.h"
#include "neardup/core/hash.h"
#include "neardup/core/index/lsh_params.h"
#include "neardup/core/minhash.h"
#include "neardup/core/perceptual.h"
#include "neardup/core/simhash.h"

namespace neardup {

// How a collection's MinHash signature is made.
enum class MinHashAlgorithm {
  // txtfp's: every k-token shingle of the canonical text (the default).
  kShingled,
  // UCFP's perceptual fingerprint: rolling-hash shingles of k words, winnowed
  // with a window of winnow_window shingles, then MinHash (perceptual.h).
  kPerceptual,
};

// "shingled" or "perceptual".
std::string_view MinHashAlgorithmName(MinHashAlgorithm algorithm);
absl::StatusOr<MinHashAlgorithm> ParseMinHashAlgorithm(std::string_view name);

// Which 64-bit SimHash a collection computes.
enum class SimHashVariant {
  // txtfp's SimHash64 over the canonicalizer and tokenizer (the default).
  kTxtfp,
  // newsbot's: lowercase ASCII alphanumeric tokens of the text as sent, MD5
  // per token (newsbot_simhash.h). Canonicalizer and weighting do not apply.
  kNewsbot,
};

// "txtfp" or "newsbot".
std::string_view SimHashVariantName(SimHashVariant variant);
absl::StatusOr<SimHashVariant> ParseSimHashVariant(std::string_view name);

// What decides a MinHash match against the threshold.
enum class Verification {
  // Exact Jaccard of the shingle-hash sets kept for every text document
  // (documents upserted as signatures fall back to the estimate).
  kExact,
  // The MinHash estimate (fraction of equal slots).
  kEstimate,
};

// "exact" or "estimate".
std::string_view VerificationName(Verification verification);
absl::StatusOr<Verification> ParseVerification(std::string_view name);

// A collection's embedding space: float vectors made by the client's model
// (or a local one), compared by cosine. Off while dim is 0.
struct EmbeddingSpace {
  // Names the model that makes the vectors, 1..256 printable ASCII bytes;
  // every stored vector is tagged with it, and a vector from another model
  // is refused like a foreign config hash.
  std::string model_id;
  int dim = 0;  // 1..4096; 0: no embedding space
  // Semantic queries walk HNSW graphs (approximate, fast on large
  // collections) instead of scoring every vector (exact, the default).
  bool hnsw = false;
  // The HNSW graph: links per node (4..64), candidates kept while building
  // (m..4096) and while searching (16..4096). Defaults without hnsw.
  int hnsw_m = 16;
  int ef_construction = 200;
  int ef_search = 128;
  // The cosine a semantic query asks for when it names none, in (-1, 1].
  double min_cosine = 0.9;
  // Local embeddings: a fastText model file, relative to the server's
  // --models-dir. The server then embeds texts itself (chunked, mean-pooled)
  // and model_id and dim come from the file. Empty: vectors come with the
  // requests.
  std::string fasttext_model;
  ChunkingOptions chunking;  // with fasttext_model

  bool enabled() const { return dim > 0; }
  bool operator==(const EmbeddingSpace&) const = default;
};

// A collection's defaults, which the CLI's flags and the API's zeros take.
inline constexpr double kDefaultThreshold = 0.8;
inline constexpr int kDefaultSimHashMaxDistance = 3;

struct CollectionConfig {
  CanonicalizerOptions canonicalizer;

  // MinHash (always on): algorithm, tokenizer, H, seed and hash family.
  MinHashAlgorithm minhash_algorithm = MinHashAlgorithm::kShingled;
  // Perceptual: the tokenizer is k-word shingles of "word-uax29" (k is the
  // rolling window) and the family XXH3.
  std::string minhash_tokenizer = "shingle-k=5/word-uax29";
  int num_perm = 128;
  uint64_t seed = kDefaultSeed;
  HashFamily family = HashFamily::kXxh3;
  // Default Jaccard threshold for queries.
  double threshold = kDefaultThreshold;
  // Recall floor: the lowest threshold a query may ask for. 0 picks
  // DefaultMinThreshold(threshold), or the threshold itself when the banding
  // is given or txtfp's. With the recall-first rule the banding finds a pair
  // at the floor with probability >= kRecallFloorProbability.
  double min_threshold = 0;
  BandingRule banding = BandingRule::kRecallFirst;
  // {0, 0}: chosen by `banding`. Explicit bands x rows win.
  LshParams lsh = {0, 0};
  Verification verification = Verification::kExact;
  // Bits of each MinHash slot the in-memory index keeps for scoring
  // (8, 16, 32 or 64). Fewer bits -> less memory; a b-bit slot misreads an
  // unequal slot as equal with probability 2^-b, so scores only err upward.
  // 0 before normalization: 8 with exact verification (the score is only
  // the filter before the shingle sets decide), 16 with estimate (the
  // score decides).
  int slot_bits = 0;
  // Bits of each shingle hash the exact evidence keeps: 32 or 64
  // (shingle_set.h). 0 before normalization means 32; collections created
  // before the width existed read as 64.
  int evidence_bits = 0;
  // Perceptual only: the winnowing window in shingles, 1..1024 (0 before
  // normalization means 4). 0 for shingled MinHash.
  int winnow_window = 0;

  // SimHash (optional), over the same canonicalizer, seed and family.
  bool simhash_enabled = false;
  std::string simhash_tokenizer = "word-uax29";
  SimHashWeighting simhash_weighting = SimHashWeighting::kTf;
  // Hamming radius the index is built for.
  int simhash_max_distance = kDefaultSimHashMaxDistance;
  SimHashVariant simhash_variant = SimHashVariant::kTxtfp;

  // The kept families (kept_family.h) of every text document, by name,
  // sorted and distinct once normalized: matches report each one's distance
  // to the probe. Not indexed.
  std::vector<std::string> kept_families;

  // Keep each document's text in the store, to return it (exact Jaccard
  // does not need it).
  bool store_text = false;

  // Semantic near-duplicates: every document then carries an embedding.
  EmbeddingSpace embedding;

  bool operator==(const CollectionConfig&) const = default;
  bool Keeps(std::string_view family) const;
};

// threshold - 0.1, but never below half the threshold (so it stays > 0).
double DefaultMinThreshold(double threshold);

// slot_bits when a config leaves it 0: 8 with exact verification, 16 with
// estimate.
int DefaultSlotBits(Verification verification);

// The config's evidence_bits, 0 read as normalization reads it (32).
int EvidenceBitsOf(const CollectionConfig& config);

// Checks every field and fills derived ones (min_threshold, lsh).
// INVALID_ARGUMENT names the offending field.
absl::StatusOr<CollectionConfig> NormalizeCollectionConfig(
    CollectionConfig config);

// The fingerprinter configs a collection's documents are made with (for
// shingled MinHash and neardup's SimHash; CollectionFingerprinter picks).
MinHashConfig MinHashConfigOf(const CollectionConfig& config);
SimHashConfig SimHashConfigOf(const CollectionConfig& config);
// The perceptual config of a normalized perceptual collection: k from its
// tokenizer, w = winnow_window, num_perm / 8 bands of 8 rows, its seed.
PerceptualConfig PerceptualConfigOf(const CollectionConfig& config);

}  // namespace neardup

#endif  // NEARDUP_CORE_COLLECTION_CONFIG_H_
