#include "neardup/base/files.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace neardup {

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ostringstream bytes;
  if (path == "-") {
    bytes << std::cin.rdbuf();
    if (std::cin.bad()) {
      return absl::DataLossError("cannot read standard input");
    }
    return std::move(bytes).str();
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    const int error = errno;
    const std::string message =
        absl::StrCat("cannot read ", path, ": ", std::strerror(error));
    return error == EACCES ? absl::PermissionDeniedError(message)
                           : absl::NotFoundError(message);
  }
  bytes << file.rdbuf();
  if (file.bad())
    return absl::DataLossError(absl::StrCat("cannot read ", path));
  return std::move(bytes).str();
}

}  // namespace neardup
