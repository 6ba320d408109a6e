#ifndef NEARDUP_CLI_EMBEDDING_INPUT_H_
#define NEARDUP_CLI_EMBEDDING_INPUT_H_

// Vectors the CLI reads: a JSON array of numbers, or an object with
// "values" (and "model_id"), as `neardup embed` prints and `export` writes.

#include <string>

#include "absl/status/statusor.h"
#include "neardup/v1/neardup.pb.h"
#include "nlohmann/json.hpp"

namespace neardup::cli {

// `json` is an array of numbers or an object {"values": [...], "model_id":
// "..."}. The model is `model` when not empty, else the object's model_id;
// INVALID_ARGUMENT when there is none, for a number that does not fit a
// float, or for anything else. `what` names the input in errors.
absl::StatusOr<v1::Embedding> EmbeddingFromJson(const nlohmann::json& json,
                                                const std::string& model,
                                                const std::string& what);

}  // namespace neardup::cli

#endif  // NEARDUP_CLI_EMBEDDING_INPUT_H_
