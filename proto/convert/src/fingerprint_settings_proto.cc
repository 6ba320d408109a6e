#include "neardup/proto/fingerprint_settings_proto.h"

#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/perceptual.h"

namespace neardup::proto {

absl::StatusOr<FingerprintSettings> SettingsFromProto(
    const v1::FingerprintConfig& proto) {
  FingerprintSettings settings;
  CanonicalizerOptions& canonicalizer = settings.canonicalizer;
  const v1::CanonicalizerOptions& canon = proto.canonicalizer();
  switch (canon.normalization()) {
    case v1::CanonicalizerOptions::NORMALIZATION_UNSPECIFIED:
    case v1::CanonicalizerOptions::NORMALIZATION_NFKC:
      canonicalizer.normalization = Normalization::kNfkc;
      break;
    case v1::CanonicalizerOptions::NORMALIZATION_NFC:
      canonicalizer.normalization = Normalization::kNfc;
      break;
    case v1::CanonicalizerOptions::NORMALIZATION_NONE:
      canonicalizer.normalization = Normalization::kNone;
      break;
    default:
      return absl::InvalidArgumentError(
          "config.canonicalizer.normalization: unknown value");
  }
  canonicalizer.case_fold =
      canon.disable_case_fold() ? CaseFold::kNone : CaseFold::kFull;
  canonicalizer.strip_bidi = !canon.keep_bidi_controls();
  canonicalizer.strip_format = !canon.keep_format_characters();
  canonicalizer.confusable_skeleton = canon.confusable_skeleton();
  canonicalizer.strip_ignorable = canon.strip_default_ignorables();
  canonicalizer.fold_small_capitals = canon.fold_small_capitals();
  switch (canon.profile()) {
    case v1::CanonicalizerOptions::PROFILE_UNSPECIFIED:
      break;
    case v1::CanonicalizerOptions::PROFILE_ROBUST:
      canonicalizer.strip_ignorable = true;
      canonicalizer.confusable_skeleton = true;
      canonicalizer.fold_small_capitals = true;
      break;
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "config.canonicalizer.profile: unknown value ", canon.profile(),
          " (PROFILE_UNSPECIFIED or PROFILE_ROBUST)"));
  }
  if (!proto.tokenizer().empty()) settings.tokenizer = proto.tokenizer();
  settings.shingle_k = static_cast<int>(proto.shingle_k());
  if (proto.num_perm() != 0) {
    settings.num_perm = static_cast<int>(proto.num_perm());
  }
  if (proto.has_seed()) settings.seed = proto.seed();
  switch (proto.hash_family()) {
    case v1::HASH_FAMILY_UNSPECIFIED:
    case v1::HASH_FAMILY_XXH3:
      settings.family = HashFamily::kXxh3;
      break;
    case v1::HASH_FAMILY_MURMUR3:
      settings.family = HashFamily::kMurmur3;
      break;
    default:
      return absl::InvalidArgumentError("config.hash_family: unknown value");
  }
  switch (proto.simhash_weighting()) {
    case v1::SIMHASH_WEIGHTING_UNSPECIFIED:
    case v1::SIMHASH_WEIGHTING_TF:
      settings.weighting = SimHashWeighting::kTf;
      break;
    case v1::SIMHASH_WEIGHTING_UNIFORM:
      settings.weighting = SimHashWeighting::kUniform;
      break;
    default:
      return absl::InvalidArgumentError(
          "config.simhash_weighting: unknown value");
  }
  return settings;
}

void SettingsToProto(const FingerprintSettings& settings,
                     v1::FingerprintConfig* proto) {
  const CanonicalizerOptions& canonicalizer = settings.canonicalizer;
  v1::CanonicalizerOptions* canon = proto->mutable_canonicalizer();
  switch (canonicalizer.normalization) {
    case Normalization::kNfkc:
      canon->set_normalization(v1::CanonicalizerOptions::NORMALIZATION_NFKC);
      break;
    case Normalization::kNfc:
      canon->set_normalization(v1::CanonicalizerOptions::NORMALIZATION_NFC);
      break;
    case Normalization::kNone:
      canon->set_normalization(v1::CanonicalizerOptions::NORMALIZATION_NONE);
      break;
  }
  canon->set_disable_case_fold(canonicalizer.case_fold == CaseFold::kNone);
  canon->set_keep_bidi_controls(!canonicalizer.strip_bidi);
  canon->set_keep_format_characters(!canonicalizer.strip_format);
  canon->set_confusable_skeleton(canonicalizer.confusable_skeleton);
  canon->set_strip_default_ignorables(canonicalizer.strip_ignorable);
  canon->set_fold_small_capitals(canonicalizer.fold_small_capitals);
  proto->set_tokenizer(settings.tokenizer);
  proto->set_shingle_k(static_cast<uint32_t>(settings.shingle_k));
  proto->set_num_perm(static_cast<uint32_t>(settings.num_perm));
  proto->set_seed(settings.seed);
  proto->set_hash_family(settings.family == HashFamily::kMurmur3
                             ? v1::HASH_FAMILY_MURMUR3
                             : v1::HASH_FAMILY_XXH3);
  proto->set_simhash_weighting(settings.weighting == SimHashWeighting::kUniform
                                   ? v1::SIMHASH_WEIGHTING_UNIFORM
                                   : v1::SIMHASH_WEIGHTING_TF);
}

