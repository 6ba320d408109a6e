#ifndef NEARDUP_BASE_FILES_H_
#define NEARDUP_BASE_FILES_H_

// Reading a whole file: config files, token files, PEM files, CLI inputs.

#include <string>

#include "absl/status/statusor.h"

namespace neardup {

// The bytes of `path`; "-" reads standard input. NOT_FOUND (or
// PERMISSION_DENIED) names the path and the reason; a failing read is
// DATA_LOSS.
absl::StatusOr<std::string> ReadFile(const std::string& path);

}  // namespace neardup

#endif  // NEARDUP_BASE_FILES_H_
