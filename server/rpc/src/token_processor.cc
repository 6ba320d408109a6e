#include "neardup/server/internal/token_processor.h"

#include <string_view>

namespace neardup::server {
namespace {

// Services any caller may use without a token.
bool NeedsNoToken(std::string_view path) {
  return path.starts_with("/grpc.health.v1.Health/") ||
         path.starts_with("/grpc.reflection.");
}

}  // namespace

grpc::Status TokenMetadataProcessor::Process(const InputMetadata& auth_metadata,
                                             grpc::AuthContext*,
                                             OutputMetadata*, OutputMetadata*) {
  const auto token = auth_metadata.find("authorization");
  if (token == auth_metadata.end()) {
    // Without the path (gRPC did not pass it) the service decides, after
    // the body.
    const auto path = auth_metadata.find(":path");
    if (path == auth_metadata.end() ||
        NeedsNoToken(
            std::string_view(path->second.data(), path->second.size()))) {
      return grpc::Status::OK;
    }
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "missing token: send \"authorization: Bearer "
                        "<token>\"");
  }
  const absl::StatusOr<const TokenEntry*> entry = auth_->Authenticate(
      std::string_view(token->second.data(), token->second.size()));
  if (!entry.ok()) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        std::string(entry.status().message()));
  }
  // Left in the metadata: the service looks the token up again for its
  // scopes.
  return grpc::Status::OK;
}

}  // namespace neardup::server
