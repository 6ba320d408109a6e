#ifndef NEARDUP_DATASET_JSON_STRING_FIELD_H_
#define NEARDUP_DATASET_JSON_STRING_FIELD_H_

// Rewrites one string field of a JSON object in place, leaving every other
// byte of the record as it was.

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace neardup::dataset {

// `record` with the string value of top-level `field` replaced by
// `new_value` (escaped). The record needs simdjson padding after it.
absl::StatusOr<std::string> ReplaceJsonStringField(std::string_view record,
                                                   std::string_view field,
                                                   std::string_view new_value);

}  // namespace neardup::dataset

#endif  // NEARDUP_DATASET_JSON_STRING_FIELD_H_
