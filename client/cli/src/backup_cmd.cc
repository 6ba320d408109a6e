// neardup backup: a checkpoint of the server's store, made by the server.

#include "neardup/base/status_macros.h"
#include "server_command_parts.h"

namespace neardup::cli {

CLI::App* AddBackupCommand(CLI::App* app, ServerCommands* cmd) {
  CLI::App* backup = app->add_subcommand(
      "backup",
      "admin: checkpoint the server's whole store into a new directory under "
      "its --backup-dir (the server keeps serving)");
  AddServerFlags(backup, &cmd->server);
  backup
      ->add_option("destination", cmd->backup_destination,
                   "new directory, relative to the server's --backup-dir")
      ->required();

  return backup;
}

absl::Status RunBackup(const ServerCommands& cmd, std::ostream& out) {
  ASSIGN_OR_RETURN(client::ClientOptions options, OptionsOf(cmd.server));
  client::Client client(options);
  ASSIGN_OR_RETURN(v1::CreateBackupResponse backup,
                   client.CreateBackup(cmd.backup_destination));
  if (cmd.server.json) return PrintJson(backup, out);
  out << "backup in " << backup.path() << " (on the server): sequence number "
      << backup.sequence_number() << ", " << backup.bytes() << " bytes, "
      << backup.seconds() << " s\n";
  for (const v1::BackupCollection& c : backup.collections()) {
    out << "  " << c.name() << ": " << c.documents() << " documents\n";
  }
  out << "restore: start neardupd with --data-dir on a copy of it\n";
  return absl::OkStatus();
}

}  // namespace neardup::cli
