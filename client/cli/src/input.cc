#include "input.h"

#include "neardup/base/files.h"
#include "neardup/base/status_macros.h"

namespace neardup::cli {

absl::StatusOr<std::string> ReadInput(const std::string& path) {
  return ReadFile(path.empty() ? "-" : path);
}

absl::Status InFile(const std::string& path, const absl::Status& status) {
  return Prefixed(path.empty() || path == "-" ? "<stdin>" : path, status);
}

}  // namespace neardup::cli
