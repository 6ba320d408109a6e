#include "neardup/http/console.h"

#include <cstddef>

namespace neardup::http {
namespace console {

struct EmbeddedFile {
  std::string_view name;
  std::string_view bytes;
};
extern const EmbeddedFile kEmbeddedFiles[];
extern const size_t kEmbeddedFileCount;

}  // namespace console

namespace {

std::string_view ContentTypeOf(std::string_view name) {
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  return "application/octet-stream";
}

}  // namespace

std::optional<ConsoleFile> FindConsoleFile(std::string_view path) {
  std::string_view name;
  if (path == "/" || path == "/console" || path == "/console/") {
    name = "index.html";
  } else if (path.starts_with("/console/")) {
    name = path.substr(9);
  } else {
    return std::nullopt;
  }
  for (size_t i = 0; i < console::kEmbeddedFileCount; ++i) {
    if (console::kEmbeddedFiles[i].name == name) {
      return ConsoleFile{ContentTypeOf(name), console::kEmbeddedFiles[i].bytes};
    }
  }
  return std::nullopt;
}

}  // namespace neardup::http
