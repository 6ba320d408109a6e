#include "input.h"
#include "neardup/base/status_macros.h"
#include "neardup/cli/commands.h"

namespace neardup::cli {

CLI::App* AddCanonicalizeCommand(CLI::App* app, CanonicalizeCommand* cmd) {
  CLI::App* sub = app->add_subcommand(
      "canonicalize", "Print the canonical form of a text (what gets hashed)");
  sub->add_option("file", cmd->input, "Input file, or - for standard input")
      ->capture_default_str();
  AddCanonicalizerFlags(sub, &cmd->canonicalizer);
  return sub;
}

absl::Status RunCanonicalize(const CanonicalizeCommand& cmd,
                             std::ostream& out) {
  ASSIGN_OR_RETURN(Canonicalizer canonicalizer,
                   Canonicalizer::Create(cmd.canonicalizer));
  ASSIGN_OR_RETURN(std::string text, ReadInput(cmd.input));
  absl::StatusOr<std::string> canonical = canonicalizer.Canonicalize(text);
  if (!canonical.ok()) return InFile(cmd.input, canonical.status());
  out << *canonical;
  return absl::OkStatus();
}

}  // namespace neardup::cli
