#include "neardup/core/index/vector_index.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace neardup {

absl::StatusOr<std::vector<float>> UnitEmbedding(std::span<const float> vector,
                                                 int dim) {
  if (vector.size() != static_cast<size_t>(dim)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "embedding has ", vector.size(), " dimensions; the space has ", dim));
  }
  double norm2 = 0;
  for (size_t i = 0; i < vector.size(); ++i) {
    if (!std::isfinite(vector[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat("embedding component ", i, " is not finite"));
    }
    norm2 += static_cast<double>(vector[i]) * vector[i];
  }
  if (!(norm2 > 0) || !std::isfinite(norm2)) {
    return absl::InvalidArgumentError(
        "embedding has norm 0 (or overflows): no direction to compare");
  }
  const double inverse = 1.0 / std::sqrt(norm2);
  std::vector<float> unit(vector.size());
  for (size_t i = 0; i < vector.size(); ++i) {
    unit[i] = static_cast<float>(vector[i] * inverse);
  }
  return unit;
}

}  // namespace neardup