v1::Banding BandingToProto(BandingRule rule) {
  return rule == BandingRule::kTxtfp ? v1::BANDING_TXTFP
                                     : v1::BANDING_RECALL_FIRST;
}

BandingRule BandingFromProto(v1::Banding banding) {
  return banding == v1::BANDING_TXTFP ? BandingRule::kTxtfp
                                      : BandingRule::kRecallFirst;
}

v1::Verification VerificationToProto(Verification verification) {
  return verification == Verification::kEstimate ? v1::VERIFICATION_ESTIMATE
                                                 : v1::VERIFICATION_EXACT;
}

void FamiliesToProto(const CollectionConfig& config,
                     v1::FingerprintConfig* proto) {
  proto->set_minhash_algorithm(config.minhash_algorithm ==
                                       MinHashAlgorithm::kPerceptual
                                   ? v1::MINHASH_ALGORITHM_PERCEPTUAL
                                   : v1::MINHASH_ALGORITHM_SHINGLED);
  proto->set_winnow_window(static_cast<uint32_t>(config.winnow_window));
  proto->set_simhash_variant(config.simhash_variant == SimHashVariant::kNewsbot
                                 ? v1::SIMHASH_VARIANT_NEWSBOT
                                 : v1::SIMHASH_VARIANT_TXTFP);
  proto->set_tlsh(config.keep_tlsh);
}

absl::Status FamiliesFromProto(const v1::FingerprintConfig& proto,
                               CollectionConfig* config) {
  config->simhash_variant =
      proto.simhash_variant() == v1::SIMHASH_VARIANT_NEWSBOT
          ? SimHashVariant::kNewsbot
          : SimHashVariant::kTxtfp;
  config->keep_tlsh = proto.tlsh();
  config->winnow_window = static_cast<int>(proto.winnow_window());
  if (proto.minhash_algorithm() != v1::MINHASH_ALGORITHM_PERCEPTUAL) {
    config->minhash_algorithm = MinHashAlgorithm::kShingled;
    return absl::OkStatus();
  }
  config->minhash_algorithm = MinHashAlgorithm::kPerceptual;
  if (proto.shingle_k() == 0) {
    ASSIGN_OR_RETURN(const SplitTokenizer split,
                     SplitTokenizerName(config->minhash_tokenizer));
    ASSIGN_OR_RETURN(config->minhash_tokenizer,
                     ShingledTokenizerName(split.base, PerceptualConfig{}.k));
  }
  return absl::OkStatus();
}

v1::EmbeddingSpace::ChunkMode ChunkModeToProto(ChunkMode mode) {
  switch (mode) {
    case ChunkMode::kFixedTokens:
      return v1::EmbeddingSpace::CHUNK_MODE_FIXED;
    case ChunkMode::kRecursive:
      return v1::EmbeddingSpace::CHUNK_MODE_RECURSIVE;
    case ChunkMode::kSentenceBounded:
      break;
  }
  return v1::EmbeddingSpace::CHUNK_MODE_SENTENCE;
}

ChunkMode ChunkModeFromProto(v1::EmbeddingSpace::ChunkMode mode) {
  switch (mode) {
    case v1::EmbeddingSpace::CHUNK_MODE_FIXED:
      return ChunkMode::kFixedTokens;
    case v1::EmbeddingSpace::CHUNK_MODE_RECURSIVE:
      return ChunkMode::kRecursive;
    default:
      return ChunkMode::kSentenceBounded;
  }
}

Verification VerificationFromProto(v1::Verification verification) {
  return verification == v1::VERIFICATION_ESTIMATE ? Verification::kEstimate
                                                   : Verification::kExact;
}

}  // namespace neardup::proto
