#include "neardup/cli/cli_options.h"

#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/config_hash.h"
#include "neardup/core/tokenizer.h"

namespace neardup::cli {
namespace {

absl::StatusOr<std::string> TokenizerName(const std::string& flag, int ngram) {
  std::string inner;
  if (flag == "word")
    inner = "word-uax29";
  else if (flag == "grapheme")
    inner = "grapheme-uax29";
  else if (flag == "cjk")
    inner = "cjk-icu";
  else {
    return absl::InvalidArgumentError(absl::StrCat(
        "--tokenizer must be word, grapheme or cjk (got \"", flag, "\")"));
  }
  if (ngram < 0 || ngram > kMaxShingleK) {
    return absl::InvalidArgumentError(
        absl::StrCat("--ngram must be between 0 and ", kMaxShingleK));
  }
  if (ngram == 0) return inner;
  return absl::StrCat("shingle-k=", ngram, "/", inner);
}

}  // namespace

absl::StatusOr<CanonicalizerOptions> CanonicalizerFlags::ToOptions() const {
  CanonicalizerOptions o;
  if (normalization == "nfkc")
    o.normalization = Normalization::kNfkc;
  else if (normalization == "nfc")
    o.normalization = Normalization::kNfc;
  else if (normalization == "none")
    o.normalization = Normalization::kNone;
  else {
    return absl::InvalidArgumentError(
        absl::StrCat("--normalization must be nfkc, nfc or none (got \"",
                     normalization, "\")"));
  }
  if (case_fold == "full" || case_fold == "simple")
    o.case_fold = CaseFold::kFull;
  else if (case_fold == "none")
    o.case_fold = CaseFold::kNone;
  else {
    return absl::InvalidArgumentError(absl::StrCat(
        "--case-fold must be full or none (got \"", case_fold, "\")"));
  }
  o.strip_bidi = !keep_bidi;
  o.strip_format = !keep_format;
  o.confusable_skeleton = confusable;
  return o;
}

void AddCanonicalizerFlags(CLI::App* app, CanonicalizerFlags* flags) {
  app->add_option("--normalization", flags->normalization,
                  "Unicode normalization: nfkc, nfc or none")
      ->capture_default_str();
  app->add_option("--case-fold", flags->case_fold,
                  "Case folding: full (config name cf-simple) or none")
      ->capture_default_str();
  app->add_flag("--keep-bidi", flags->keep_bidi,
                "Keep bidi control characters (stripped by default)");
  app->add_flag("--keep-format", flags->keep_format,
                "Keep zero-width/format characters (stripped by default)");
  app->add_flag("--confusable", flags->confusable,
                "Apply the UTS #39 confusable skeleton (for identifiers)");
}

void AddFingerprintFlags(CLI::App* app, FingerprintFlags* flags,
                         bool with_algo) {
  if (with_algo) {
    app->add_option("--algo", flags->algo, "minhash or simhash")
        ->capture_default_str();
  }
  app->add_option("--ngram", flags->ngram,
                  "Words per shingle; 0 = plain tokens (default: 5 for "
                  "MinHash, 0 for SimHash)");
  app->add_option("--num-perm", flags->num_perm,
                  "MinHash slots H: 64, 128 or 256")
      ->capture_default_str();
  app->add_option("--seed", flags->seed, "Hash seed (decimal or 0x hex)")
      ->capture_default_str();
  app->add_option("--hash", flags->hash, "Hash family: xxh3 or mmh3")
      ->capture_default_str();
  app->add_option("--tokenizer", flags->tokenizer, "word, grapheme or cjk")
      ->capture_default_str();
  app->add_option("--weighting", flags->weighting,
                  "SimHash weighting: tf or uniform")
      ->capture_default_str();
  AddCanonicalizerFlags(app, &flags->canonicalizer);
}

namespace {

absl::StatusOr<uint64_t> ParseSeed(const std::string& text) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    return ParseHex64(text);
  }
  uint64_t v = 0;
  if (text.empty() || text.size() > 20) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad --seed \"", text, "\""));
  }
  for (char c : text) {
    if (c < '0' || c > '9') {
      return absl::InvalidArgumentError(
          absl::StrCat("bad --seed \"", text, "\""));
    }
    const uint64_t next = v * 10 + static_cast<uint64_t>(c - '0');
    if (next / 10 != v) {
      return absl::InvalidArgumentError(
          absl::StrCat("--seed \"", text, "\" does not fit in 64 bits"));
    }
    v = next;
  }
  return v;
}

absl::StatusOr<HashFamily> ParseFamilyFlag(const std::string& hash) {
  if (hash == "xxh3") return HashFamily::kXxh3;
  if (hash == "mmh3") return HashFamily::kMurmur3;
  return absl::InvalidArgumentError(
      absl::StrCat("--hash must be xxh3 or mmh3 (got \"", hash, "\")"));
}

}  // namespace

absl::StatusOr<MinHashConfig> FingerprintFlags::ToMinHash() const {
  MinHashConfig c;
  ASSIGN_OR_RETURN(c.canonicalizer, canonicalizer.ToOptions());
  ASSIGN_OR_RETURN(c.tokenizer,
                   TokenizerName(tokenizer, ngram < 0 ? 5 : ngram));
  ASSIGN_OR_RETURN(c.seed, ParseSeed(seed));
  ASSIGN_OR_RETURN(c.family, ParseFamilyFlag(hash));
  c.num_perm = num_perm;
  return c;
}

absl::StatusOr<SimHashConfig> FingerprintFlags::ToSimHash() const {
  SimHashConfig c;
  ASSIGN_OR_RETURN(c.canonicalizer, canonicalizer.ToOptions());
  ASSIGN_OR_RETURN(c.tokenizer,
                   TokenizerName(tokenizer, ngram < 0 ? 0 : ngram));
  ASSIGN_OR_RETURN(c.seed, ParseSeed(seed));
  ASSIGN_OR_RETURN(c.family, ParseFamilyFlag(hash));
  if (weighting == "tf")
    c.weighting = SimHashWeighting::kTf;
  else if (weighting == "uniform")
    c.weighting = SimHashWeighting::kUniform;
  else {
    return absl::InvalidArgumentError(absl::StrCat(
        "--weighting must be tf or uniform (got \"", weighting, "\")"));
  }
  return c;
}

}  // namespace neardup::cli
