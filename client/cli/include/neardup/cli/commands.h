#ifndef NEARDUP_CLI_COMMANDS_H_
#define NEARDUP_CLI_COMMANDS_H_

// Offline subcommands of `neardup`. Each has a flags struct, a function that
// registers it with CLI11 and a Run function that writes to `out`, so tests
// can drive them in-process.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "neardup/cli/cli_options.h"

namespace neardup::cli {

struct CanonicalizeCommand {
  std::string input = "-";
  CanonicalizerFlags canonicalizer;
};
CLI::App* AddCanonicalizeCommand(CLI::App* app, CanonicalizeCommand* cmd);
absl::Status RunCanonicalize(const CanonicalizeCommand& cmd, std::ostream& out);

struct FingerprintCommand {
  std::string input = "-";
  std::string format = "hex";  // hex, raw or json
  FingerprintFlags fingerprint;
};
CLI::App* AddFingerprintCommand(CLI::App* app, FingerprintCommand* cmd);
absl::Status RunFingerprint(const FingerprintCommand& cmd, std::ostream& out);

struct CompareCommand {
  std::string input_a;
  std::string input_b;
  bool json = false;
  FingerprintFlags fingerprint;
};
CLI::App* AddCompareCommand(CLI::App* app, CompareCommand* cmd);
absl::Status RunCompare(const CompareCommand& cmd, std::ostream& out);

struct DedupCommand {
  std::vector<std::string> inputs;
  std::string output;
  bool stream = false;
  std::string format = "auto";
  std::string field = "text";
  bool doc_per_file = false;
  std::string algorithm = "minhash-lsh";
  std::string verify = "estimate";
  double threshold = 0.85;
  int bands = 0;
  int max_distance = 3;
  uint64_t expected_docs = 0;
  double bloom_fp = 0.001;
  int min_length = 50;
  int threads = 0;
  std::string clusters;
  std::string stats;
  std::string spans;
  bool skip_invalid = false;
  bool drop_empty = false;
  bool no_progress = false;
  uint64_t max_record_bytes = uint64_t{64} << 20;
  FingerprintFlags fingerprint;
};
CLI::App* AddDedupCommand(CLI::App* app, DedupCommand* cmd);
// Prints a one-line summary to `out` (nothing with --stream or -o -, where
// standard output carries the records).
absl::Status RunDedupCommand(const DedupCommand& cmd, std::ostream& out);

}  // namespace neardup::cli

#endif  // NEARDUP_CLI_COMMANDS_H_
