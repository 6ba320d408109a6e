#ifndef NEARDUP_CLIENT_CLI_COMMANDS_H_
#define NEARDUP_CLIENT_CLI_COMMANDS_H_

// Offline subcommands of `neardup`. Each has a flags struct, a function that
// registers it with CLI11 and a Run function that writes to `out`, so tests
// can drive them in-process.

#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "client/cli/cli_options.h"

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

}  // namespace neardup::cli

#endif  // NEARDUP_CLIENT_CLI_COMMANDS_H_
