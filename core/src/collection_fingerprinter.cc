#include "neardup/core/collection_fingerprinter.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/newsbot_simhash.h"
#include "neardup/core/shingle_set.h"

namespace neardup {
namespace {

absl::StatusOr<std::variant<MinHasher, PerceptualHasher>> MakeMinHasher(
    const CollectionConfig& config) {
  if (config.minhash_algorithm == MinHashAlgorithm::kPerceptual) {
    ASSIGN_OR_RETURN(PerceptualHasher hasher,
                     PerceptualHasher::Create(PerceptualConfigOf(config),
                                              config.canonicalizer));
    return hasher;
  }
  ASSIGN_OR_RETURN(MinHasher hasher,
                   MinHasher::Create(MinHashConfigOf(config)));
  return hasher;
}

}  // namespace

CollectionFingerprinter::CollectionFingerprinter(
    std::variant<MinHasher, PerceptualHasher> minhasher,
    std::optional<SimHasher> simhasher, uint64_t simhash_config_hash,
    std::vector<KeptOne> kept, int evidence_bits)
    : minhasher_(std::move(minhasher)),
      simhasher_(std::move(simhasher)),
      kept_(std::move(kept)),
      minhash_config_hash_(std::visit(
          [](const auto& hasher) { return hasher.config_hash(); }, minhasher_)),
      simhash_config_hash_(simhash_config_hash),
      evidence_bits_(evidence_bits) {}

absl::StatusOr<CollectionFingerprinter> CollectionFingerprinter::Create(
    const CollectionConfig& config) {
  ASSIGN_OR_RETURN(auto minhasher, MakeMinHasher(config));
  std::optional<SimHasher> simhasher;
  uint64_t simhash_config_hash = 0;
  if (config.simhash_enabled) {
    if (config.simhash_variant == SimHashVariant::kNewsbot) {
      simhash_config_hash = NewsbotConfigHash(64);
    } else {
      ASSIGN_OR_RETURN(simhasher, SimHasher::Create(SimHashConfigOf(config)));
      simhash_config_hash = simhasher->config_hash();
    }
  }
  std::vector<KeptOne> kept;
  for (const std::string& name : config.kept_families) {
    ASSIGN_OR_RETURN(const KeptFamily* family, KeptFamilyNamed(name));
    ASSIGN_OR_RETURN(std::unique_ptr<KeptFingerprinter> fingerprinter,
                     family->create(config.canonicalizer));
    kept.push_back({family, std::move(fingerprinter)});
  }
  // Callers hashing a config may skip normalization.
  const int evidence_bits = EvidenceBitsOf(config);
  if (!ValidEvidenceBits(evidence_bits)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "evidence_bits must be 32 or 64, got ", config.evidence_bits));
  }
  return CollectionFingerprinter(std::move(minhasher), std::move(simhasher),
                                 simhash_config_hash, std::move(kept),
                                 evidence_bits);
}

absl::StatusOr<MinHashSignature> CollectionFingerprinter::MinHash(
    std::string_view text, std::vector<uint64_t>* evidence) const {
  if (const auto* minhasher = std::get_if<MinHasher>(&minhasher_)) {
    if (evidence == nullptr) return minhasher->Fingerprint(text);
    ASSIGN_OR_RETURN(MinHashSignature signature,
                     minhasher->Fingerprint(text, evidence));
    NarrowEvidence(evidence_bits_, evidence);
    return signature;
  }
  const PerceptualHasher& perceptual = std::get<PerceptualHasher>(minhasher_);
  ASSIGN_OR_RETURN(PerceptualFingerprint fingerprint,
                   perceptual.Fingerprint(text, evidence != nullptr));
  if (evidence != nullptr) {
    *evidence = WinnowedSet(fingerprint);
    NarrowEvidence(evidence_bits_, evidence);
  }
  return std::move(fingerprint.minhash);
}

absl::StatusOr<uint64_t> CollectionFingerprinter::SimHash(
    std::string_view text) const {
  if (simhasher_) return simhasher_->Fingerprint(text);
  if (simhash_config_hash_ == 0) {
    return absl::FailedPreconditionError("the collection has no SimHash");
  }
  ASSIGN_OR_RETURN(const NewsbotFingerprint fingerprint,
                   NewsbotSimHash(text, 64));
  return fingerprint.low;
}

std::vector<KeptValue> CollectionFingerprinter::Kept(
    std::string_view text, std::vector<KeptUnavailable>* unavailable) const {
  std::vector<KeptValue> values;
  for (const KeptOne& kept : kept_) {
    absl::StatusOr<std::string> value = kept.fingerprinter->Fingerprint(text);
    if (value.ok()) {
      values.push_back({std::string(kept.family->name), *std::move(value),
                        kept.fingerprinter->config_hash()});
    } else if (unavailable != nullptr) {
      unavailable->push_back({std::string(kept.family->name),
                              std::string(value.status().message())});
    }
  }
  return values;
}

std::vector<KeptConfigHash> CollectionFingerprinter::kept_config_hashes()
    const {
  std::vector<KeptConfigHash> hashes;
  for (const KeptOne& kept : kept_) {
    hashes.push_back(
        {std::string(kept.family->name), kept.fingerprinter->config_hash()});
  }
  return hashes;
}

const Canonicalizer& CollectionFingerprinter::canonicalizer() const {
  return std::visit(
      [](const auto& hasher) -> const Canonicalizer& {
        return hasher.canonicalizer();
      },
      minhasher_);
}

absl::StatusOr<ConfigHashes> ComputeConfigHashes(
    const CollectionConfig& config) {
  ASSIGN_OR_RETURN(const CollectionFingerprinter fingerprinter,
                   CollectionFingerprinter::Create(config));
  return ConfigHashes{.minhash = fingerprinter.minhash_config_hash(),
                      .simhash = fingerprinter.simhash_config_hash(),
                      .kept = fingerprinter.kept_config_hashes()};
}

}  // namespace neardup
