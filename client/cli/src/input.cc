#include "input.h"

#include "neardup/base/files.h"
#include "neardup/base/status_macros.h"
#include "neardup/extract/extract.h"

namespace neardup::cli {

absl::StatusOr<std::string> ReadInput(const std::string& path) {
  return ReadFile(path.empty() ? "-" : path);
}

absl::StatusOr<extract::ContentType> ContentTypeFor(const std::string& path,
                                                    const std::string& flag) {
  if (!flag.empty()) return extract::ParseContentType(flag);
  return extract::ContentTypeOfPath(path).value_or(
      extract::ContentType::kPlainText);
}

absl::StatusOr<std::string> ReadText(const std::string& path,
                                     const std::string& content_type_flag,
                                     bool raw) {
  if (raw && !content_type_flag.empty()) {
    return absl::InvalidArgumentError(
        "--content-type does not go with --raw: raw hashes the bytes as they "
        "are");
  }
  ASSIGN_OR_RETURN(std::string bytes, ReadInput(path));
  if (raw) return bytes;
  ASSIGN_OR_RETURN(const extract::ContentType type,
                   ContentTypeFor(path, content_type_flag));
  if (type == extract::ContentType::kPlainText) return bytes;
  absl::StatusOr<std::string> text = extract::ExtractText(bytes, type);
  if (!text.ok()) return InFile(path, text.status());
  return text;
}

std::string InputName(const std::string& path) {
  return path.empty() || path == "-" ? "<stdin>" : path;
}

absl::Status InFile(const std::string& path, const absl::Status& status) {
  return Prefixed(InputName(path), status);
}

}  // namespace neardup::cli
