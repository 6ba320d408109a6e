#ifndef NEARDUP_HTTP_GATEWAY_H_
#define NEARDUP_HTTP_GATEWAY_H_

// neardupd's HTTP/JSON listener (--http-listen): every route of Routes()
// becomes a call of the server's own gRPC service over an in-process
// channel, so auth, scopes, limits, deadlines and metrics are the gRPC
// ones; also GET /v1/openapi.json and the web console at /.

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/channel.h"
#include "neardup/http/http_server.h"

namespace neardup::http {

struct GatewayOptions {
  HttpServerOptions server;
  // Largest request body (a JSON message, or one NDJSON line).
  size_t max_body_bytes = size_t{64} << 20;
  // Answers of a stream held while its body still arrives (clients that
  // read only after sending); past this they go out at once. Per
  // connection: threads × this bounds the memory held.
  size_t max_held_answer_bytes = size_t{32} << 20;
  // Sent with every call as metadata: the service trusts the client
  // address and protocol of calls that carry it.
  std::string gateway_key;
  // The listener is on a loopback address: API requests must name a
  // loopback host (a DNS-rebinding page names its own).
  bool loopback_hosts_only = false;
  // Each answer's HTTP status, for metrics.
  std::function<void(int)> on_response;
};

class Gateway {
 public:
  // Listens on options.server.listen and calls the service through
  // `channel`.
  static absl::StatusOr<std::unique_ptr<Gateway>> Start(
      GatewayOptions options, std::shared_ptr<grpc::Channel> channel);
  // Stops listening and waits for requests in progress.
  ~Gateway();

  int port() const { return server_->port(); }

 private:
  struct State;
  Gateway() = default;

  std::unique_ptr<State> state_;
  std::unique_ptr<HttpServer> server_;  // stopped first: it calls state_
};

// Metadata keys the gateway sets on its calls.
inline constexpr char kGatewayKeyMetadata[] = "neardup-gateway-key";
inline constexpr char kHttpClientMetadata[] = "neardup-http-client";

}  // namespace neardup::http

#endif  // NEARDUP_HTTP_GATEWAY_H_
