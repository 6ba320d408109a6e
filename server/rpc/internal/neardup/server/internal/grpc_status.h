#ifndef NEARDUP_SERVER_INTERNAL_GRPC_STATUS_H_
#define NEARDUP_SERVER_INTERNAL_GRPC_STATUS_H_

// absl::Status and grpc::Status share their code numbering
// (google.rpc.Code), so the mapping keeps the code and the message.

#include <string>

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace neardup::server {

inline grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

}  // namespace neardup::server

#endif  // NEARDUP_SERVER_INTERNAL_GRPC_STATUS_H_
