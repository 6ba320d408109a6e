#ifndef NEARDUP_CORE_COLLECTION_CONFIG_H_
#define NEARDUP_CORE_COLLECTION_CONFIG_H_

// Everything that defines a collection: how its documents are fingerprinted
// and indexed. Immutable once a collection is created; the config hashes of
// its fingerprinters are stamped on every stored signature.

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "neardup/core/canonicalizer.h"
#include "neardup/core/hash.h"
#include "neardup/core/index/lsh_params.h"
#include "neardup/core/minhash.h"
#include "neardup/core/simhash.h"

namespace neardup {

struct CollectionConfig {
  CanonicalizerOptions canonicalizer;

  // MinHash (always on): tokenizer, H, seed and hash family.
  std::string minhash_tokenizer = "shingle-k=5/word-uax29";
  int num_perm = 128;
  uint64_t seed = kDefaultSeed;
  HashFamily family = HashFamily::kXxh3;
  // Default Jaccard threshold for queries; also picks bands x rows when
  // `lsh` is left at {0, 0}.
  double threshold = 0.8;
  LshParams lsh = {0, 0};
  // Bits of each MinHash slot the in-memory index keeps for scoring
  // (16, 32 or 64). Fewer bits -> less memory; a 16-bit slot misreads an
  // unequal slot as equal with probability 2^-16.
  int verify_bits = 16;

  // SimHash (optional), over the same canonicalizer, seed and family.
  bool simhash_enabled = false;
  std::string simhash_tokenizer = "word-uax29";
  SimHashWeighting simhash_weighting = SimHashWeighting::kTf;
  int simhash_max_distance = 3;  // Hamming radius the index is built for

  // Keep each document's text in the store (enables exact Jaccard).
  bool store_text = false;

  bool operator==(const CollectionConfig&) const = default;
};

// Checks every field and fills derived ones (lsh from threshold).
// INVALID_ARGUMENT names the offending field.
absl::StatusOr<CollectionConfig> NormalizeCollectionConfig(
    CollectionConfig config);

// The fingerprinter configs a collection's documents are made with.
MinHashConfig MinHashConfigOf(const CollectionConfig& config);
SimHashConfig SimHashConfigOf(const CollectionConfig& config);

}  // namespace neardup

#endif  // NEARDUP_CORE_COLLECTION_CONFIG_H_
