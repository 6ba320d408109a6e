#ifndef NEARDUP_SERVER_INTERNAL_TOKEN_PROCESSOR_H_
#define NEARDUP_SERVER_INTERNAL_TOKEN_PROCESSOR_H_

// Checks a call's bearer token on its headers, before gRPC reads the
// request body: a call with an unknown token, or a call to the neardup API
// without one, is refused (UNAUTHENTICATED) without its message ever being
// received or parsed. gRPC runs this only for TLS connections (its insecure
// credentials take no metadata processor); over plaintext the service's own
// check, after the body, is the only one.

#include <memory>

#include "grpcpp/security/auth_metadata_processor.h"
#include "neardup/server/internal/auth.h"

namespace neardup::server {

class TokenMetadataProcessor : public grpc::AuthMetadataProcessor {
 public:
  explicit TokenMetadataProcessor(
      std::shared_ptr<const TokenAuthenticator> auth)
      : auth_(std::move(auth)) {}

  // Cheap (one SHA-256 and a constant-time scan): runs on gRPC's thread.
  bool IsBlocking() const override { return false; }

  grpc::Status Process(const InputMetadata& auth_metadata,
                       grpc::AuthContext* context,
                       OutputMetadata* consumed_auth_metadata,
                       OutputMetadata* response_metadata) override;

 private:
  const std::shared_ptr<const TokenAuthenticator> auth_;
};

}  // namespace neardup::server

#endif  // NEARDUP_SERVER_INTERNAL_TOKEN_PROCESSOR_H_
