#include "embedding_input.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace neardup::cli {

absl::StatusOr<v1::Embedding> EmbeddingFromJson(const nlohmann::json& json,
                                                const std::string& model,
                                                const std::string& what) {
  const nlohmann::json* values = &json;
  v1::Embedding embedding;
  embedding.set_model_id(model);
  if (json.is_object()) {
    if (!json.contains("values")) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": an object needs a \"values\" array"));
    }
    values = &json["values"];
    if (model.empty() && json.contains("model_id") &&
        json["model_id"].is_string()) {
      embedding.set_model_id(json["model_id"].get<std::string>());
    }
  }
  if (!values->is_array() || values->empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": expected a non-empty array of numbers"));
  }
  for (const nlohmann::json& value : *values) {
    if (!value.is_number()) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": the vector holds something other than a number"));
    }
    const double x = value.get<double>();
    if (!std::isfinite(x) || std::abs(x) > std::numeric_limits<float>::max()) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": ", x, " does not fit a float"));
    }
    embedding.add_values(static_cast<float>(x));
  }
  if (embedding.model_id().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what,
        ": the vector names no model: give its model_id (on the command "
        "line, --embedding-model; the collection's embedding model_id)"));
  }
  return embedding;
}

}  // namespace neardup::cli
