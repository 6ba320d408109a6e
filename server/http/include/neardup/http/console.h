#ifndef NEARDUP_HTTP_CONSOLE_H_
#define NEARDUP_HTTP_CONSOLE_H_

// The web console's files (server/http/console), built into the binary.

#include <optional>
#include <string_view>

namespace neardup::http {

struct ConsoleFile {
  std::string_view content_type;
  std::string_view bytes;
};

// The file served at `path`: "/" is the page, "/console/<name>" its
// scripts and styles; nullopt for anything else.
std::optional<ConsoleFile> FindConsoleFile(std::string_view path);

// Content-Security-Policy of the console's answers: its own files only.
inline constexpr char kConsoleSecurityPolicy[] =
    "default-src 'none'; script-src 'self'; style-src 'self'; "
    "connect-src 'self'; img-src 'self' data:; form-action 'self'; "
    "base-uri 'none'; frame-ancestors 'none'";

}  // namespace neardup::http

#endif  // NEARDUP_HTTP_CONSOLE_H_
