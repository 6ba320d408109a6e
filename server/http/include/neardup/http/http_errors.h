#ifndef NEARDUP_HTTP_HTTP_ERRORS_H_
#define NEARDUP_HTTP_HTTP_ERRORS_H_

// gRPC status codes as HTTP status codes, and the JSON error body, in one
// place (docs/http.md, "Errors").

#include <string>

#include "grpcpp/support/status.h"

namespace neardup::http {

// The HTTP status of a gRPC status code, as Google's APIs map them
// (NOT_FOUND 404, RESOURCE_EXHAUSTED 429, FAILED_PRECONDITION 400, ...).
int HttpStatusOf(grpc::StatusCode code);

// "NOT_FOUND": the code's name as google.rpc.Code spells it.
std::string CodeName(grpc::StatusCode code);

// {"code": <gRPC code>, "status": "<name>", "message": "...",
//  "details": [...]}: details are the status's google.rpc.Status details
// (Any messages, base64 in "value") when the server sent any.
std::string ErrorJson(const grpc::Status& status);

}  // namespace neardup::http

#endif  // NEARDUP_HTTP_HTTP_ERRORS_H_
