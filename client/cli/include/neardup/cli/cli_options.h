#ifndef NEARDUP_CLI_CLI_OPTIONS_H_
#define NEARDUP_CLI_CLI_OPTIONS_H_

// Flags shared by several subcommands, bound straight into core's structs:
// FingerprintSettings is the one vocabulary the server's FingerprintConfig
// and dedup use too. A value core cannot parse fails the command line with
// the flag's name and core's message.

#include <string>
#include <string_view>

#include "CLI/CLI.hpp"
#include "neardup/core/canonicalizer.h"
#include "neardup/core/fingerprint_settings.h"
#include "neardup/core/kept_family.h"
#include "neardup/core/stateless.h"

namespace neardup::cli {

// Binds `flag` to `*field` through `parse` (string -> absl::StatusOr<T>,
// usually core's parser for T): a value it refuses fails the command line
// with the flag's name and the parser's message.
template <typename T, typename Parse>
CLI::Option* AddParsedOption(CLI::App* app, const std::string& flag, T* field,
                             Parse parse, const std::string& help) {
  return app->add_option_function<std::string>(
      flag,
      [flag, field, parse](const std::string& text) {
        auto value = parse(text);
        if (!value.ok()) {
          throw CLI::ValidationError(flag,
                                     std::string(value.status().message()));
        }
        *field = *std::move(value);
      },
      help);
}

// Says once, on standard error, that `old_flag` is deprecated and what to
// use instead.
// Refuses a name no kept family (core/kept_family.h) has, listing those
// there are.
CLI::Validator KeptFamilyValidator();
// "tlsh: <its summary>", one family after another, for --help.
std::string KeptFamilySummaries();

void WarnDeprecated(const std::string& old_flag, const std::string& new_flag);

// An old spelling of a parsed option, kept for one release: it sets what
// `new_flag` sets, is left out of --help, and says it is deprecated.
template <typename T, typename Parse>
CLI::Option* AddDeprecatedParsedOption(CLI::App* app,
                                       const std::string& old_flag,
                                       const std::string& new_flag, T* field,
                                       Parse parse) {
  return AddParsedOption(
             app, old_flag, field,
             [old_flag, new_flag, parse](const std::string& text) {
               WarnDeprecated(old_flag, new_flag);
               return parse(text);
             },
             "deprecated: use " + new_flag)
      ->group("");
}

// The same, for an option that stores its text as it is.
CLI::Option* AddDeprecatedOption(CLI::App* app, const std::string& old_flag,
                                 const std::string& new_flag,
                                 std::string* field);

// --normalization, --case-fold, --keep-bidi, --keep-format, --confusable.
void AddCanonicalizerFlags(CLI::App* app, CanonicalizerOptions* options);

// --content-type: text/plain, text/html, text/markdown or application/pdf;
// left empty, the command picks it from the file extension.
void AddContentTypeFlag(CLI::App* app, std::string* content_type);

// --tokenizer, --ngram, --num-perm, --seed, --hash, --weighting and the
// canonicalizer flags.
void AddFingerprintFlags(CLI::App* app, FingerprintSettings* settings);

// The flags of one --kind that fingerprint and compare share:
// --winnow-window (perceptual), --bits (newsbot) and --raw (tlsh).
void AddKindFlags(CLI::App* app, int* winnow_window, int* bits, bool* raw);
// The stateless options of --kind (all, minhash, simhash, tlsh, newsbot or
// perceptual; tlsh with --raw hashes the bytes) and its flags.
// INVALID_ARGUMENT for a kind flag given with another --kind.
absl::StatusOr<StatelessOptions> StatelessOptionsOfFlags(
    std::string_view kind, const FingerprintSettings& settings,
    int winnow_window, int bits, bool raw);

}  // namespace neardup::cli

#endif  // NEARDUP_CLI_CLI_OPTIONS_H_
