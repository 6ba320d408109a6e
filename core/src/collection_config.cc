#include "neardup/core/collection_config.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/tokenizer.h"

namespace neardup {

std::string_view VerificationName(Verification verification) {
  return verification == Verification::kEstimate ? "estimate" : "exact";
}

absl::StatusOr<Verification> ParseVerification(std::string_view name) {
  if (name == "exact") return Verification::kExact;
  if (name == "estimate") return Verification::kEstimate;
  return absl::InvalidArgumentError(absl::StrCat(
      "verification must be exact or estimate, got \"", AbslView(name), "\""));
}

double DefaultMinThreshold(double threshold) {
  // Rounded to 1e-9 so 0.8 gives 0.7, not 0.7000000000000001.
  return std::round(std::max(threshold - 0.1, threshold / 2) * 1e9) / 1e9;
}

absl::StatusOr<CollectionConfig> NormalizeCollectionConfig(
    CollectionConfig config) {
  if (config.num_perm != 64 && config.num_perm != 128 &&
      config.num_perm != 256) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_perm must be 64, 128 or 256, got ", config.num_perm));
  }
  if (!(config.threshold > 0.0 && config.threshold < 1.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("threshold must be in (0, 1), got ", config.threshold));
  }
  const bool banding_given = config.lsh.bands != 0 || config.lsh.rows != 0;
  if (config.min_threshold == 0) {
    config.min_threshold =
        banding_given || config.banding == BandingRule::kTxtfp
            ? config.threshold
            : DefaultMinThreshold(config.threshold);
  }
  if (!(config.min_threshold > 0.0 &&
        config.min_threshold <= config.threshold)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "min_threshold must be in (0, threshold = ", config.threshold,
        "], got ", config.min_threshold));
  }
  if (banding_given) {
    RETURN_IF_ERROR(ValidateLshParams(config.lsh, config.num_perm));
  } else if (config.banding == BandingRule::kTxtfp) {
    ASSIGN_OR_RETURN(config.lsh,
                     LshParamsForThreshold(config.threshold, config.num_perm));
  } else {
    absl::StatusOr<LshParams> lsh =
        LshParamsRecallFirst(config.min_threshold, config.num_perm);
    if (!lsh.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("min_threshold: ", lsh.status().message()));
    }
    config.lsh = *lsh;
  }
  if (config.verify_bits != 16 && config.verify_bits != 32 &&
      config.verify_bits != 64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "verify_bits must be 16, 32 or 64, got ", config.verify_bits));
  }
  if (auto tokenizer = MakeTokenizer(config.minhash_tokenizer);
      !tokenizer.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("minhash tokenizer: ", tokenizer.status().message()));
  }
  if (config.simhash_enabled) {
    if (auto tokenizer = MakeTokenizer(config.simhash_tokenizer);
        !tokenizer.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("simhash tokenizer: ", tokenizer.status().message()));
    }
    if (config.simhash_weighting == SimHashWeighting::kIdf) {
      return absl::InvalidArgumentError(
          "simhash weighting idf needs a fixed IDF table, which collections "
          "do not hold yet; use tf or uniform");
    }
    if (config.simhash_max_distance < 0 || config.simhash_max_distance > 16) {
      return absl::InvalidArgumentError(
          absl::StrCat("simhash_max_distance must be in [0, 16], got ",
                       config.simhash_max_distance));
    }
  }
  return config;
}

MinHashConfig MinHashConfigOf(const CollectionConfig& config) {
  MinHashConfig out;
  out.canonicalizer = config.canonicalizer;
  out.tokenizer = config.minhash_tokenizer;
  out.num_perm = config.num_perm;
  out.seed = config.seed;
  out.family = config.family;
  return out;
}

SimHashConfig SimHashConfigOf(const CollectionConfig& config) {
  SimHashConfig out;
  out.canonicalizer = config.canonicalizer;
  out.tokenizer = config.simhash_tokenizer;
  out.weighting = config.simhash_weighting;
  out.seed = config.seed;
  out.family = config.family;
  return out;
}

}  // namespace neardup
