#include "neardup/cli/cli_options.h"

#include <iostream>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/base/sync.h"
#include "neardup/core/enum_tables.h"
#include "neardup/core/hash.h"
#include "neardup/core/newsbot_simhash.h"
#include "neardup/core/perceptual.h"
#include "neardup/core/simhash.h"
#include "neardup/core/tokenizer.h"
#include "neardup/extract/content_type.h"

namespace neardup::cli {

void AddContentTypeFlag(CLI::App* app, std::string* content_type) {
  app->add_option_function<std::string>(
      "--content-type",
      [content_type](const std::string& value) {
        if (auto type = extract::ParseContentType(value); !type.ok()) {
          throw CLI::ValidationError("--content-type",
                                     std::string(type.status().message()));
        }
        *content_type = value;
      },
      "what the input holds: text/plain, text/html, text/markdown or "
      "application/pdf (default: text, or for files read whole by their "
      "extension: .html/.htm, .md/.markdown, .pdf)");
}

void AddCanonicalizerFlags(CLI::App* app, CanonicalizerOptions* options) {
  AddParsedOption(app, "--normalization", &options->normalization,
                  ParseNormalization,
                  "Unicode normalization: nfkc (default), nfc or none");
  AddParsedOption(
      app, "--case-fold", &options->case_fold, ParseCaseFold,
      "Case folding: full (default; config name cf-simple) or none");
  app->add_flag_callback(
      "--keep-bidi", [options] { options->strip_bidi = false; },
      "Keep bidi control characters (stripped by default)");
  app->add_flag_callback(
      "--keep-format", [options] { options->strip_format = false; },
      "Keep zero-width/format characters (stripped by default)");
  app->add_flag("--confusable", options->confusable_skeleton,
                "Apply the UTS #39 confusable skeleton");
  app->add_flag("--strip-ignorables", options->strip_ignorable,
                "Drop every Default_Ignorable_Code_Point (soft hyphen "
                "included)");
  app->add_flag("--fold-small-capitals", options->fold_small_capitals,
                "After the skeleton, Latin small capitals and kra become the "
                "ASCII letter they look like");
  app->add_flag("--fold-look-alikes", options->fold_look_alikes,
                "Look-alikes of Latin letters become them before case "
                "folding (Greek B, Cyrillic M capitals) inside Latin words "
                "and in look-alike words next to them, and i becomes l (I, "
                "l, 1 read alike)");
  app->add_option_function<std::string>(
      "--profile",
      [options](const std::string& name) {
        auto profile = CanonicalizerProfile(name);
        if (!profile.ok()) {
          throw CLI::ValidationError("--profile",
                                     std::string(profile.status().message()));
        }
        // The profile's switches on top of the other flags.
        options->strip_ignorable |= profile->strip_ignorable;
        options->confusable_skeleton |= profile->confusable_skeleton;
        options->fold_small_capitals |= profile->fold_small_capitals;
        options->fold_look_alikes |= profile->fold_look_alikes;
      },
      "Canonicalizer profile: txtfp (default) or robust (+ "
      "--strip-ignorables --confusable --fold-small-capitals "
      "--fold-look-alikes: finds copies "
      "disguised with "
      "invisible characters or look-alike letters)");
}

void AddFingerprintFlags(CLI::App* app, FingerprintSettings* settings) {
  app->add_option("--tokenizer", settings->tokenizer, "word, grapheme or cjk")
      ->capture_default_str();
  app->add_option("--ngram", settings->shingle_k,
                  "Tokens per shingle: 0 = the algorithm's default (MinHash "
                  "5, SimHash plain tokens), 1 = plain tokens")
      ->check(CLI::Range(0, kMaxShingleK))
      ->capture_default_str();
  app->add_option("--num-perm", settings->num_perm,
                  "MinHash slots H: 64, 128 or 256")
      ->capture_default_str();
  AddParsedOption(app, "--seed", &settings->seed, ParseSeed,
                  "Hash seed, decimal or 0x hex (default 0x00C0FFEE5EED)");
  AddParsedOption(app, "--hash", &settings->family, ParseHashFamily,
                  "Hash family: xxh3 (default) or mmh3");
  AddParsedOption(app, "--weighting", &settings->weighting,
                  ParseSimHashWeighting,
                  "SimHash weighting: tf (default) or uniform");
  AddCanonicalizerFlags(app, &settings->canonicalizer);
}

CLI::Validator KeptFamilyValidator() {
  return CLI::Validator(
      [](std::string& name) -> std::string {
        absl::StatusOr<const KeptFamily*> family = KeptFamilyNamed(name);
        return family.ok() ? std::string()
                           : std::string(family.status().message());
      },
      "FAMILY");
}

std::string KeptFamilySummaries() {
  std::string out;
  for (const KeptFamily* family : KeptFamilies()) {
    absl::StrAppend(&out, out.empty() ? "" : "; ", AbslView(family->name), ": ",
                    AbslView(family->summary));
  }
  return out;
}

void WarnDeprecated(const std::string& old_flag, const std::string& new_flag) {
  // Never destroyed: a command may still parse while the process exits.
  static Mutex* const mu = new Mutex;
  static std::set<std::string>* const warned = new std::set<std::string>;
  MutexLock lock(mu);
  if (!warned->insert(old_flag).second) return;
  std::cerr << "neardup: " << old_flag << " is deprecated and will go in the "
            << "next release; use " << new_flag << "\n";
}

CLI::Option* AddDeprecatedOption(CLI::App* app, const std::string& old_flag,
                                 const std::string& new_flag,
                                 std::string* field) {
  return app
      ->add_option_function<std::string>(
          old_flag,
          [old_flag, new_flag, field](const std::string& text) {
            WarnDeprecated(old_flag, new_flag);
            *field = text;
          },
          "deprecated: use " + new_flag)
      ->group("");
}

void AddKindFlags(CLI::App* app, int* winnow_window, int* bits, bool* raw) {
  app->add_option("--winnow-window", *winnow_window,
                  "perceptual: winnowing window in shingles")
      ->capture_default_str();
  app->add_option("--bits", *bits, "newsbot: 16, 32, 64 or 128")
      ->check(CLI::IsMember(
          std::vector<int>(kNewsbotBitWidths.begin(), kNewsbotBitWidths.end())))
      ->capture_default_str();
  app->add_flag("--raw", *raw,
                "tlsh: hash the input bytes as they are (any bytes, no "
                "canonicalization)");
}

absl::StatusOr<StatelessOptions> StatelessOptionsOfFlags(
    std::string_view kind, const FingerprintSettings& settings,
    int winnow_window, int bits, bool raw) {
  if (raw && kind != "tlsh") {
    return absl::InvalidArgumentError(
        "--raw applies to --kind tlsh only: MinHash and SimHash hash "
        "canonical tokens");
  }
  if (bits != kDefaultNewsbotBits && kind != "newsbot") {
    return absl::InvalidArgumentError("--bits applies to --kind newsbot only");
  }
  if (winnow_window != kDefaultWinnowWindow && kind != "perceptual") {
    return absl::InvalidArgumentError(
        "--winnow-window applies to --kind perceptual only");
  }
  StatelessOptions options;
  ASSIGN_OR_RETURN(options.kind, kFingerprintKinds.Parse(kind));
  if (raw) options.kind = FingerprintKind::kTlshRaw;
  options.settings = settings;
  options.newsbot_bits = bits;
  options.winnow_window = winnow_window;
  return options;
}

}  // namespace neardup::cli
