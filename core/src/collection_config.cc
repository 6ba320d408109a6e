#include "neardup/core/collection_config.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/enum_tables.h"
#include "neardup/core/fingerprint_settings.h"
#include "neardup/core/kept_family.h"
#include "neardup/core/shingle_set.h"
#include "neardup/core/tokenizer.h"

namespace neardup {

std::string_view VerificationName(Verification verification) {
  return kVerifications.Name(verification);
}

absl::StatusOr<Verification> ParseVerification(std::string_view name) {
  return kVerifications.Parse(name);
}

std::string_view MinHashAlgorithmName(MinHashAlgorithm algorithm) {
  return kMinHashAlgorithms.Name(algorithm);
}

absl::StatusOr<MinHashAlgorithm> ParseMinHashAlgorithm(std::string_view name) {
  return kMinHashAlgorithms.Parse(name);
}

std::string_view SimHashVariantName(SimHashVariant variant) {
  return kSimHashVariants.Name(variant);
}

absl::StatusOr<SimHashVariant> ParseSimHashVariant(std::string_view name) {
  return kSimHashVariants.Parse(name);
}

namespace {

// The perceptual fields: the tokenizer must be k-word shingles (the rolling
// window) and the family XXH3, which is what PerceptualHasher uses.
absl::Status NormalizePerceptual(CollectionConfig& config) {
  if (config.minhash_algorithm != MinHashAlgorithm::kPerceptual) {
    if (config.winnow_window != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("winnow_window applies to perceptual MinHash only, got ",
                       config.winnow_window));
    }
    return absl::OkStatus();
  }
  if (config.winnow_window == 0) config.winnow_window = kDefaultWinnowWindow;
  ASSIGN_OR_RETURN(const SplitTokenizer split,
                   SplitTokenizerName(config.minhash_tokenizer));
  if (split.base != "word-uax29") {
    return absl::InvalidArgumentError(absl::StrCat(
        "perceptual MinHash shingles words: the tokenizer must be word, got ",
        split.base));
  }
  if (config.family != HashFamily::kXxh3) {
    return absl::InvalidArgumentError(
        "perceptual MinHash hashes with XXH3: leave the hash family unset");
  }
  absl::Status valid = ValidatePerceptualConfig(PerceptualConfigOf(config));
  if (!valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("perceptual: ", valid.message()));
  }
  return absl::OkStatus();
}

absl::Status NormalizeEmbedding(EmbeddingSpace& space) {
  if (space.dim == 0 && space.model_id.empty()) {
    space = EmbeddingSpace{};  // off: equal collections, equal configs
    return absl::OkStatus();
  }
  if (space.dim < 1 || space.dim > 4096) {
    return absl::InvalidArgumentError(
        absl::StrCat("embedding.dim must be in [1, 4096], got ", space.dim));
  }
  if (space.model_id.empty() || space.model_id.size() > 256 ||
      !std::all_of(space.model_id.begin(), space.model_id.end(),
                   [](char c) { return c > ' ' && c < 127; })) {
    return absl::InvalidArgumentError(
        "embedding.model_id must be 1 to 256 printable ASCII bytes without "
        "spaces (it tags every stored vector)");
  }
  if (const EmbeddingSpace defaults;
      !space.hnsw && (space.hnsw_m != defaults.hnsw_m ||
                      space.ef_construction != defaults.ef_construction ||
                      space.ef_search != defaults.ef_search)) {
    return absl::InvalidArgumentError(
        "embedding.hnsw_m, ef_construction and ef_search apply to HNSW "
        "graphs: set embedding.hnsw too, or leave them unset for exact "
        "search");
  }
  if (space.hnsw_m < 4 || space.hnsw_m > 64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "embedding.hnsw_m must be in [4, 64], got ", space.hnsw_m));
  }
  if (space.ef_construction < space.hnsw_m || space.ef_construction > 4096) {
    return absl::InvalidArgumentError(absl::StrCat(
        "embedding.ef_construction must be in [hnsw_m, 4096], got ",
        space.ef_construction));
  }
  if (space.ef_search < 16 || space.ef_search > 4096) {
    return absl::InvalidArgumentError(absl::StrCat(
        "embedding.ef_search must be in [16, 4096], got ", space.ef_search));
  }
  if (!(space.min_cosine > -1 && space.min_cosine <= 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "embedding.min_cosine must be in (-1, 1], got ", space.min_cosine));
  }
  if (space.fasttext_model.empty()) {
    if (!(space.chunking == ChunkingOptions{})) {
      return absl::InvalidArgumentError(
          "embedding chunking applies to texts the server embeds: set "
          "embedding.fasttext_model too, or leave the chunk fields unset");
    }
    return absl::OkStatus();
  }
  // A plain relative path: it must stay inside the server's --models-dir.
  const std::string& path = space.fasttext_model;
  if (path.size() > 1024 || path.front() == '/' ||
      path.find('\0') != std::string::npos || path == ".." ||
      path.starts_with("../") || path.ends_with("/..") ||
      path.find("/../") != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "embedding.fasttext_model must be a relative path inside the "
        "server's --models-dir without \"..\", got \"",
        absl::CHexEscape(path.substr(0, 200)), "\""));
  }
  absl::Status chunking = ValidateChunking(space.chunking);
  if (!chunking.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("embedding.", chunking.message()));
  }
  return absl::OkStatus();
}

