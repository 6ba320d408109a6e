#ifndef NEARDUP_CLI_CLI_OPTIONS_H_
#define NEARDUP_CLI_CLI_OPTIONS_H_

// Flags shared by several subcommands, and their translation to core configs.

#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "neardup/core/canonicalizer.h"
#include "neardup/core/minhash.h"
#include "neardup/core/simhash.h"

namespace neardup::cli {

struct CanonicalizerFlags {
  std::string normalization = "nfkc";
  std::string case_fold = "full";
  bool keep_bidi = false;
  bool keep_format = false;
  bool confusable = false;

  absl::StatusOr<CanonicalizerOptions> ToOptions() const;
};
void AddCanonicalizerFlags(CLI::App* app, CanonicalizerFlags* flags);

struct FingerprintFlags {
  std::string algo = "minhash";
  int ngram = -1;  // -1: algorithm default (MinHash 5, SimHash 0 = plain)
  int num_perm = 128;
  std::string seed = "0x00C0FFEE5EED";
  std::string hash = "xxh3";
  std::string tokenizer = "word";
  std::string weighting = "tf";
  CanonicalizerFlags canonicalizer;

  absl::StatusOr<MinHashConfig> ToMinHash() const;
  absl::StatusOr<SimHashConfig> ToSimHash() const;
};
// Adds --ngram, --num-perm, --seed, --hash, --tokenizer, --weighting and the
// canonicalizer switches (and --algo if `with_algo`).
void AddFingerprintFlags(CLI::App* app, FingerprintFlags* flags,
                         bool with_algo);

}  // namespace neardup::cli

#endif  // NEARDUP_CLI_CLI_OPTIONS_H_
