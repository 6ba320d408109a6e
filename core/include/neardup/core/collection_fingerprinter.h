#ifndef NEARDUP_CORE_COLLECTION_FINGERPRINTER_H_
#define NEARDUP_CORE_COLLECTION_FINGERPRINTER_H_

// Everything a collection computes from a text, whichever families its config
// picks: shingled or perceptual MinHash (with its exact evidence), neardup's
// or newsbot's SimHash, and its kept families (TLSH...). Storage, the server
// and the CLI fingerprint through this one class, so a family means the same
// bytes everywhere.

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "neardup/core/canonicalizer.h"
#include "neardup/core/collection_config.h"
#include "neardup/core/kept_family.h"
#include "neardup/core/minhash.h"
#include "neardup/core/perceptual.h"
#include "neardup/core/simhash.h"

namespace neardup {

// Thread-safe; build once per collection and share.
class CollectionFingerprinter {
 public:
  // `config` must be normalized (NormalizeCollectionConfig).
  static absl::StatusOr<CollectionFingerprinter> Create(
      const CollectionConfig& config);

  // The MinHash signature; with `evidence`, also the sorted distinct hashes
  // it summarises (shingle hashes, or the winnowed hashes of the perceptual
  // family) narrowed to the config's evidence_bits, for exact Jaccard.
  // INVALID_ARGUMENT for invalid UTF-8, an empty document, or (perceptual)
  // fewer words than k.
  absl::StatusOr<MinHashSignature> MinHash(
      std::string_view text, std::vector<uint64_t>* evidence = nullptr) const;
  // FAILED_PRECONDITION when the collection has no SimHash.
  absl::StatusOr<uint64_t> SimHash(std::string_view text) const;
  // The text's value of each kept family, in config order; a family the text
  // has none of goes to `unavailable` (when given) with the reason.
  std::vector<KeptValue> Kept(
      std::string_view text,
      std::vector<KeptUnavailable>* unavailable = nullptr) const;

  bool has_simhash() const { return simhash_config_hash_ != 0; }
  // The collection's canonicalizer (newsbot's SimHash ignores it).
  const Canonicalizer& canonicalizer() const;

  uint64_t minhash_config_hash() const { return minhash_config_hash_; }
  uint64_t simhash_config_hash() const {
    return simhash_config_hash_;
  }  // 0: off
  // Each kept family's config hash, in config order.
  std::vector<KeptConfigHash> kept_config_hashes() const;

 private:
  struct KeptOne {
    const KeptFamily* family;
    // Shared: a CollectionFingerprinter is copied into each user.
    std::shared_ptr<const KeptFingerprinter> fingerprinter;
  };
  CollectionFingerprinter(std::variant<MinHasher, PerceptualHasher> minhasher,
                          std::optional<SimHasher> simhasher,
                          uint64_t simhash_config_hash,
                          std::vector<KeptOne> kept, int evidence_bits);

  std::variant<MinHasher, PerceptualHasher> minhasher_;
  // Empty with a nonzero simhash_config_hash_: newsbot's SimHash.
  std::optional<SimHasher> simhasher_;
  std::vector<KeptOne> kept_;
  uint64_t minhash_config_hash_;
  uint64_t simhash_config_hash_;
  int evidence_bits_;
};

// The config hash of each family a collection with this (normalized) config
// stamps on its signatures; 0 for a family it does not have.
struct ConfigHashes {
  uint64_t minhash = 0;
  uint64_t simhash = 0;
  std::vector<KeptConfigHash> kept;  // in config order
};
absl::StatusOr<ConfigHashes> ComputeConfigHashes(
    const CollectionConfig& config);

}  // namespace neardup

#endif  // NEARDUP_CORE_COLLECTION_FINGERPRINTER_H_
