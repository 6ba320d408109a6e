#ifndef NEARDUP_CORE_COLLECTION_CONFIG_H_
#define NEARDUP_CORE_COLLECTION_CONFIG_H_

// Everything that defines a collection: how its documents are fingerprinted
// and indexed. Immutable once a collection is created; the config hashes of
// its fingerprinters are stamped on every stored signature.

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "neardup/core/canonicalizer.h"
#include "neardup/core/hash.h"
#include "neardup/core/index/lsh_params.h"
#include "neardup/core/minhash.h"
#include "neardup/core/simhash.h"

namespace neardup {

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

struct CollectionConfig {
  CanonicalizerOptions canonicalizer;

  // MinHash (always on): tokenizer, H, seed and hash family.
  std::string minhash_tokenizer = "shingle-k=5/word-uax29";
  int num_perm = 128;
  uint64_t seed = kDefaultSeed;
  HashFamily family = HashFamily::kXxh3;
  // Default Jaccard threshold for queries.
  double threshold = 0.8;
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
  // (16, 32 or 64). Fewer bits -> less memory; a 16-bit slot misreads an
  // unequal slot as equal with probability 2^-16.
  int verify_bits = 16;

  // SimHash (optional), over the same canonicalizer, seed and family.
  bool simhash_enabled = false;
  std::string simhash_tokenizer = "word-uax29";
  SimHashWeighting simhash_weighting = SimHashWeighting::kTf;
  int simhash_max_distance = 3;  // Hamming radius the index is built for

  // Keep each document's text in the store, to return it (exact Jaccard
  // does not need it).
  bool store_text = false;

  bool operator==(const CollectionConfig&) const = default;
};

// threshold - 0.1, but never below half the threshold (so it stays > 0).
double DefaultMinThreshold(double threshold);

// Checks every field and fills derived ones (min_threshold, lsh).
// INVALID_ARGUMENT names the offending field.
absl::StatusOr<CollectionConfig> NormalizeCollectionConfig(
    CollectionConfig config);

// The fingerprinter configs a collection's documents are made with.
MinHashConfig MinHashConfigOf(const CollectionConfig& config);
SimHashConfig SimHashConfigOf(const CollectionConfig& config);

}  // namespace neardup

#endif  // NEARDUP_CORE_COLLECTION_CONFIG_H_
