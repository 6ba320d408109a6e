// Query: validate -> plan -> probe -> verify -> render (server/engine/query.h
// does all but the first and the last).

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/enum_tables.h"
#include "neardup/proto/kept_proto.h"
#include "neardup/server/internal/handlers.h"
#include "neardup/server/internal/proto_convert.h"
#include "neardup/server/internal/request_fields.h"

namespace neardup::server {
namespace {

// Room kept in a Query answer for everything but the matches.
constexpr size_t kResponseSlackBytes = 4096;

}  // namespace

namespace {

absl::StatusOr<engine::QueryAlgorithm> AlgorithmFromProto(
    v1::Algorithm algorithm) {
  const std::optional<QueryAlgorithm> value =
      kQueryAlgorithms.FromApi(algorithm);
  if (!value) return absl::InvalidArgumentError("algorithm: unknown value");
  return *value;
}

// A resolved match as the API shows it.
void RenderMatch(const engine::ResolvedMatch& resolved, v1::Match* match) {
  const engine::QueryHit& hit = *resolved.hit;
  match->set_id(resolved.external_id);
  match->set_similarity(hit.similarity);
  if (resolved.passages) RenderPassages(*resolved.passages, match);
  if (!resolved.explain_unavailable.empty()) {
    match->set_explain_unavailable(resolved.explain_unavailable);
  }
  if (hit.minhash) SetMinHashScores(*hit.minhash, match);
  if (hit.hamming_distance) match->set_hamming_distance(*hit.hamming_distance);
  if (hit.cosine) {
    match->set_cosine(*hit.cosine);
    // Semantic and hybrid answers rank by cosine: it is their similarity,
    // even where MinHash scores are there too.
    match->set_similarity(*hit.cosine);
  }
  proto::KeptDistancesToProto(hit.kept_distances, match);
  for (const auto& [key, value] : resolved.metadata) {
    (*match->mutable_metadata())[key] = value;
  }
}

}  // namespace

absl::Status Handlers::QueryHere(const v1::QueryRequest& request,
                                 v1::QueryResponse* response,
                                 IndexQueryStats* stats,
                                 const CallBudget& call) {
  // Validate: the request's fields, then the query against the collection.
  ASSIGN_OR_RETURN(auto collection, FindCollection(request.collection()));
  RETURN_IF_ERROR(
      WaitForLog(request.collection(), request.log_sequence(), call));
  const storage::CollectionRecord& record = collection->record();
  engine::QuerySpec spec;
  ASSIGN_OR_RETURN(spec.algorithm, AlgorithmFromProto(request.algorithm()));
  const bool vectors = spec.algorithm == engine::QueryAlgorithm::kSemantic ||
                       spec.algorithm == engine::QueryAlgorithm::kHybridAll ||
                       spec.algorithm == engine::QueryAlgorithm::kHybridAny;
  if (request.has_embedding()) {
    // Decoded only where it can apply; elsewhere PlanQuery says why not.
    if (vectors && record.config.embedding.enabled()) {
      ASSIGN_OR_RETURN(spec.embedding, EmbeddingFromProto(request.embedding(),
                                                          record, "embedding"));
    } else {
      spec.embedding.emplace();
    }
  }
  if (request.has_min_cosine()) spec.min_cosine = request.min_cosine();
  // The raw text until it is extracted below: planning only asks whether
  // the probe is a text.
  if (request.probe_case() == v1::QueryRequest::kText) {
    spec.text = request.text();
  }
  spec.top_k = request.top_k() == 0 ? kDefaultTopK : request.top_k();
  spec.exclude_id = request.exclude_id();
  spec.threshold = request.threshold();
  if (request.has_max_distance()) spec.max_distance = request.max_distance();
  // Plan: the query against the collection, before any text is extracted
  // (and before the fields below, whose errors it has always come before).
  ASSIGN_OR_RETURN(const engine::QueryPlan plan,
                   engine::PlanQuery(*collection, spec));
  if (request.top_k() > kMaxTopK) {
    return absl::InvalidArgumentError(absl::StrCat(
        "top_k must be at most ", kMaxTopK, ", got ", request.top_k()));
  }
  if (!request.exclude_id().empty()) {
    RETURN_IF_ERROR(CheckId(request.exclude_id(), "exclude_id"));
  }
  std::optional<FieldText> probe_text;
  switch (request.probe_case()) {
    case v1::QueryRequest::kText: {
      ASSIGN_OR_RETURN(probe_text,
                       FieldText::Of("text", request.text(),
                                     request.content_type(), settings_));
      spec.text = probe_text->text();
      break;
    }
    case v1::QueryRequest::kSignatures: {
      RETURN_IF_ERROR(CheckNoContentType(
          request.content_type(), "leave it unset for a signatures probe"));
      ASSIGN_OR_RETURN(spec.signatures,
                       SignatureInputFromProto(request.signatures(),
                                               *collection, SignatureRules{}));
      break;
    }
    default:
      break;
  }

  // Probe and verify.
  ASSIGN_OR_RETURN(
      const engine::ProbeResult probe,
      engine::ProbeQuery(*collection, spec, plan, &embedders_, stats));
  if (probe.truncated) response->set_truncated(true);

  // Resolve and render: matches stop before the answer would outgrow the
  // message limit (or the caller's smaller one).
  const size_t response_limit =
      call.max_response_bytes > 0
          ? std::min(call.max_response_bytes, settings_.max_response_bytes)
          : settings_.max_response_bytes;
  const size_t budget = response_limit > kResponseSlackBytes
                            ? response_limit - kResponseSlackBytes
                            : 0;
  size_t answer_bytes = 0;
  engine::ResolveOptions options;
  options.probe_text = probe_text ? &probe_text->text() : nullptr;
  options.explain = request.explain();
  options.include_metadata = request.include_metadata();
  RETURN_IF_ERROR(
      engine::ResolveMatches(*collection, spec, probe, options, call,
                             [&](const engine::ResolvedMatch& resolved) {
                               v1::Match* match = response->add_matches();
                               RenderMatch(resolved, match);
                               // Counted as it will be encoded: the match plus
                               // its tag and length.
                               const size_t bytes = match->ByteSizeLong() + 16;
                               if (answer_bytes + bytes > budget) {
                                 response->mutable_matches()->RemoveLast();
                                 response->set_truncated(true);
                                 return false;
                               }
                               answer_bytes += bytes;
                               return true;
                             }));
  response->set_candidates(stats->candidates);
  return absl::OkStatus();
}

}  // namespace neardup::server
