#ifndef NEARDUP_TESTS_CLUSTER_REPLICA_EXPORT_H_
#define NEARDUP_TESTS_CLUSTER_REPLICA_EXPORT_H_

// What the e2e cluster tests ask a real neardupd: a client of it, and what
// its replica of a collection holds, as an export with signatures shows it.

#include <chrono>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "neardup/base/status_macros.h"
#include "neardup/client/client.h"
#include "server/server_process.h"

namespace neardup::testing {

inline client::Client Connect(
    const ServerProcess& node,
    std::chrono::milliseconds timeout = std::chrono::seconds(20),
    int attempts = 5) {
  client::ClientOptions options;
  options.target = node.Address();
  options.timeout = timeout;
  options.max_attempts = attempts;
  return client::Client(options);
}

// id -> the document (signatures, text, metadata, times) of the node's own
// replica of `collection`.
inline absl::StatusOr<std::map<std::string, v1::Document>> Holdings(
    const ServerProcess& node, std::string_view collection) {
  std::map<std::string, v1::Document> out;
  v1::ExportRequest request;
  request.set_collection(std::string(collection));
  request.set_with_signatures(true);
  request.set_replica_only(true);
  RETURN_IF_ERROR(
      Connect(node).Export(request, [&](const v1::ExportResponse& message) {
        for (const v1::Document& doc : message.documents()) {
          out[doc.id()] = doc;
        }
        return absl::OkStatus();
      }));
  return out;
}

}  // namespace neardup::testing

#endif  // NEARDUP_TESTS_CLUSTER_REPLICA_EXPORT_H_
