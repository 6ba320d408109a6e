#ifndef NEARDUP_CLIENT_CLI_SRC_INPUT_H_
#define NEARDUP_CLIENT_CLI_SRC_INPUT_H_

#include <string>

#include "absl/status/statusor.h"

namespace neardup::cli {

// Reads a whole file, or standard input for "-" or "". Errors name the path.
absl::StatusOr<std::string> ReadInput(const std::string& path);

// Prefixes a document error with where the document came from ("-" is
// shown as <stdin>).
absl::Status InFile(const std::string& path, const absl::Status& status);

}  // namespace neardup::cli

#endif  // NEARDUP_CLIENT_CLI_SRC_INPUT_H_