// Sorted and distinct, so equal collections have equal configs.
absl::Status NormalizeKeptFamilies(std::vector<std::string>& families) {
  for (const std::string& name : families) {
    RETURN_IF_ERROR(KeptFamilyNamed(name).status());
  }
  std::sort(families.begin(), families.end());
  families.erase(std::unique(families.begin(), families.end()), families.end());
  return absl::OkStatus();
}

}  // namespace

bool CollectionConfig::Keeps(std::string_view family) const {
  return std::find(kept_families.begin(), kept_families.end(), family) !=
         kept_families.end();
}

double DefaultMinThreshold(double threshold) {
  // Rounded to 1e-9 so 0.8 gives 0.7, not 0.7000000000000001.
  return std::round(std::max(threshold - 0.1, threshold / 2) * 1e9) / 1e9;
}

int DefaultSlotBits(Verification verification) {
  return verification == Verification::kExact ? 8 : 16;
}

int EvidenceBitsOf(const CollectionConfig& config) {
  return config.evidence_bits == 0 ? kDefaultEvidenceBits
                                   : config.evidence_bits;
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
  if (config.slot_bits == 0) {
    config.slot_bits = DefaultSlotBits(config.verification);
  }
  if (config.slot_bits != 8 && config.slot_bits != 16 &&
      config.slot_bits != 32 && config.slot_bits != 64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "slot_bits must be 8, 16, 32 or 64, got ", config.slot_bits));
  }
  config.evidence_bits = EvidenceBitsOf(config);
  if (!ValidEvidenceBits(config.evidence_bits)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "evidence_bits must be 32 or 64, got ", config.evidence_bits));
  }
  if (auto tokenizer = MakeTokenizer(config.minhash_tokenizer);
      !tokenizer.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("minhash tokenizer: ", tokenizer.status().message()));
  }
  RETURN_IF_ERROR(NormalizePerceptual(config));
  RETURN_IF_ERROR(NormalizeEmbedding(config.embedding));
  RETURN_IF_ERROR(NormalizeKeptFamilies(config.kept_families));
  if (config.simhash_variant == SimHashVariant::kNewsbot) {
    if (!config.simhash_enabled) {
      return absl::InvalidArgumentError(
          "simhash variant newsbot needs SimHash on");
    }
    // newsbot fixes its tokens and weights: the other fields keep their
    // defaults so that equal collections have equal configs.
    const CollectionConfig defaults;
    config.simhash_tokenizer = defaults.simhash_tokenizer;
    config.simhash_weighting = defaults.simhash_weighting;
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

PerceptualConfig PerceptualConfigOf(const CollectionConfig& config) {
  PerceptualConfig out;
  if (auto split = SplitTokenizerName(config.minhash_tokenizer); split.ok()) {
    out.k = split->shingle_k;
  }
  out.w = config.winnow_window;
  out.rows = 8;
  out.bands = config.num_perm / out.rows;
  out.seed = config.seed;
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
