#ifndef NEARDUP_CLIENT_DEDUP_SRC_RECORD_TEXT_H_
#define NEARDUP_CLIENT_DEDUP_SRC_RECORD_TEXT_H_

// The text dedup fingerprints for a record: the record's text field, or,
// for markup and PDFs (--content-type, or the extension of a file read with
// --doc-per-file), what extract makes of it. The output keeps the records
// as they were.

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "batch_reader.h"
#include "neardup/dataset/text_extractor.h"
#include "neardup/dedup/dedup_options.h"
#include "neardup/extract/content_type.h"

namespace neardup::dedup {

class RecordText {
 public:
  // INVALID_ARGUMENT for an unknown --content-type.
  static absl::StatusOr<RecordText> Create(const DedupOptions& options);

  // The text of `ref`; `storage` holds it when it had to be extracted.
  absl::StatusOr<std::string_view> Of(const BatchReader& reader,
                                      const Batch& batch, const RecordRef& ref,
                                      dataset::ExtractScratch& scratch,
                                      std::string& storage) const;

 private:
  RecordText(std::optional<extract::ContentType> given, bool doc_per_file)
      : given_(given), doc_per_file_(doc_per_file) {}

  std::optional<extract::ContentType> given_;  // --content-type
  bool doc_per_file_;
};

}  // namespace neardup::dedup

#endif  // NEARDUP_CLIENT_DEDUP_SRC_RECORD_TEXT_H_
