// Fingerprint and Compare: the request's fields as core's stateless options
// (core/stateless.h computes), the result as the API shows it.

#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/canonicalizer.h"
#include "neardup/core/enum_tables.h"
#include "neardup/core/newsbot_simhash.h"
#include "neardup/core/stateless.h"
#include "neardup/core/tlsh.h"
#include "neardup/proto/fingerprint_settings_proto.h"
#include "neardup/proto/kept_proto.h"
#include "neardup/server/internal/handlers.h"
#include "neardup/server/internal/proto_convert.h"
#include "neardup/server/internal/request_fields.h"

namespace neardup::server {

namespace {

// A stateless call's proto fields as core's options. The wire's zeros mean
// the defaults: a 64-bit newsbot SimHash, a winnowing window of 4.
absl::StatusOr<StatelessOptions> StatelessOptionsOf(
    v1::FingerprintKind kind, const v1::FingerprintConfig& proto,
    uint32_t newsbot_bits, uint32_t winnow_window) {
  StatelessOptions options;
  ASSIGN_OR_RETURN(CollectionConfig config, ConfigFromProto(proto));
  ASSIGN_OR_RETURN(options.settings, neardup::proto::SettingsFromProto(proto));
  const std::optional<FingerprintKind> core_kind =
      kFingerprintKinds.FromApi(kind);
  if (!core_kind.has_value()) {
    return absl::InvalidArgumentError("kind: unknown value");
  }
  options.kind = *core_kind;
  switch (options.kind) {
    case FingerprintKind::kCollection:
      options.collection = std::move(config);
      break;
    case FingerprintKind::kNewsbot:
      if (newsbot_bits != 0 &&
          (newsbot_bits > 128 ||
           !CheckNewsbotBits(static_cast<int>(newsbot_bits)).ok())) {
        return absl::InvalidArgumentError(
            absl::StrCat("newsbot_bits must be 16, 32, 64 or 128 (or 0 for ",
                         kDefaultNewsbotBits, "), got ", newsbot_bits));
      }
      if (newsbot_bits != 0) {
        options.newsbot_bits = static_cast<int>(newsbot_bits);
      }
      break;
    case FingerprintKind::kPerceptual:
      if (winnow_window > 1024) {
        return absl::InvalidArgumentError(
            absl::StrCat("winnow_window must be in [1, 1024] (or 0 for ",
                         kDefaultWinnowWindow, "), got ", winnow_window));
      }
      if (winnow_window != 0) {
        options.winnow_window = static_cast<int>(winnow_window);
      }
      break;
    default:  // TLSH: no options of its own
      break;
  }
  return options;
}

}  // namespace

absl::Status Handlers::Fingerprint(const v1::FingerprintRequest& request,
                                   v1::FingerprintResponse* response,
                                   const HandlerSettings& settings) {
  const bool raw = request.kind() == v1::FINGERPRINT_KIND_TLSH_RAW;
  if (raw) {
    RETURN_IF_ERROR(CheckNoContentType(request.content_type(),
                                       "TLSH_RAW hashes the bytes as sent"));
  }
  ASSIGN_OR_RETURN(
      const FieldText field,
      FieldText::Of("text", request.text(),
                    raw ? std::string() : request.content_type(), settings));
  ASSIGN_OR_RETURN(
      const StatelessOptions options,
      StatelessOptionsOf(request.kind(), request.config(),
                         request.newsbot_bits(), request.winnow_window()));
  ASSIGN_OR_RETURN(const TextFingerprint fp,
                   FingerprintText(options, {"text", field.text()}));
  if (fp.minhash) {
    response->set_minhash(fp.minhash->Serialize());
    response->set_minhash_config_hash(fp.minhash_config_hash);
    response->set_token_count(fp.shingle_count);
  }
  if (fp.simhash) {
    response->set_simhash(*fp.simhash);
    response->set_simhash_config_hash(fp.simhash_config_hash);
  }
  if (fp.tlsh) {
    response->set_tlsh(FormatTlsh(*fp.tlsh));
    response->set_tlsh_config_hash(fp.tlsh_config_hash);
  } else if (!fp.tlsh_unavailable.empty()) {
    response->set_tlsh_unavailable(fp.tlsh_unavailable);
  }
  for (const KeptValue& kept : fp.kept) {
    proto::KeptValueToProto(kept, response->add_kept());
  }
  for (const KeptUnavailable& none : fp.kept_unavailable) {
    proto::KeptUnavailableToProto(none, response->add_kept_unavailable());
  }
  if (fp.newsbot) {
    response->set_newsbot_simhash(FormatNewsbot(*fp.newsbot));
    response->set_newsbot_config_hash(fp.newsbot_config_hash);
  }
  return absl::OkStatus();
}

absl::Status Handlers::Compare(const v1::CompareRequest& request,
                               v1::CompareResponse* response,
                               const HandlerSettings& settings) {
  const bool raw = request.kind() == v1::FINGERPRINT_KIND_TLSH_RAW;
  if (raw) {
    RETURN_IF_ERROR(CheckNoContentType(request.content_type(),
                                       "TLSH_RAW hashes the bytes as sent"));
  }
  const std::string content_type = raw ? std::string() : request.content_type();
  ASSIGN_OR_RETURN(const FieldText field_a,
                   FieldText::Of("a", request.a(), content_type, settings));
  ASSIGN_OR_RETURN(const FieldText field_b,
                   FieldText::Of("b", request.b(), content_type, settings));
  ASSIGN_OR_RETURN(
      const StatelessOptions options,
      StatelessOptionsOf(request.kind(), request.config(),
                         request.newsbot_bits(), request.winnow_window()));
  if (request.explain()) {
    ASSIGN_OR_RETURN(const Canonicalizer canonicalizer,
                     Canonicalizer::Create(options.settings.canonicalizer));
    RETURN_IF_ERROR(
        AddPassages(field_a.text(), field_b.text(), canonicalizer, response));
  }
  ASSIGN_OR_RETURN(
      const TextComparison compared,
      CompareTexts(options, {"a", field_a.text()}, {"b", field_b.text()}));
  if (compared.estimated_jaccard) {
    response->set_estimated_jaccard(*compared.estimated_jaccard);
    response->set_exact_jaccard(*compared.exact_jaccard);
  }
  if (compared.hamming_distance) {
    response->set_hamming_distance(*compared.hamming_distance);
    response->set_cosine_estimate(*compared.cosine_estimate);
  }
  if (compared.tlsh_distance) {
    response->set_tlsh_distance(*compared.tlsh_distance);
    response->set_tlsh_distance_without_length(
        *compared.tlsh_distance_without_length);
  } else if (!compared.tlsh_unavailable.empty()) {
    response->set_tlsh_unavailable(compared.tlsh_unavailable);
  }
  for (const KeptDistance& kept : compared.kept_distances) {
    proto::KeptDistanceToProto(kept, response->add_kept_distances());
  }
  for (const KeptUnavailable& none : compared.kept_unavailable) {
    proto::KeptUnavailableToProto(none, response->add_kept_unavailable());
  }
  return absl::OkStatus();
}

}  // namespace neardup::server
