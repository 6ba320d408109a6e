#include "neardup/cli/server_commands.h"

#include "ingest.h"
#include "neardup/base/status_macros.h"
#include "server_command_parts.h"

namespace neardup::cli {

std::vector<CLI::App*> AddServerCommands(CLI::App* app, ServerCommands* cmd) {
  std::vector<CLI::App*> commands;
  AddCollectionsCommands(app, cmd, commands);
  commands.push_back(AddIngestCommand(app, cmd));
  commands.push_back(AddQueryCommand(app, cmd));
  commands.push_back(AddGetCommand(app, cmd));
  commands.push_back(AddDeleteCommand(app, cmd));
  commands.push_back(AddStatsCommand(app, cmd));
  commands.push_back(AddBackupCommand(app, cmd));
  commands.push_back(AddExportCommand(app, cmd));
  commands.push_back(AddHealthCommand(app, cmd));
  return commands;
}

absl::Status RunServerCommand(const CLI::App& which, const ServerCommands& cmd,
                              std::ostream& out) {
  const std::string name = which.get_name();
  const std::string parent =
      which.get_parent() ? which.get_parent()->get_name() : "";
  if (parent == "collections") return RunCollectionsCommand(name, cmd, out);
  if (name == "ingest") {
    ASSIGN_OR_RETURN(client::ClientOptions options, OptionsOf(cmd.server));
    return RunIngest(cmd, options, out);
  }
  if (name == "query") return RunQuery(cmd, out);
  if (name == "get") return RunGet(cmd, out);
  if (name == "delete") return RunDelete(cmd, out);
  if (name == "stats") return RunStats(cmd, out);
  if (name == "backup") return RunBackup(cmd, out);
  if (name == "export") return RunExport(cmd, out);
  return RunHealth(cmd, out);
}

}  // namespace neardup::cli
