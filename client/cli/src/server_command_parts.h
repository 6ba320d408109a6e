#ifndef NEARDUP_CLIENT_CLI_SRC_SERVER_COMMAND_PARTS_H_
#define NEARDUP_CLIENT_CLI_SRC_SERVER_COMMAND_PARTS_H_

// The server subcommands, one file each: collections_cmd.cc, ingest.cc,
// query_cmd.cc, get_cmd.cc, delete_cmd.cc, stats_cmd.cc, backup_cmd.cc,
// export_cmd.cc and health_cmd.cc. Each registers its subcommand with CLI11
// (Add*) and runs it against the server (Run*); server_commands.cc calls
// them. What they share is in server_flags.cc.

#include <ostream>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/message.h"
#include "neardup/cli/server_commands.h"
#include "neardup/client/client.h"
#include "neardup/v1/neardup.pb.h"

namespace neardup::cli {

// server_flags.cc
absl::StatusOr<client::ClientOptions> OptionsOf(const ServerFlags& flags);
void AddServerFlags(CLI::App* app, ServerFlags* flags);
absl::Status PrintJson(const google::protobuf::Message& message,
                       std::ostream& out);
void PrintCollection(const v1::Collection& c, std::ostream& out);

// collections create | list | get | drop: the four verbs join `commands`.
void AddCollectionsCommands(CLI::App* app, ServerCommands* cmd,
                            std::vector<CLI::App*>& commands);
absl::Status RunCollectionsCommand(std::string_view verb,
                                   const ServerCommands& cmd,
                                   std::ostream& out);

CLI::App* AddIngestCommand(CLI::App* app, ServerCommands* cmd);  // ingest.cc
CLI::App* AddQueryCommand(CLI::App* app, ServerCommands* cmd);
absl::Status RunQuery(const ServerCommands& cmd, std::ostream& out);
CLI::App* AddGetCommand(CLI::App* app, ServerCommands* cmd);
absl::Status RunGet(const ServerCommands& cmd, std::ostream& out);
CLI::App* AddDeleteCommand(CLI::App* app, ServerCommands* cmd);
absl::Status RunDelete(const ServerCommands& cmd, std::ostream& out);
CLI::App* AddStatsCommand(CLI::App* app, ServerCommands* cmd);
absl::Status RunStats(const ServerCommands& cmd, std::ostream& out);
CLI::App* AddBackupCommand(CLI::App* app, ServerCommands* cmd);
absl::Status RunBackup(const ServerCommands& cmd, std::ostream& out);
CLI::App* AddExportCommand(CLI::App* app, ServerCommands* cmd);
absl::Status RunExport(const ServerCommands& cmd, std::ostream& out);
CLI::App* AddHealthCommand(CLI::App* app, ServerCommands* cmd);
absl::Status RunHealth(const ServerCommands& cmd, std::ostream& out);

}  // namespace neardup::cli

#endif  // NEARDUP_CLIENT_CLI_SRC_SERVER_COMMAND_PARTS_H_
