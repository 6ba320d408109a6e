#ifndef NEARDUP_CORE_MINHASH_H_
#define NEARDUP_CORE_MINHASH_H_

// MinHash signatures, byte-compatible with txtfp's MinHashSig<H>.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "neardup/core/canonicalizer.h"
#include "neardup/core/hash.h"
#include "neardup/core/tokenizer.h"

namespace neardup {

inline constexpr uint16_t kMinHashSchema = 1;

struct MinHashSignature {
  std::vector<uint64_t> slots;  // H minimum hash values

  int num_perm() const { return static_cast<int>(slots.size()); }
  // Wire layout: u16 LE schema (1), six zero bytes, H x u64 LE.
  // 8 + 8*H bytes (1032 for H = 128).
  std::string Serialize() const;
  // Checks length (8 + 8*H, H in {64, 128, 256}), schema and zero padding.
  static absl::StatusOr<MinHashSignature> Parse(std::string_view bytes);

  bool operator==(const MinHashSignature&) const = default;
};

// Fraction of equal slots. INVALID_ARGUMENT if the widths differ.
absl::StatusOr<double> EstimateJaccard(const MinHashSignature& a,
                                       const MinHashSignature& b);
// Unchecked variant for hot loops; widths must match.
double EstimateJaccardUnchecked(const uint64_t* a, const uint64_t* b, int h);

// The lowest MinHash estimate a pair whose Jaccard is exactly `threshold`
// shows with probability >= 1 - 1e-6, taking the equal slots as
// Binomial(num_perm, threshold). The slots of neardup's MinHash are not
// independent (lo + i * hi), so the real tail is far heavier: exact
// verification drops candidates below it only when a query has many
// (bench/README.md, "The estimate filter").
double EstimateFloorForExact(double threshold, int num_perm);

// Exact Jaccard of two sorted, de-duplicated token-hash sets (see
// MinHasher::TokenSet). 1.0 when both are empty.
double ExactJaccard(std::span<const Hash128> a, std::span<const Hash128> b);

// Folds token hashes into `slots` as MinHasher does (slot i keeps the least
// lo + i*hi): token batches folded one after another give the signature of
// their union, whatever the order. Fresh slots start at UINT64_MAX. Any
// slot count (MinHasher's signatures take 64, 128 or 256).
void FoldTokenHashes(std::span<const Hash128> hashes,
                     std::span<uint64_t> slots);

struct MinHashConfig {
  CanonicalizerOptions canonicalizer;
  // Tokenizer name; default: 5-word shingles.
  std::string tokenizer = "shingle-k=5/word-uax29";
  int num_perm = 128;  // H: 64, 128 or 256
  uint64_t seed = kDefaultSeed;
  HashFamily family = HashFamily::kXxh3;
};

// Thread-safe; build once and share. canonicalize -> tokenize -> for each
// token (lo, hi) = hash128(token, seed), slot i keeps min(lo + i*hi).
class MinHasher {
 public:
  static absl::StatusOr<MinHasher> Create(const MinHashConfig& config = {});

  // Errors: INVALID_ARGUMENT for invalid UTF-8 or a document with no tokens
  // ("empty document").
  absl::StatusOr<MinHashSignature> Fingerprint(std::string_view text) const;
  // Also replaces *shingles with the document's exact evidence: the sorted,
  // distinct low 64 bits of the same token hashes the signature is made of
  // (no second tokenization). See shingle_set.h.
  absl::StatusOr<MinHashSignature> Fingerprint(
      std::string_view text, std::vector<uint64_t>* shingles) const;
  // Like the above, but leaves the low 64 bits in token order, repeats
  // kept: SortUniqueHashes turns them into the evidence. For callers that
  // compare only a few documents (offline dedup sorts a set the first time
  // a candidate needs it, not for every document).
  absl::StatusOr<MinHashSignature> FingerprintWithRawHashes(
      std::string_view text, std::vector<uint64_t>* raw_hashes) const;
  // Skips canonicalization: `canonical` must come from canonicalizer().
  absl::StatusOr<MinHashSignature> FingerprintCanonical(
      std::string_view canonical,
      std::vector<uint64_t>* shingles = nullptr) const;
  // Sorted, de-duplicated 128-bit hashes of the document's tokens: the set
  // the signature estimates. For exact Jaccard.
  absl::StatusOr<std::vector<Hash128>> TokenSet(std::string_view text) const;

  const MinHashConfig& config() const { return config_; }
  const Canonicalizer& canonicalizer() const { return canonicalizer_; }
  const Tokenizer& tokenizer() const { return *tokenizer_; }
  std::string algorithm() const;  // "minhash-h128"
  uint64_t config_hash() const { return config_hash_; }

 private:
  MinHasher(MinHashConfig config, Canonicalizer canonicalizer,
            std::shared_ptr<const Tokenizer> tokenizer);
  // The signature and, when `shingles` is set, the low 64 bits of the same
  // hashes (sorted and distinct if `sort_unique`).
  absl::StatusOr<MinHashSignature> FingerprintHashes(
      std::string_view canonical, std::vector<uint64_t>* shingles,
      bool sort_unique) const;

  MinHashConfig config_;
  Canonicalizer canonicalizer_;
  std::shared_ptr<const Tokenizer> tokenizer_;
  uint64_t config_hash_;
};

}  // namespace neardup

#endif  // NEARDUP_CORE_MINHASH_H_
