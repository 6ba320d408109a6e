#include "neardup/server/internal/request_fields.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/extract/content_type.h"
#include "neardup/extract/extract.h"

namespace neardup::server {

absl::Status CheckText(std::string_view field, const std::string& text,
                       const HandlerSettings& settings) {
  if (text.size() > settings.max_document_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        AbslView(field), " is ", text.size(), " bytes, over the limit of ",
        settings.max_document_bytes, " bytes (--max-document-bytes)"));
  }
  return absl::OkStatus();
}

absl::Status AboutField(std::string_view field, const absl::Status& status) {
  return Prefixed(field, status);
}

absl::StatusOr<FieldText> FieldText::Of(std::string_view field,
                                        const std::string& bytes,
                                        const std::string& content_type,
                                        const HandlerSettings& settings) {
  RETURN_IF_ERROR(CheckText(field, bytes, settings));
  absl::StatusOr<extract::ContentType> type =
      extract::ParseContentType(content_type);
  if (!type.ok()) return Prefixed("content_type", type.status());
  FieldText out(bytes);
  if (*type == extract::ContentType::kPlainText) return out;
  if (*type == extract::ContentType::kPdf &&
      bytes.size() > settings.max_pdf_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(AbslView(field), ": PDF is ", bytes.size(),
                     " bytes, over the limit of ", settings.max_pdf_bytes,
                     " (--pdf-max-bytes)"));
  }
  absl::StatusOr<std::string> text =
      settings.extractor != nullptr ? settings.extractor->Extract(bytes, *type)
                                    : extract::ExtractText(bytes, *type);
  RETURN_IF_ERROR(AboutField(field, text.status()));
  out.extracted_ = *std::move(text);
  return out;
}

absl::Status CheckNoContentType(const std::string& content_type,
                                std::string_view why) {
  if (content_type.empty()) return absl::OkStatus();
  absl::StatusOr<extract::ContentType> type =
      extract::ParseContentType(content_type);
  if (type.ok() && *type == extract::ContentType::kPlainText) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("content_type applies to text; ", AbslView(why)));
}

absl::Status CheckId(const std::string& id, std::string_view field) {
  if (id.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(AbslView(field), " must not be empty"));
  }
  if (id.size() > kMaxIdBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(AbslView(field), " is ", id.size(),
                     " bytes, over the limit of ", kMaxIdBytes, " bytes"));
  }
  return absl::OkStatus();
}

absl::Status CheckMetadata(
    const google::protobuf::Map<std::string, std::string>& metadata,
    const HandlerSettings& settings) {
  if (metadata.size() > static_cast<size_t>(settings.max_metadata_keys)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "metadata has ", metadata.size(), " keys, over the limit of ",
        settings.max_metadata_keys, " (--max-metadata-keys)"));
  }
  size_t bytes = 0;
  for (const auto& [key, value] : metadata) bytes += key.size() + value.size();
  if (bytes > settings.max_metadata_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "metadata is ", bytes, " bytes, over the limit of ",
        settings.max_metadata_bytes, " bytes (--max-metadata-bytes)"));
  }
  return absl::OkStatus();
}

void SetMinHashScores(const engine::MinHashMatch& match, v1::Match* out) {
  out->set_similarity(match.score());
  out->set_estimated_jaccard(match.estimate);
  if (match.exact) {
    out->set_exact_jaccard(*match.exact);
    out->set_verified_by(v1::VERIFICATION_EXACT);
  } else {
    out->set_verified_by(v1::VERIFICATION_ESTIMATE);
  }
}

}  // namespace neardup::server
