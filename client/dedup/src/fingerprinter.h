#ifndef NEARDUP_CLIENT_DEDUP_SRC_FINGERPRINTER_H_
#define NEARDUP_CLIENT_DEDUP_SRC_FINGERPRINTER_H_

// What the worker threads compute for one document: its signature for the
// chosen algorithm and, for --verification exact, its shingle-hash set. Pure
// and thread-safe, so the results do not depend on which thread ran them.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "neardup/core/minhash.h"
#include "neardup/core/perceptual.h"
#include "neardup/core/shingle_set.h"
#include "neardup/core/simhash.h"
#include "neardup/dedup/dedup_options.h"
#include "neardup/dedup/internal/hash_chunk.h"

namespace neardup::dedup {

struct DocFingerprint {
  enum class Kind : uint8_t { kOk, kEmpty, kInvalid };
  Kind kind = Kind::kOk;
  std::string error;         // kInvalid: why (without file and line)
  MinHashSignature minhash;  // minhash-lsh, lshbloom, perceptual
  uint64_t simhash = 0;      // simhash
  // --verification exact: the low 64 bits of the token hashes, in token order
  // with repeats (SortUniqueHashes makes them the shingle set); for
  // perceptual, the winnowed shingle hashes. They lie in `token_chunk`,
  // which the finder shares for a kept document instead of copying them.
  std::span<uint64_t> token_set;
  std::shared_ptr<HashChunk> token_chunk;
};

class Fingerprinter {
 public:
  static absl::StatusOr<Fingerprinter> Create(const DedupOptions& options);

  // Invalid UTF-8 is kInvalid; a document without tokens is kEmpty. The
  // token set (--verification exact) goes through `scratch` into `chunks`.
  void Compute(std::string_view text, DocFingerprint* out,
               std::vector<uint64_t>* scratch, HashChunkWriter* chunks) const;

  const MinHasher& minhasher() const { return *minhash_; }
  // The config hash of the signatures Compute makes (that of the MinHash
  // with minhash-lsh and lshbloom, of the SimHash or perceptual hasher).
  uint64_t config_hash() const;

 private:
  void ComputeInto(std::string_view text, DocFingerprint* out,
                   std::vector<uint64_t>* token_set) const;

  Algorithm algorithm_ = Algorithm::kMinHashLsh;
  bool exact_ = false;
  int evidence_bits_ = 64;  // of the sets exact_ keeps
  SimHashVariant simhash_variant_ = SimHashVariant::kTxtfp;
  int simhash_bits_ = 64;
  std::optional<MinHasher> minhash_;
  std::optional<SimHasher> simhash_;
  std::optional<PerceptualHasher> perceptual_;
};

}  // namespace neardup::dedup

#endif  // NEARDUP_CLIENT_DEDUP_SRC_FINGERPRINTER_H_
