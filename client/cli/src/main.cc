// neardup: command-line tool for near-duplicate text detection.

#include <iostream>
#include <string_view>

#include "CLI/CLI.hpp"
#include "neardup/base/absl_compat.h"
#include "neardup/base/version.h"
#include "neardup/cli/commands.h"
#include "neardup/cli/server_commands.h"
#include "neardup/extract/pdf.h"

int main(int argc, char** argv) {
  // This binary is also the PDF parsing child it spawns (extract/pdf.h).
  if (int code = 0; neardup::extract::MaybeRunPdfChild(argc, argv, &code)) {
    return code;
  }
  neardup::SkipAbslLockOrderChecks();
  using namespace neardup::cli;
  CLI::App app{
      "neardup: near-duplicate text detection. Offline: canonicalize, "
      "fingerprint, compare (txtfp-compatible signatures) and dedup datasets. "
      "Against a neardupd server (--server or $NEARDUP_SERVER): collections, "
      "ingest, query, get, delete, stats, health, backup, export."};
  app.require_subcommand(1);
  app.set_version_flag("--version",
                       std::string("neardup ") + neardup::kVersion);

  CanonicalizeCommand canonicalize;
  FingerprintCommand fingerprint;
  CompareCommand compare;
  DedupCommand dedup;
  DedupTaskCommand dedup_task;
  EmbedCommand embed;
  CLI::App* canonicalize_cmd = AddCanonicalizeCommand(&app, &canonicalize);
  CLI::App* fingerprint_cmd = AddFingerprintCommand(&app, &fingerprint);
  CLI::App* compare_cmd = AddCompareCommand(&app, &compare);
  CLI::App* dedup_cmd = AddDedupCommand(&app, &dedup);
  CLI::App* dedup_task_cmd = AddDedupTaskCommand(&app, &dedup_task);
  CLI::App* embed_cmd = AddEmbedCommand(&app, &embed);
  ServerCommands server;
  const std::vector<CLI::App*> server_cmds = AddServerCommands(&app, &server);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Prints --help, --version or what is wrong. Exit 2: the command line is
    // wrong (a bad flag or flag value); exit 1: the command itself failed.
    return app.exit(e) == 0 ? 0 : 2;
  }

  std::ios::sync_with_stdio(false);
  absl::Status status;
  if (canonicalize_cmd->parsed()) {
    status = RunCanonicalize(canonicalize, std::cout);
  } else if (fingerprint_cmd->parsed()) {
    status = RunFingerprint(fingerprint, std::cout);
  } else if (compare_cmd->parsed()) {
    status = RunCompare(compare, std::cout);
  } else if (dedup_cmd->parsed()) {
    // A staged run's plan: the words after "dedup".
    for (int i = 1; i < argc; ++i) {
      if (std::string_view(argv[i]) != "dedup") continue;
      dedup.args.assign(argv + i + 1, argv + argc);
      break;
    }
    status = RunDedupCommand(dedup, std::cout);
  } else if (dedup_task_cmd->parsed()) {
    status = RunDedupTaskCommand(dedup_task);
  } else if (embed_cmd->parsed()) {
    status = RunEmbed(embed, std::cout);
  } else {
    for (const CLI::App* cmd : server_cmds) {
      if (cmd->parsed()) status = RunServerCommand(*cmd, server, std::cout);
    }
  }
  std::cout.flush();
  if (!status.ok()) {
    std::cerr << "neardup: error: " << status.message() << "\n";
    return 1;
  }
  return std::cout.good() ? 0 : 1;
}
