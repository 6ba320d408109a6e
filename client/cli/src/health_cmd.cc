// neardup health: exit 0 when the server is SERVING.

#include "neardup/base/status_macros.h"
#include "server_command_parts.h"

namespace neardup::cli {

CLI::App* AddHealthCommand(CLI::App* app, ServerCommands* cmd) {
  CLI::App* health = app->add_subcommand(
      "health", "exit 0 when the server is SERVING (for probes)");
  AddServerFlags(health, &cmd->server);
  return health;
}

absl::Status RunHealth(const ServerCommands& cmd, std::ostream& out) {
  ASSIGN_OR_RETURN(client::ClientOptions options, OptionsOf(cmd.server));
  client::Client client(options);
  ASSIGN_OR_RETURN(auto status, client.Health());
  out << grpc::health::v1::HealthCheckResponse::ServingStatus_Name(status)
      << "\n";
  if (status != grpc::health::v1::HealthCheckResponse::SERVING) {
    return absl::UnavailableError("neardupd is not serving");
  }
  return absl::OkStatus();
}

}  // namespace neardup::cli
