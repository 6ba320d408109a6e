#include "neardup/extract/content_type.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "neardup/base/absl_compat.h"

namespace neardup::extract {
namespace {

constexpr std::string_view kAccepted =
    "text/plain, text/html, text/markdown or application/pdf";

absl::Status CheckParameters(std::string_view mime, absl::string_view params) {
  for (absl::string_view param : absl::StrSplit(params, ';')) {
    param = absl::StripAsciiWhitespace(param);
    if (param.empty()) continue;
    const size_t eq = param.find('=');
    const std::string key =
        absl::AsciiStrToLower(absl::StripAsciiWhitespace(param.substr(0, eq)));
    if (key != "charset") continue;  // other parameters do not change text
    std::string value = eq == absl::string_view::npos
                            ? std::string()
                            : absl::AsciiStrToLower(absl::StripAsciiWhitespace(
                                  param.substr(eq + 1)));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    if (value != "utf-8" && value != "utf8" && value != "us-ascii") {
      return absl::InvalidArgumentError(
          absl::StrCat("content type \"", AbslView(mime), "\": charset ", value,
                       " is not supported; send UTF-8"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ContentType> ParseContentType(std::string_view mime) {
  const absl::string_view full = AbslView(mime);
  const size_t semicolon = full.find(';');
  const std::string type = absl::AsciiStrToLower(
      absl::StripAsciiWhitespace(full.substr(0, semicolon)));
  if (semicolon != absl::string_view::npos) {
    if (absl::Status ok = CheckParameters(mime, full.substr(semicolon + 1));
        !ok.ok()) {
      return ok;
    }
  }
  if (type.empty() || type == "text/plain") return ContentType::kPlainText;
  if (type == "text/html" || type == "application/xhtml+xml") {
    return ContentType::kHtml;
  }
  if (type == "text/markdown" || type == "text/x-markdown") {
    return ContentType::kMarkdown;
  }
  if (type == "application/pdf") return ContentType::kPdf;
  return absl::InvalidArgumentError(absl::StrCat("unsupported content type \"",
                                                 AbslView(mime), "\": use ",
                                                 AbslView(kAccepted)));
}

std::string_view ContentTypeName(ContentType type) {
  switch (type) {
    case ContentType::kPlainText:
      return "text/plain";
    case ContentType::kHtml:
      return "text/html";
    case ContentType::kMarkdown:
      return "text/markdown";
    case ContentType::kPdf:
      return "application/pdf";
  }
  return "text/plain";
}

std::optional<ContentType> ContentTypeOfPath(std::string_view path) {
  const size_t dot = path.rfind('.');
  const size_t slash = path.rfind('/');
  if (dot == std::string_view::npos ||
      (slash != std::string_view::npos && dot < slash)) {
    return std::nullopt;
  }
  const std::string ext = absl::AsciiStrToLower(AbslView(path.substr(dot + 1)));
  if (ext == "txt" || ext == "text") return ContentType::kPlainText;
  if (ext == "html" || ext == "htm" || ext == "xhtml")
    return ContentType::kHtml;
  if (ext == "md" || ext == "markdown") return ContentType::kMarkdown;
  if (ext == "pdf") return ContentType::kPdf;
  return std::nullopt;
}

}  // namespace neardup::extract
