#include "input.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace neardup::cli {

absl::StatusOr<std::string> ReadInput(const std::string& path) {
  if (path.empty() || path == "-") {
    std::ostringstream buf;
    buf << std::cin.rdbuf();
    if (std::cin.bad())
      return absl::DataLossError("cannot read standard input");
    return buf.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  }
  std::string data((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  if (in.bad()) {
    return absl::DataLossError(absl::StrCat("cannot read ", path));
  }
  return data;
}

absl::Status InFile(const std::string& path, const absl::Status& status) {
  const std::string name = path.empty() || path == "-" ? "<stdin>" : path;
  return absl::Status(status.code(),
                      absl::StrCat(name, ": ", status.message()));
}

}  // namespace neardup::cli
