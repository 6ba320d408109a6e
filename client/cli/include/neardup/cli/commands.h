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
#include "neardup/core/chunking.h"
#include "neardup/core/newsbot_simhash.h"
#include "neardup/core/perceptual.h"
#include "neardup/dedup/dedup_options.h"

namespace neardup::cli {

struct CanonicalizeCommand {
  std::string input = "-";
  CanonicalizerOptions canonicalizer;
};
CLI::App* AddCanonicalizeCommand(CLI::App* app, CanonicalizeCommand* cmd);
absl::Status RunCanonicalize(const CanonicalizeCommand& cmd, std::ostream& out);

// `neardup embed`: a text's vector from a local fastText model, as a
// collection with that model computes it.
struct EmbedCommand {
  std::string input = "-";
  std::string model;                        // the .bin file
  ChunkingOptions chunking{.overlap = -1};  // -1: DefaultChunkOverlap
  std::string content_type;                 // empty: from the file extension
};
CLI::App* AddEmbedCommand(CLI::App* app, EmbedCommand* cmd);
absl::Status RunEmbed(const EmbedCommand& cmd, std::ostream& out);

struct FingerprintCommand {
  std::string input = "-";
  std::string format = "hex";  // hex, raw or json
  // minhash, simhash, tlsh, newsbot or perceptual
  std::string algorithm = "minhash";
  bool raw_bytes = false;                    // tlsh: hash the bytes as they are
  int bits = kDefaultNewsbotBits;            // newsbot: 16, 32, 64 or 128
  int winnow_window = kDefaultWinnowWindow;  // perceptual (k is --ngram,
                                             // 0 meaning 9)
  // MIME type of the input; empty: from the file extension.
  std::string content_type;
  FingerprintSettings fingerprint;
};
CLI::App* AddFingerprintCommand(CLI::App* app, FingerprintCommand* cmd);
absl::Status RunFingerprint(const FingerprintCommand& cmd, std::ostream& out);

struct CompareCommand {
  std::string input_a;
  std::string input_b;
  bool json = false;
  // all (MinHash, SimHash, and TLSH when both inputs allow it), tlsh,
  // newsbot or perceptual.
  std::string algorithm = "all";
  bool raw_bytes = false;                    // tlsh: hash the bytes as they are
  int bits = kDefaultNewsbotBits;            // newsbot: 16, 32, 64 or 128
  int winnow_window = kDefaultWinnowWindow;  // perceptual (k is --ngram,
                                             // 0 meaning 9)
  bool explain = false;  // also list the passages a and b share
  // MIME type of both inputs; empty: from each file's extension.
  std::string content_type;
  FingerprintSettings fingerprint;
};
CLI::App* AddCompareCommand(CLI::App* app, CompareCommand* cmd);
absl::Status RunCompare(const CompareCommand& cmd, std::ostream& out);

// The flags are bound straight into dedup::DedupOptions.
struct DedupCommand {
  dedup::DedupOptions options;
  // A staged run (--tasks > 0, see dedup/staged.h) and its runner.
  int tasks = 0;
  std::string work_dir;
  std::string memory = "1G";  // per task
  std::string runner = "local";
  int parallel = 0;  // local: tasks at once (0: one per core)
  std::vector<std::string> slurm_options;  // slurm: #SBATCH lines
  bool no_wait = false;                    // slurm: submit and return
  bool plan_only = false;  // write the plan; other runners run the tasks
  // The command line after "dedup": a staged run's tasks parse it again.
  std::vector<std::string> args;
};
CLI::App* AddDedupCommand(CLI::App* app, DedupCommand* cmd);
// Prints a one-line summary to `out` (nothing with --stream or -o -, where
// standard output carries the records).
absl::Status RunDedupCommand(const DedupCommand& cmd, std::ostream& out);

// `neardup dedup-task`: one task of a staged run, whose options come from
// the plan in its work directory.
struct DedupTaskCommand {
  std::string work_dir;
  std::string stage;
  int task_index = -1;  // -1: $SLURM_ARRAY_TASK_ID or $JOB_COMPLETION_INDEX
};
CLI::App* AddDedupTaskCommand(CLI::App* app, DedupTaskCommand* cmd);
absl::Status RunDedupTaskCommand(const DedupTaskCommand& cmd);

}  // namespace neardup::cli

#endif  // NEARDUP_CLI_COMMANDS_H_
