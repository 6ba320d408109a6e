#include "record_text.h"

#include "neardup/base/status_macros.h"
#include "neardup/extract/extract.h"

namespace neardup::dedup {

absl::StatusOr<RecordText> RecordText::Create(const DedupOptions& options) {
  std::optional<extract::ContentType> given;
  if (!options.content_type.empty()) {
    ASSIGN_OR_RETURN(given, extract::ParseContentType(options.content_type));
  }
  return RecordText(given, options.input.doc_per_file);
}

absl::StatusOr<std::string_view> RecordText::Of(
    const BatchReader& reader, const Batch& batch, const RecordRef& ref,
    dataset::ExtractScratch& scratch, std::string& storage) const {
  ASSIGN_OR_RETURN(
      const std::string_view field,
      reader.extractor(ref.file).Extract(batch.record(ref), &scratch));
  extract::ContentType type = extract::ContentType::kPlainText;
  if (given_) {
    type = *given_;
  } else if (doc_per_file_) {
    type = extract::ContentTypeOfPath(reader.file(ref.file).path)
               .value_or(extract::ContentType::kPlainText);
  }
  if (type == extract::ContentType::kPlainText) return field;
  ASSIGN_OR_RETURN(storage, extract::ExtractText(field, type));
  return std::string_view(storage);
}

}  // namespace neardup::dedup
