#ifndef NEARDUP_HTTP_JSON_MESSAGES_H_
#define NEARDUP_HTTP_JSON_MESSAGES_H_

// HTTP requests to protobuf messages and answers back, in protobuf's own
// JSON mapping (proto3 JSON): the body, the path's fields and the query
// string's fields make one request message.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/message.h"

namespace neardup::http {

using PathFields = std::vector<std::pair<std::string, std::string>>;

// Merges a JSON object (proto3 JSON; unknown fields are refused) into
// `message`. Empty or all-space text is an empty object.
absl::Status MergeJson(std::string_view json,
                       google::protobuf::Message* message);

// Sets each path field: a string field of `message`, or of every element
// of its repeated message fields that have one (a BulkUpsertRequest's
// items). A value already set to something else is refused.
absl::Status ApplyPathFields(const PathFields& fields,
                             google::protobuf::Message* message);

// Sets the scalar and enum fields a query string names (by proto or JSON
// name; a repeated field may be named more than once). A field the body
// already set is refused.
absl::Status ApplyQueryString(std::string_view query,
                              google::protobuf::Message* message);

// proto3 JSON of `message`, fields with default values included.
std::string ToJson(const google::protobuf::Message& message);

}  // namespace neardup::http

#endif  // NEARDUP_HTTP_JSON_MESSAGES_H_
