// neardup delete: one stored document.

#include "neardup/base/status_macros.h"
#include "server_command_parts.h"

namespace neardup::cli {

CLI::App* AddDeleteCommand(CLI::App* app, ServerCommands* cmd) {
  CLI::App* del = app->add_subcommand("delete", "delete a stored document");
  AddServerFlags(del, &cmd->server);
  del->add_option("--collection,-c", cmd->collection)->required();
  del->add_option("id", cmd->id)->required();

  return del;
}

absl::Status RunDelete(const ServerCommands& cmd, std::ostream& out) {
  ASSIGN_OR_RETURN(client::ClientOptions options, OptionsOf(cmd.server));
  client::Client client(options);
  RETURN_IF_ERROR(client.Delete(cmd.collection, cmd.id));
  if (!cmd.server.json) out << "deleted " << cmd.id << "\n";
  return absl::OkStatus();
}

}  // namespace neardup::cli
