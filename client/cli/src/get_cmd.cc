// neardup get: one stored document.

#include "neardup/base/status_macros.h"
#include "server_command_parts.h"

namespace neardup::cli {

CLI::App* AddGetCommand(CLI::App* app, ServerCommands* cmd) {
  CLI::App* get_doc = app->add_subcommand("get", "show a stored document");
  AddServerFlags(get_doc, &cmd->server);
  get_doc->add_option("--collection,-c", cmd->collection)->required();
  get_doc->add_option("id", cmd->id)->required();
  return get_doc;
}

absl::Status RunGet(const ServerCommands& cmd, std::ostream& out) {
  ASSIGN_OR_RETURN(client::ClientOptions options, OptionsOf(cmd.server));
  client::Client client(options);
  ASSIGN_OR_RETURN(v1::Document doc, client.Get(cmd.collection, cmd.id));
  if (cmd.server.json) return PrintJson(doc, out);
  out << doc.id() << "\n";
  for (const auto& [key, value] : doc.metadata()) {
    out << "  " << key << "=" << value << "\n";
  }
  if (!doc.text().empty()) out << doc.text() << "\n";
  return absl::OkStatus();
}

}  // namespace neardup::cli
