#include "neardup/http/http_errors.h"

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "nlohmann/json.hpp"

namespace neardup::http {

int HttpStatusOf(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return 200;
    case grpc::StatusCode::CANCELLED:
      return 499;  // client closed request
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::OUT_OF_RANGE:
      return 400;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return 504;
    case grpc::StatusCode::NOT_FOUND:
      return 404;
    case grpc::StatusCode::ALREADY_EXISTS:
    case grpc::StatusCode::ABORTED:
      return 409;
    case grpc::StatusCode::PERMISSION_DENIED:
      return 403;
    case grpc::StatusCode::UNAUTHENTICATED:
      return 401;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return 429;
    case grpc::StatusCode::UNIMPLEMENTED:
      return 501;
    case grpc::StatusCode::UNAVAILABLE:
      return 503;
    case grpc::StatusCode::UNKNOWN:
    case grpc::StatusCode::INTERNAL:
    case grpc::StatusCode::DATA_LOSS:
    default:
      return 500;
  }
}

std::string CodeName(grpc::StatusCode code) {
  // gRPC's codes are google.rpc.Code, as absl::StatusCode's are.
  const std::string name =
      absl::StatusCodeToString(static_cast<absl::StatusCode>(code));
  return name.empty() ? "UNKNOWN" : name;
}

std::string ErrorJson(const grpc::Status& status) {
  nlohmann::json details = nlohmann::json::array();
  if (!status.error_details().empty()) {
    // Opaque to the gateway: passed on as sent (a serialized
    // google.rpc.Status, base64 as proto3 JSON writes bytes).
    const std::string out = absl::Base64Escape(status.error_details());
    details.push_back(
        {{"@type", "type.googleapis.com/google.rpc.Status"}, {"value", out}});
  }
  const nlohmann::json body = {
      {"code", static_cast<int>(status.error_code())},
      {"status", CodeName(status.error_code())},
      {"message", status.error_message()},
      {"details", details},
  };
  // Messages may quote client bytes that are not UTF-8.
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace neardup::http
