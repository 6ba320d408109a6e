#ifndef NEARDUP_HTTP_OPENAPI_H_
#define NEARDUP_HTTP_OPENAPI_H_

// The OpenAPI 3 document of the HTTP/JSON API (GET /v1/openapi.json), made
// from Routes() and the messages' descriptors, so that it cannot disagree
// with what the gateway serves.

#include <string>

#include "absl/status/statusor.h"

namespace neardup::http {

absl::StatusOr<std::string> OpenApiJson();

}  // namespace neardup::http

#endif  // NEARDUP_HTTP_OPENAPI_H_
