// neardup export: a collection as JSONL, from one snapshot.

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"
#include "neardup/cli/internal/export_dump.h"
#include "server_command_parts.h"

namespace neardup::cli {

CLI::App* AddExportCommand(CLI::App* app, ServerCommands* cmd) {
  CLI::App* export_cmd = app->add_subcommand(
      "export",
      "write every document of a collection as JSONL to stdout, from one "
      "snapshot (neardup ingest reads it back)");
  AddServerFlags(export_cmd, &cmd->server);
  export_cmd->add_option("--collection,-c", cmd->collection)->required();
  export_cmd->add_flag("--with-signatures", cmd->with_signatures,
                       "also write each document's signatures and their "
                       "config hashes (an import then needs no text)");
  export_cmd->add_flag("--replica-only", cmd->replica_only,
                       "in a cluster: only the documents of the node asked "
                       "(its replica of one shard); needed for a collection "
                       "of several shards");
  export_cmd->add_option("--output,-o", cmd->output,
                         "write the JSONL here instead of stdout");

  return export_cmd;
}

absl::Status RunExport(const ServerCommands& cmd, std::ostream& stdout_stream) {
  // Connection settings first: a bad one must not empty an existing file.
  ASSIGN_OR_RETURN(client::ClientOptions options, OptionsOf(cmd.server));
  std::ofstream file;
  if (!cmd.output.empty()) {
    file.open(cmd.output, std::ios::binary | std::ios::trunc);
    if (!file.is_open()) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot write ", cmd.output));
    }
  }
  std::ostream& out = cmd.output.empty() ? stdout_stream : file;
  client::Client client(options);
  v1::ExportRequest request;
  request.set_collection(cmd.collection);
  request.set_with_signatures(cmd.with_signatures);
  request.set_replica_only(cmd.replica_only);
  const auto start = std::chrono::steady_clock::now();
  uint64_t documents = 0;
  RETURN_IF_ERROR(client.Export(
      request, [&](const v1::ExportResponse& message) -> absl::Status {
        if (message.has_collection() &&
            !message.collection().config().store_text() &&
            !cmd.with_signatures) {
          std::cerr << "neardup export: collection " << cmd.collection
                    << " keeps no text: without --with-signatures the dump "
                       "holds ids and metadata only and cannot be ingested\n";
        }
        for (const v1::Document& doc : message.documents()) {
          out << EncodeExportLine(doc) << '\n';
        }
        documents += message.documents_size();
        if (!out) return absl::DataLossError("cannot write the export");
        return absl::OkStatus();
      }));
  out.flush();
  if (!out) return absl::DataLossError("cannot write the export");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::cerr << "exported " << documents << " documents of " << cmd.collection
            << " in " << seconds << " s ("
            << static_cast<uint64_t>(documents / std::max(seconds, 1e-9))
            << " docs/s)\n";
  return absl::OkStatus();
}

}  // namespace neardup::cli
