#include "neardup/proto/fingerprint_settings_proto.h"

#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/enum_tables.h"
#include "neardup/core/perceptual.h"
#include "neardup/core/tlsh.h"

namespace neardup::proto {

// disable_case_fold is read (and written) on purpose, for one release.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

absl::StatusOr<FingerprintSettings> SettingsFromProto(
    const v1::FingerprintConfig& proto) {
  FingerprintSettings settings;
  CanonicalizerOptions& canonicalizer = settings.canonicalizer;
  const v1::CanonicalizerOptions& canon = proto.canonicalizer();
  const std::optional<Normalization> normalization =
      kNormalizations.FromApi(canon.normalization());
  if (!normalization) {
    return absl::InvalidArgumentError(
        "config.canonicalizer.normalization: unknown value");
  }
  canonicalizer.normalization = *normalization;
  const std::optional<CaseFold> case_fold =
      kCaseFolds.FromApi(canon.case_fold());
  if (!case_fold) {
    return absl::InvalidArgumentError(
        "config.canonicalizer.case_fold: unknown value");
  }
  canonicalizer.case_fold = *case_fold;
  if (canon.disable_case_fold()) {  // the deprecated name, one release
    if (canon.case_fold() == v1::CanonicalizerOptions::CASE_FOLD_FULL) {
      return absl::InvalidArgumentError(
          "config.canonicalizer.case_fold CASE_FOLD_FULL and the deprecated "
          "disable_case_fold contradict each other; set case_fold only");
    }
    canonicalizer.case_fold = CaseFold::kNone;
  }
  canonicalizer.strip_bidi = !canon.keep_bidi_controls();
  canonicalizer.strip_format = !canon.keep_format_characters();
  canonicalizer.confusable_skeleton = canon.confusable_skeleton();
  canonicalizer.strip_ignorable = canon.strip_default_ignorables();
  canonicalizer.fold_small_capitals = canon.fold_small_capitals();
  canonicalizer.fold_look_alikes = canon.fold_look_alikes();
  switch (canon.profile()) {
    case v1::CanonicalizerOptions::PROFILE_UNSPECIFIED:
      break;
    case v1::CanonicalizerOptions::PROFILE_ROBUST:
      canonicalizer.strip_ignorable = true;
      canonicalizer.confusable_skeleton = true;
      canonicalizer.fold_small_capitals = true;
      canonicalizer.fold_look_alikes = true;
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
  const std::optional<HashFamily> family =
      kHashFamilies.FromApi(proto.hash_family());
  if (!family) {
    return absl::InvalidArgumentError("config.hash_family: unknown value");
  }
  settings.family = *family;
  const std::optional<SimHashWeighting> weighting =
      kSimHashWeightings.FromApi(proto.simhash_weighting());
  if (!weighting) {
    return absl::InvalidArgumentError(
        "config.simhash_weighting: unknown value");
  }
  settings.weighting = *weighting;
  return settings;
}

void SettingsToProto(const FingerprintSettings& settings,
                     v1::FingerprintConfig* proto) {
  const CanonicalizerOptions& canonicalizer = settings.canonicalizer;
  v1::CanonicalizerOptions* canon = proto->mutable_canonicalizer();
  canon->set_normalization(static_cast<v1::CanonicalizerOptions::Normalization>(
      kNormalizations.Api(canonicalizer.normalization)));
  canon->set_case_fold(static_cast<v1::CanonicalizerOptions::CaseFold>(
      kCaseFolds.Api(canonicalizer.case_fold)));
  canon->set_disable_case_fold(canonicalizer.case_fold == CaseFold::kNone);
  canon->set_keep_bidi_controls(!canonicalizer.strip_bidi);
  canon->set_keep_format_characters(!canonicalizer.strip_format);
  canon->set_confusable_skeleton(canonicalizer.confusable_skeleton);
  canon->set_strip_default_ignorables(canonicalizer.strip_ignorable);
  canon->set_fold_small_capitals(canonicalizer.fold_small_capitals);
  canon->set_fold_look_alikes(canonicalizer.fold_look_alikes);
  proto->set_tokenizer(settings.tokenizer);
  proto->set_shingle_k(static_cast<uint32_t>(settings.shingle_k));
  proto->set_num_perm(static_cast<uint32_t>(settings.num_perm));
  proto->set_seed(settings.seed);
  proto->set_hash_family(
      static_cast<v1::HashFamily>(kHashFamilies.Api(settings.family)));
  // IDF has no API value: sent as the default, TF.
  const int weighting = kSimHashWeightings.Api(settings.weighting);
  proto->set_simhash_weighting(static_cast<v1::SimHashWeighting>(
      weighting != 0 ? weighting
                     : kSimHashWeightings.Api(SimHashWeighting::kTf)));
}

v1::Banding BandingToProto(BandingRule rule) {
  return static_cast<v1::Banding>(kBandingRules.Api(rule));
}

BandingRule BandingFromProto(v1::Banding banding) {
  return kBandingRules.FromApi(banding).value_or(BandingRule::kRecallFirst);
}

v1::Verification VerificationToProto(Verification verification) {
  return static_cast<v1::Verification>(kVerifications.Api(verification));
}

void FamiliesToProto(const CollectionConfig& config,
                     v1::FingerprintConfig* proto) {
  proto->set_minhash_algorithm(static_cast<v1::MinHashAlgorithm>(
      kMinHashAlgorithms.Api(config.minhash_algorithm)));
  proto->set_winnow_window(static_cast<uint32_t>(config.winnow_window));
  proto->set_simhash_variant(static_cast<v1::SimHashVariant>(
      kSimHashVariants.Api(config.simhash_variant)));
  for (const std::string& family : config.kept_families) {
    proto->add_kept_families(family);
  }
  proto->set_tlsh(config.Keeps(kTlshFamily.name));  // deprecated spelling
}

absl::Status FamiliesFromProto(const v1::FingerprintConfig& proto,
                               CollectionConfig* config) {
  config->simhash_variant = kSimHashVariants.FromApi(proto.simhash_variant())
                                .value_or(SimHashVariant::kTxtfp);
  config->kept_families.assign(proto.kept_families().begin(),
                               proto.kept_families().end());
  // The deprecated spelling; normalization drops a repeated name.
  if (proto.tlsh()) config->kept_families.emplace_back(kTlshFamily.name);
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
                     ShingledTokenizerName(split.base, kDefaultPerceptualK));
  }
  return absl::OkStatus();
}

v1::EmbeddingSpace::ChunkMode ChunkModeToProto(ChunkMode mode) {
  return static_cast<v1::EmbeddingSpace::ChunkMode>(kChunkModes.Api(mode));
}

ChunkMode ChunkModeFromProto(v1::EmbeddingSpace::ChunkMode mode) {
  return kChunkModes.FromApi(mode).value_or(ChunkMode::kSentenceBounded);
}

Verification VerificationFromProto(v1::Verification verification) {
  return kVerifications.FromApi(verification).value_or(Verification::kExact);
}

}  // namespace neardup::proto
