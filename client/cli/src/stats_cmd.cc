// neardup stats: collection and store sizes.

#include "neardup/base/status_macros.h"
#include "server_command_parts.h"

namespace neardup::cli {

CLI::App* AddStatsCommand(CLI::App* app, ServerCommands* cmd) {
  CLI::App* stats = app->add_subcommand("stats", "collection and store sizes");
  AddServerFlags(stats, &cmd->server);
  stats->add_option("--collection,-c", cmd->collection, "one collection");

  return stats;
}

absl::Status RunStats(const ServerCommands& cmd, std::ostream& out) {
  ASSIGN_OR_RETURN(client::ClientOptions options, OptionsOf(cmd.server));
  client::Client client(options);
  ASSIGN_OR_RETURN(v1::StatsResponse stats, client.Stats(cmd.collection));
  if (cmd.server.json) return PrintJson(stats, out);
  for (const v1::CollectionStats& c : stats.collections()) {
    out << c.name() << ": " << c.document_count() << " documents, index "
        << c.index_bytes() << " bytes, bands x rows " << c.bands() << "x"
        << c.rows() << ", min_threshold " << c.min_threshold()
        << (c.simhash() ? ", simhash" : "") << "\n";
  }
  for (const v1::QuarantinedCollection& q : stats.quarantined()) {
    out << q.name() << ": QUARANTINED (not served): " << q.reason() << "\n";
  }
  out << "store: " << stats.store_live_bytes() << " bytes live ("
      << stats.store_blob_garbage_bytes()
      << " of them blob garbage, collection "
      << (stats.store_blob_gc_on() ? "on" : "off") << "), "
      << stats.store_pending_compaction_bytes() << " bytes pending compaction, "
      << stats.store_memtable_bytes() << " bytes in memtables\n";
  out << "disk: " << stats.disk_available_bytes() << " of "
      << stats.disk_capacity_bytes() << " bytes free, reserve "
      << stats.disk_reserve_bytes() << "\n";
  if (stats.disk_full()) {
    out << "DISK FULL: writes are refused: " << stats.disk_full_reason()
        << "\n";
  }
  return absl::OkStatus();
}

}  // namespace neardup::cli
