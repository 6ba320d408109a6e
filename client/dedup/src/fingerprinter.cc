#include "fingerprinter.h"

#include <simdjson.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/newsbot_simhash.h"

namespace neardup::dedup {

absl::StatusOr<Fingerprinter> Fingerprinter::Create(
    const DedupOptions& options) {
  Fingerprinter f;
  f.algorithm_ = options.algorithm;
  f.exact_ = options.verify == Verify::kExact;
  f.evidence_bits_ = options.evidence_bits;
  // The MinHasher also defines the token sets for exact verification.
  ASSIGN_OR_RETURN(const MinHashConfig minhash_config,
                   MinHashConfigOf(options.fingerprint));
  ASSIGN_OR_RETURN(MinHasher minhash, MinHasher::Create(minhash_config));
  f.minhash_.emplace(std::move(minhash));
  f.simhash_variant_ = options.simhash_variant;
  f.simhash_bits_ = options.simhash_bits;
  if (options.algorithm == Algorithm::kSimHash &&
      options.simhash_variant == SimHashVariant::kTxtfp) {
    ASSIGN_OR_RETURN(const SimHashConfig simhash_config,
                     SimHashConfigOf(options.fingerprint));
    ASSIGN_OR_RETURN(SimHasher simhash, SimHasher::Create(simhash_config));
    f.simhash_.emplace(std::move(simhash));
  }
  if (options.algorithm == Algorithm::kPerceptual) {
    ASSIGN_OR_RETURN(
        PerceptualHasher perceptual,
        PerceptualHasher::Create(PerceptualConfigOf(options),
                                 options.fingerprint.canonicalizer));
    f.perceptual_.emplace(std::move(perceptual));
  }
  return f;
}

uint64_t Fingerprinter::config_hash() const {
  if (perceptual_) return perceptual_->config_hash();
  if (simhash_) return simhash_->config_hash();
  if (algorithm_ == Algorithm::kSimHash) {
    // newsbot's SimHash has no settings but its width; the MinHash config
    // still names the canonicalizer its text goes through.
    return minhash_->config_hash() ^ (0x6e657773626f74ULL + simhash_bits_);
  }
  return minhash_->config_hash();
}

void Fingerprinter::Compute(std::string_view text, DocFingerprint* out,
                            std::vector<uint64_t>* scratch,
                            HashChunkWriter* chunks) const {
  scratch->clear();
  ComputeInto(text, out, scratch);
  if (exact_ && evidence_bits_ < 64) {
    // As NarrowEvidence keeps a collection's: the top bits. (The set is
    // sorted and made distinct where it is kept.)
    for (uint64_t& hash : *scratch) hash >>= 64 - evidence_bits_;
  }
  // Only --verification exact reads the sets (perceptual makes one regardless).
  out->token_set = exact_ && out->kind == DocFingerprint::Kind::kOk
                       ? chunks->Append(*scratch, &out->token_chunk)
                       : chunks->Append({}, &out->token_chunk);
}

void Fingerprinter::ComputeInto(std::string_view text, DocFingerprint* out,
                                std::vector<uint64_t>* token_set) const {
  out->kind = DocFingerprint::Kind::kOk;
  out->error.clear();
  if (!simdjson::validate_utf8(text.data(), text.size())) {
    out->kind = DocFingerprint::Kind::kInvalid;
    out->error = "invalid UTF-8 in the text";
    return;
  }
  // With valid UTF-8 the only document error left is "no tokens".
  if (algorithm_ == Algorithm::kPerceptual) {
    // Fewer tokens than a shingle: nothing to compare, kept as empty.
    absl::StatusOr<PerceptualFingerprint> fp =
        perceptual_->Fingerprint(text, exact_);
    if (!fp.ok()) {
      out->kind = DocFingerprint::Kind::kEmpty;
      return;
    }
    out->minhash = std::move(fp->minhash);
    for (const WinnowedShingle& s : fp->winnowed) {
      token_set->push_back(s.hash);
    }
    return;
  }
  if (algorithm_ == Algorithm::kSimHash &&
      simhash_variant_ == SimHashVariant::kNewsbot) {
    // newsbot hashes a text without tokens to zero; dedup calls it empty.
    absl::StatusOr<NewsbotFingerprint> hash =
        NewsbotSimHash(text, simhash_bits_);
    if (!hash.ok() || (hash->low == 0 && NewsbotTokenize(text).empty())) {
      out->kind = DocFingerprint::Kind::kEmpty;
      return;
    }
    out->simhash = hash->low;
  } else if (algorithm_ == Algorithm::kSimHash) {
    absl::StatusOr<uint64_t> hash = simhash_->Fingerprint(text);
    if (!hash.ok()) {
      out->kind = DocFingerprint::Kind::kEmpty;
      return;
    }
    out->simhash = *hash;
  } else {
    // --verification exact: the shingle hashes come from the same hashing, and
    // are sorted only once a candidate needs them (TokenSetStore).
    absl::StatusOr<MinHashSignature> sig =
        exact_ ? minhash_->FingerprintWithRawHashes(text, token_set)
               : minhash_->Fingerprint(text);
    if (!sig.ok()) {
      out->kind = DocFingerprint::Kind::kEmpty;
      return;
    }
    out->minhash = *std::move(sig);
    return;
  }
  if (exact_) {
    // SimHash candidates are verified on the MinHash shingles, which SimHash
    // (over plain tokens) does not compute.
    if (!minhash_->FingerprintWithRawHashes(text, token_set).ok()) {
      out->kind = DocFingerprint::Kind::kEmpty;
    }
  }
}

}  // namespace neardup::dedup
