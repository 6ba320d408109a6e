#ifndef NEARDUP_HTTP_ROUTES_H_
#define NEARDUP_HTTP_ROUTES_H_

// The HTTP/JSON API's routes, defined once: the gateway routes requests by
// this table and the OpenAPI document is made from it. Each route names
// one RPC; its request and answer are the RPC's messages in protobuf's
// JSON mapping.

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/descriptor.h"

namespace neardup::http {

struct Route {
  std::string_view verb;  // GET, POST, PUT, DELETE
  // Segments are literals or {field}: a field of the request message that
  // the segment sets. The last segment may end in a custom verb
  // (documents:query), as in Google's API design guide.
  std::string_view path;
  std::string_view rpc;  // full name: neardup.v1.NearDup.Query
  std::string_view summary;
};

std::span<const Route> Routes();

// The RPC's descriptor (its request and answer types); null only if the
// table names an RPC that does not exist.
const google::protobuf::MethodDescriptor* FindRpc(const Route& route);

// "/neardup.v1.NearDup/Query", as gRPC names the method on the wire.
std::string WireMethod(const Route& route);

struct RouteMatch {
  const Route* route = nullptr;
  // Request fields set by the path: {field, percent-decoded segment}.
  std::vector<std::pair<std::string, std::string>> path_fields;
};

// The route for `verb` on `raw_path` (still percent-encoded, without the
// query string). NotFound when no route has this path, Unimplemented
// (HTTP 405) when routes have it for other verbs only.
absl::StatusOr<RouteMatch> MatchRoute(std::string_view verb,
                                      std::string_view raw_path);

// %XX decoded ('+' stays '+': it is a space only in query strings).
absl::StatusOr<std::string> PercentDecode(std::string_view text);

}  // namespace neardup::http

#endif  // NEARDUP_HTTP_ROUTES_H_
