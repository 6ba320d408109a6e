#ifndef NEARDUP_CLIENT_CLI_SRC_INPUT_H_
#define NEARDUP_CLIENT_CLI_SRC_INPUT_H_

#include <string>

#include "absl/status/statusor.h"
#include "neardup/extract/content_type.h"

namespace neardup::cli {

// Reads a whole file, or standard input for "-" or "". Errors name the path.
absl::StatusOr<std::string> ReadInput(const std::string& path);

// The content type of `path`: `flag` (a MIME type) when given, else by the
// file's extension (plain text for standard input and other extensions).
absl::StatusOr<extract::ContentType> ContentTypeFor(const std::string& path,
                                                    const std::string& flag);

// The text of a file for fingerprinting: its bytes as they are when `raw`
// or plain text, else what extract makes of its markup or PDF pages (the
// PDF parsed in a child process, this program run with kPdfChildFlag).
absl::StatusOr<std::string> ReadText(const std::string& path,
                                     const std::string& content_type_flag,
                                     bool raw = false);

// How errors name the input at `path`: "-" and "" are <stdin>.
std::string InputName(const std::string& path);

// Prefixes a document error with where the document came from ("-" is
// shown as <stdin>).
absl::Status InFile(const std::string& path, const absl::Status& status);

}  // namespace neardup::cli

#endif  // NEARDUP_CLIENT_CLI_SRC_INPUT_H_
