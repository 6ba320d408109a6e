#include "neardup/core/fingerprint_settings.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/config_hash.h"
#include "neardup/core/enum_tables.h"
#include "neardup/core/tokenizer.h"

namespace neardup {
namespace {

constexpr std::string_view kShinglePrefix = "shingle-k=";

absl::Status CheckShingleK(int k) {
  if (k < 0 || k > kMaxShingleK) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shingle size must be in [0, ", kMaxShingleK, "], got ", k));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> BaseTokenizerName(std::string_view name) {
  if (name == "word" || name == "word-uax29") return std::string("word-uax29");
  if (name == "grapheme" || name == "grapheme-uax29") {
    return std::string("grapheme-uax29");
  }
  if (name == "cjk" || name == "cjk-icu") return std::string("cjk-icu");
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown tokenizer \"", AbslView(name),
      "\": use word, grapheme or cjk (shingles are set by their size)"));
}

absl::StatusOr<std::string> ShingledTokenizerName(std::string_view base,
                                                  int k) {
  RETURN_IF_ERROR(CheckShingleK(k));
  if (k <= 1) return std::string(base);
  return absl::StrCat(AbslView(kShinglePrefix), k, "/", AbslView(base));
}

absl::StatusOr<SplitTokenizer> SplitTokenizerName(std::string_view name) {
  if (!name.starts_with(kShinglePrefix)) {
    ASSIGN_OR_RETURN(std::string base, BaseTokenizerName(name));
    return SplitTokenizer{std::move(base), 1};
  }
  const size_t slash = name.find('/');
  int k = 0;
  if (slash == std::string_view::npos ||
      !absl::SimpleAtoi(AbslView(name.substr(kShinglePrefix.size(),
                                             slash - kShinglePrefix.size())),
                        &k)) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed tokenizer name \"", AbslView(name), "\""));
  }
  RETURN_IF_ERROR(CheckShingleK(k));
  ASSIGN_OR_RETURN(std::string base, BaseTokenizerName(name.substr(slash + 1)));
  return SplitTokenizer{std::move(base), k};
}

absl::StatusOr<uint64_t> ParseSeed(std::string_view text) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    return ParseHex64(text);
  }
  uint64_t value = 0;
  if (text.empty() || !absl::SimpleAtoi(AbslView(text), &value) ||
      text.find_first_not_of("0123456789") != std::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("seed \"", AbslView(text),
                     "\" is not a 64-bit decimal or 0x-prefixed hex number"));
  }
  return value;
}

absl::StatusOr<Normalization> ParseNormalization(std::string_view name) {
  return kNormalizations.Parse(name);
}

absl::StatusOr<CaseFold> ParseCaseFold(std::string_view name) {
  return kCaseFolds.Parse(name);
}

absl::StatusOr<MinHashConfig> MinHashConfigOf(
    const FingerprintSettings& settings) {
  MinHashConfig config;
  config.canonicalizer = settings.canonicalizer;
  ASSIGN_OR_RETURN(std::string base, BaseTokenizerName(settings.tokenizer));
  ASSIGN_OR_RETURN(config.tokenizer,
                   ShingledTokenizerName(base, settings.shingle_k == 0
                                                   ? kDefaultMinHashShingleK
                                                   : settings.shingle_k));
  config.num_perm = settings.num_perm;
  config.seed = settings.seed;
  config.family = settings.family;
  return config;
}

absl::StatusOr<SimHashConfig> SimHashConfigOf(
    const FingerprintSettings& settings) {
  SimHashConfig config;
  config.canonicalizer = settings.canonicalizer;
  ASSIGN_OR_RETURN(std::string base, BaseTokenizerName(settings.tokenizer));
  ASSIGN_OR_RETURN(config.tokenizer,
                   ShingledTokenizerName(base, settings.shingle_k));
  config.weighting = settings.weighting;
  config.seed = settings.seed;
  config.family = settings.family;
  return config;
}

absl::StatusOr<CollectionConfig> CollectionConfigOf(
    const FingerprintSettings& settings) {
  CollectionConfig config;
  ASSIGN_OR_RETURN(const MinHashConfig minhash, MinHashConfigOf(settings));
  config.canonicalizer = minhash.canonicalizer;
  config.minhash_tokenizer = minhash.tokenizer;
  config.num_perm = minhash.num_perm;
  config.seed = minhash.seed;
  config.family = minhash.family;
  ASSIGN_OR_RETURN(config.simhash_tokenizer,
                   BaseTokenizerName(settings.tokenizer));
  config.simhash_weighting = settings.weighting;
  return config;
}

PerceptualConfig PerceptualConfigOf(const FingerprintSettings& settings,
                                    int winnow_window) {
  PerceptualConfig config;
  if (settings.shingle_k > 0) config.k = settings.shingle_k;
  config.w = winnow_window;
  config.rows = 8;
  config.bands = settings.num_perm / config.rows;
  config.seed = settings.seed;
  return config;
}

}  // namespace neardup
