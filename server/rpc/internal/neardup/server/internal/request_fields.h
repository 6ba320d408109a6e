#ifndef NEARDUP_SERVER_INTERNAL_REQUEST_FIELDS_H_
#define NEARDUP_SERVER_INTERNAL_REQUEST_FIELDS_H_

// Checks and readings of request fields shared by the handlers: sizes and
// ids against the server's limits, a text field's text (extracted from
// markup or PDF), and how scores and passages are shown.

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/map.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/canonicalizer.h"
#include "neardup/core/explain.h"
#include "neardup/engine/collection.h"
#include "neardup/server/internal/handlers.h"
#include "neardup/v1/neardup.pb.h"

namespace neardup::server {

// INVALID_ARGUMENT naming `field` when `text` is over --max-document-bytes.
absl::Status CheckText(std::string_view field, const std::string& text,
                       const HandlerSettings& settings);

// Prefixes core's message ("empty document", "invalid UTF-8 at byte 10")
// with the request field it is about.
absl::Status AboutField(std::string_view field, const absl::Status& status);

// The text a request field stands for: the bytes as sent when
// `content_type` is plain text, else what extract makes of them (markup
// stripped, a PDF's pages). INVALID_ARGUMENT names the field.
class FieldText {
 public:
  static absl::StatusOr<FieldText> Of(std::string_view field,
                                      const std::string& bytes,
                                      const std::string& content_type,
                                      const HandlerSettings& settings);

  const std::string& text() const { return extracted_ ? *extracted_ : *bytes_; }

 private:
  explicit FieldText(const std::string& bytes) : bytes_(&bytes) {}

  const std::string* bytes_;  // the request's, which outlives this
  std::optional<std::string> extracted_;
};

// Content types describe text: they do not go with signatures or raw bytes.
absl::Status CheckNoContentType(const std::string& content_type,
                                std::string_view why);

absl::Status CheckId(const std::string& id, std::string_view field = "id");

absl::Status CheckMetadata(
    const google::protobuf::Map<std::string, std::string>& metadata,
    const HandlerSettings& settings);

void SetMinHashScores(const engine::MinHashMatch& match, v1::Match* out);

// Shared passages as the API shows them (a Match or a CompareResponse).
template <typename Message>
void RenderPassages(const Explanation& explained, Message* out) {
  for (const SharedPassage& p : explained.passages) {
    v1::SharedPassage* passage = out->add_passages();
    passage->set_probe_begin(p.a_begin);
    passage->set_probe_end(p.a_end);
    passage->set_match_begin(p.b_begin);
    passage->set_match_end(p.b_end);
    passage->set_words(static_cast<uint32_t>(p.words));
  }
  out->set_passages_truncated(explained.truncated);
}

// Adds the passages `probe` and `match` share to `out`.
template <typename Message>
absl::Status AddPassages(std::string_view probe, std::string_view match,
                         const Canonicalizer& canonicalizer, Message* out) {
  ASSIGN_OR_RETURN(const Explanation explained,
                   ExplainSharedPassages(probe, match, canonicalizer));
  RenderPassages(explained, out);
  return absl::OkStatus();
}

}  // namespace neardup::server

#endif  // NEARDUP_SERVER_INTERNAL_REQUEST_FIELDS_H_
