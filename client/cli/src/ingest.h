#ifndef NEARDUP_CLIENT_CLI_SRC_INGEST_H_
#define NEARDUP_CLIENT_CLI_SRC_INGEST_H_

// `neardup ingest`: reads records from files (the dedup readers) and streams
// them to neardupd with BulkUpsert, with a progress line and a summary.

#include <ostream>

#include "absl/status/status.h"
#include "neardup/cli/server_commands.h"
#include "neardup/client/client.h"

namespace neardup::cli {

absl::Status RunIngest(const ServerCommands& cmd,
                       const client::ClientOptions& options, std::ostream& out);

}  // namespace neardup::cli

#endif  // NEARDUP_CLIENT_CLI_SRC_INGEST_H_
