#include "neardup/server/internal/handlers.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_set.h"
#include "absl/random/distributions.h"
#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/beneath.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/collection_config.h"
#include "neardup/core/explain.h"
#include "neardup/core/newsbot_simhash.h"
#include "neardup/core/shingle_set.h"
#include "neardup/core/stateless.h"
#include "neardup/core/tlsh.h"
#include "neardup/extract/content_type.h"
#include "neardup/extract/extract.h"
#include "neardup/proto/fingerprint_settings_proto.h"
#include "neardup/server/internal/backup_path.h"
#include "neardup/server/internal/proto_convert.h"

namespace neardup::server {
namespace {

absl::Status CheckText(std::string_view field, const std::string& text,
                       const HandlerSettings& settings) {
  if (text.size() > settings.max_document_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        AbslView(field), " is ", text.size(), " bytes, over the limit of ",
        settings.max_document_bytes, " bytes (--max-document-bytes)"));
  }
  return absl::OkStatus();
}

// Prefixes core's message ("empty document", "invalid UTF-8 at byte 10")
// with the request field it is about.
absl::Status AboutField(std::string_view field, const absl::Status& status) {
  return Prefixed(field, status);
}

// The text a request field stands for: the bytes as sent when
// `content_type` is plain text, else what extract makes of them (markup
// stripped, a PDF's pages). INVALID_ARGUMENT names the field.
class FieldText {
 public:
  static absl::StatusOr<FieldText> Of(std::string_view field,
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
        settings.extractor != nullptr
            ? settings.extractor->Extract(bytes, *type)
            : extract::ExtractText(bytes, *type);
    RETURN_IF_ERROR(AboutField(field, text.status()));
    out.extracted_ = *std::move(text);
    return out;
  }

  const std::string& text() const { return extracted_ ? *extracted_ : *bytes_; }

 private:
  explicit FieldText(const std::string& bytes) : bytes_(&bytes) {}

  const std::string* bytes_;  // the request's, which outlives this
  std::optional<std::string> extracted_;
};

// Content types describe text: they do not go with signatures or raw bytes.
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

absl::Status CheckId(const std::string& id, std::string_view field = "id") {
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

// Room kept in a Query answer for everything but the matches.
constexpr size_t kResponseSlackBytes = 4096;

}  // namespace

absl::StatusOr<std::shared_ptr<engine::Collection>> Handlers::FindCollection(
    std::string_view name) const {
  if (name.empty()) {
    return absl::InvalidArgumentError("collection must not be empty");
  }
  return db_->GetCollection(name);
}

absl::Status Handlers::CreateCollection(
    const v1::CreateCollectionRequest& request, v1::Collection* response) {
  const v1::FingerprintConfig* wire = &request.config();
  v1::FingerprintConfig with_model;
  if (const v1::EmbeddingSpace& space = wire->embedding();
      !space.fasttext_model().empty()) {
    // A local model names and sizes the space itself. Cheap refusals first:
    // loading a model may take a while.
    if (db_->GetCollection(request.name()).ok()) {
      return absl::AlreadyExistsError(
          absl::StrCat("collection '", request.name(), "' already exists"));
    }
    absl::StatusOr<std::shared_ptr<const embed::FastTextEmbedder>> loaded =
        embedders_.Get(space.fasttext_model());
    if (absl::IsNotFound(loaded.status())) {
      // The request names a file that is not there: a bad argument, not a
      // missing collection or document.
      return absl::InvalidArgumentError(loaded.status().message());
    }
    ASSIGN_OR_RETURN(const auto model, std::move(loaded));
    if (!space.model_id().empty() && space.model_id() != model->model_id()) {
      return absl::InvalidArgumentError(
          absl::StrCat("config.embedding.model_id \"", space.model_id(),
                       "\" is not the model_id of ", space.fasttext_model(),
                       " (", model->model_id(), "); leave it empty"));
    }
    if (space.dim() != 0 &&
        space.dim() != static_cast<uint32_t>(model->dim())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "config.embedding.dim ", space.dim(), " is not the dimension of ",
          space.fasttext_model(), " (", model->dim(), "); leave it 0"));
    }
    with_model = *wire;
    with_model.mutable_embedding()->set_model_id(model->model_id());
    with_model.mutable_embedding()->set_dim(
        static_cast<uint32_t>(model->dim()));
    wire = &with_model;
  }
  ASSIGN_OR_RETURN(CollectionConfig config, ConfigFromProto(*wire));
  ASSIGN_OR_RETURN(auto collection,
                   db_->CreateCollection(request.name(), config));
  *response = CollectionToProto(*collection);
  return absl::OkStatus();
}

absl::Status Handlers::GetCollection(const v1::GetCollectionRequest& request,
                                     v1::Collection* response) {
  ASSIGN_OR_RETURN(auto collection, FindCollection(request.name()));
  *response = CollectionToProto(*collection);
  return absl::OkStatus();
}

absl::Status Handlers::ListCollections(const v1::ListCollectionsRequest&,
                                       v1::ListCollectionsResponse* response) {
  for (const auto& collection : db_->ListCollections()) {
    *response->add_collections() = CollectionToProto(*collection);
  }
  return absl::OkStatus();
}

absl::Status Handlers::DropCollection(const v1::DropCollectionRequest& request,
                                      v1::DropCollectionResponse*) {
  if (request.name().empty()) {
    return absl::InvalidArgumentError("name must not be empty");
  }
  return db_->DropCollection(request.name());
}

absl::StatusOr<Handlers::PreparedUpsert> Handlers::PrepareUpsert(
    const v1::UpsertRequest& request) const {
  PreparedUpsert prepared;
  ASSIGN_OR_RETURN(prepared.collection, FindCollection(request.collection()));
  const engine::Collection& collection = *prepared.collection;
  const storage::CollectionRecord& record = collection.record();
  RETURN_IF_ERROR(CheckId(request.id()));
  RETURN_IF_ERROR(CheckMetadata(request.metadata(), settings_));
  engine::DocumentInput input;
  input.external_id = request.id();
  input.metadata = MetadataFromProto(request.metadata());
  std::optional<FieldText> text;  // outlives Prepare
  switch (request.content_case()) {
    case v1::UpsertRequest::kText: {
      ASSIGN_OR_RETURN(text, FieldText::Of("text", request.text(),
                                           request.content_type(), settings_));
      input.text = text->text();
      break;
    }
    case v1::UpsertRequest::kSignatures: {
      RETURN_IF_ERROR(CheckNoContentType(
          request.content_type(), "leave it unset when sending signatures"));
      engine::SignatureInput& signatures = input.signatures.emplace();
      RETURN_IF_ERROR(SignaturesFromProto(request.signatures(), collection,
                                          &signatures.minhash,
                                          &signatures.simhash));
      // Before the costlier checks (Prepare checks it too): a client that
      // left it out hears so first, as it always has.
      if (record.config.simhash_enabled && !signatures.simhash) {
        return absl::InvalidArgumentError(
            absl::StrCat("collection '", record.name,
                         "' has SimHash on: signatures.simhash is required"));
      }
      const std::string& shingle_set = request.signatures().shingle_set();
      if (!shingle_set.empty() &&
          record.config.verification == Verification::kExact) {
        // 5.5-7 bytes per distinct shingle: it can outgrow its text (CJK),
        // so it is bounded by the message, not by --max-document-bytes.
        if (shingle_set.size() > settings_.max_response_bytes) {
          return absl::InvalidArgumentError(absl::StrCat(
              "signatures.shingle_set is ", shingle_set.size(),
              " bytes, over the message limit (--max-message-bytes)"));
        }
        RETURN_IF_ERROR(AboutField(
            "signatures.shingle_set",
            DecodeShingleSet(shingle_set, &signatures.evidence.emplace())));
      }
      ASSIGN_OR_RETURN(signatures.tlsh,
                       TlshFromProto(request.signatures(), record));
      break;
    }
    default:
      return absl::InvalidArgumentError("set either text or signatures");
  }
  if (request.has_embedding()) {
    ASSIGN_OR_RETURN(input.embedding, EmbeddingFromProto(request.embedding(),
                                                         record, "embedding"));
    input.embedding_model_id = request.embedding().model_id();
  }
  ASSIGN_OR_RETURN(prepared.doc, collection.Prepare(input, &embedders_));
  prepared.options.write.sync = request.sync() || settings_.sync_writes;
  if (request.has_insert_only_below()) {
    const double t = request.insert_only_below();
    RETURN_IF_ERROR(collection.CheckThreshold(t, "insert_only_below"));
    prepared.options.insert_only_below = t;
  }
  return prepared;
}

void Handlers::DescribeOutcome(const v1::UpsertRequest& request,
                               const engine::Collection& collection,
                               const engine::UpsertOutcome& outcome,
                               v1::UpsertResponse* response) {
  response->set_id(request.id());
  response->set_written(outcome.written);
  response->set_replaced(outcome.written && outcome.put.replaced);
  // The best few are listed (each costs a read and answer bytes); the
  // count is of all of them.
  for (const engine::MinHashMatch& match : outcome.blocking) {
    if (static_cast<size_t>(response->blocking_size()) >= kMaxBlockingListed) {
      break;
    }
    auto stored = collection.GetByInternalId(
        match.internal_id, storage::DocumentParts::kRecordOnly);
    if (!stored.ok()) continue;  // deleted meanwhile
    v1::Match* out = response->add_blocking();
    out->set_id(stored->external_id);
    SetMinHashScores(match, out);
  }
  response->set_blocking_count(static_cast<uint32_t>(
      std::min<size_t>(outcome.blocking.size(), UINT32_MAX)));
}

absl::Status Handlers::Upsert(const v1::UpsertRequest& request,
                              v1::UpsertResponse* response) {
  ASSIGN_OR_RETURN(PreparedUpsert prepared, PrepareUpsert(request));
  ASSIGN_OR_RETURN(engine::UpsertOutcome outcome,
                   prepared.collection->Apply(prepared.doc, prepared.options));
  DescribeOutcome(request, *prepared.collection, outcome, response);
  return absl::OkStatus();
}

void Handlers::UpsertBatch(std::span<const v1::UpsertRequest* const> requests,
                           std::span<absl::Status> statuses,
                           std::span<v1::UpsertResponse* const> responses) {
  std::vector<std::optional<PreparedUpsert>> prepared(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    absl::StatusOr<PreparedUpsert> p = PrepareUpsert(*requests[i]);
    statuses[i] = p.status();
    if (p.ok()) prepared[i] = *std::move(p);
  }
  // Runs of plain upserts into one collection go to UpsertMany together;
  // anything else ends the run, so the order of effects is the request
  // order.
  size_t i = 0;
  while (i < requests.size()) {
    if (!prepared[i]) {
      ++i;
      continue;
    }
    engine::Collection& collection = *prepared[i]->collection;
    if (prepared[i]->options.insert_only_below) {
      absl::StatusOr<engine::UpsertOutcome> outcome =
          collection.Apply(prepared[i]->doc, prepared[i]->options);
      statuses[i] = outcome.status();
      if (outcome.ok()) {
        DescribeOutcome(*requests[i], collection, *outcome, responses[i]);
      }
      ++i;
      continue;
    }
    const bool sync = prepared[i]->options.write.sync;
    std::vector<size_t> run;
    std::vector<const storage::DocumentWrite*> docs;
    for (; i < requests.size(); ++i) {
      if (!prepared[i]) continue;  // failed validation: nothing to order
      const PreparedUpsert& p = *prepared[i];
      if (p.collection.get() != &collection || p.options.insert_only_below ||
          p.options.write.sync != sync) {
        break;
      }
      run.push_back(i);
      docs.push_back(&p.doc);
    }
    std::vector<absl::StatusOr<storage::PutResult>> results =
        collection.ApplyMany(docs, storage::WriteOptions{sync});
    for (size_t r = 0; r < run.size(); ++r) {
      const size_t at = run[r];
      statuses[at] = results[r].status();
      if (!results[r].ok()) continue;
      engine::UpsertOutcome outcome;
      outcome.written = true;
      outcome.put = *results[r];
      DescribeOutcome(*requests[at], collection, outcome, responses[at]);
    }
  }
}

absl::Status Handlers::Get(const v1::GetRequest& request,
                           v1::Document* response) {
  ASSIGN_OR_RETURN(auto collection, FindCollection(request.collection()));
  RETURN_IF_ERROR(CheckId(request.id()));
  ASSIGN_OR_RETURN(storage::StoredDocument doc, collection->Get(request.id()));
  *response = DocumentToProto(doc, collection->record());
  return absl::OkStatus();
}

absl::Status Handlers::Delete(const v1::DeleteRequest& request,
                              v1::DeleteResponse*) {
  ASSIGN_OR_RETURN(auto collection, FindCollection(request.collection()));
  RETURN_IF_ERROR(CheckId(request.id()));
  storage::WriteOptions options;
  options.sync = request.sync() || settings_.sync_writes;
  return collection->Delete(request.id(), options);
}

namespace {

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

}  // namespace

namespace {

absl::StatusOr<engine::QueryAlgorithm> AlgorithmFromProto(
    v1::Algorithm algorithm) {
  switch (algorithm) {
    case v1::ALGORITHM_UNSPECIFIED:
    case v1::ALGORITHM_MINHASH:
      return engine::QueryAlgorithm::kMinHash;
    case v1::ALGORITHM_SIMHASH:
      return engine::QueryAlgorithm::kSimHash;
    case v1::ALGORITHM_SEMANTIC:
      return engine::QueryAlgorithm::kSemantic;
    case v1::ALGORITHM_HYBRID_ALL:
      return engine::QueryAlgorithm::kHybridAll;
    case v1::ALGORITHM_HYBRID_ANY:
      return engine::QueryAlgorithm::kHybridAny;
    default:
      return absl::InvalidArgumentError("algorithm: unknown value");
  }
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
  if (hit.tlsh_distance) match->set_tlsh_distance(*hit.tlsh_distance);
  for (const auto& [key, value] : resolved.metadata) {
    (*match->mutable_metadata())[key] = value;
  }
}

}  // namespace

absl::Status Handlers::Query(const v1::QueryRequest& request,
                             v1::QueryResponse* response,
                             IndexQueryStats* stats, const CallBudget& call) {
  // Validate: the request's fields, then the query against the collection.
  ASSIGN_OR_RETURN(auto collection, FindCollection(request.collection()));
  const storage::CollectionRecord& record = collection->record();
  engine::QuerySpec spec;
  ASSIGN_OR_RETURN(spec.algorithm, AlgorithmFromProto(request.algorithm()));
  const bool vectors = spec.algorithm == engine::QueryAlgorithm::kSemantic ||
                       spec.algorithm == engine::QueryAlgorithm::kHybridAll ||
                       spec.algorithm == engine::QueryAlgorithm::kHybridAny;
  if (request.has_embedding()) {
    // Decoded only where it can apply; elsewhere CheckQuery says why not.
    if (vectors && record.config.embedding.enabled()) {
      ASSIGN_OR_RETURN(spec.embedding, EmbeddingFromProto(request.embedding(),
                                                          record, "embedding"));
    } else {
      spec.embedding.emplace();
    }
  }
  if (request.has_min_cosine()) spec.min_cosine = request.min_cosine();
  // The raw text until it is extracted below: CheckQuery only asks whether
  // the probe is a text.
  if (request.probe_case() == v1::QueryRequest::kText) {
    spec.text = request.text();
  }
  RETURN_IF_ERROR(engine::CheckQuery(*collection, spec));
  if (request.top_k() > kMaxTopK) {
    return absl::InvalidArgumentError(absl::StrCat(
        "top_k must be at most ", kMaxTopK, ", got ", request.top_k()));
  }
  if (!request.exclude_id().empty()) {
    RETURN_IF_ERROR(CheckId(request.exclude_id(), "exclude_id"));
  }
  spec.top_k = request.top_k() == 0 ? kDefaultTopK : request.top_k();
  spec.exclude_id = request.exclude_id();
  spec.threshold = request.threshold();
  if (request.has_max_distance()) spec.max_distance = request.max_distance();
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
      engine::SignatureInput& signatures = spec.signatures.emplace();
      RETURN_IF_ERROR(SignaturesFromProto(request.signatures(), *collection,
                                          &signatures.minhash,
                                          &signatures.simhash));
      ASSIGN_OR_RETURN(signatures.tlsh,
                       TlshFromProto(request.signatures(), record));
      break;
    }
    default:
      break;
  }

  // Plan, probe and verify.
  ASSIGN_OR_RETURN(const engine::ProbeResult probe,
                   engine::ProbeQuery(*collection, spec, &embedders_, stats));
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

absl::Status Handlers::CreateBackup(const v1::CreateBackupRequest& request,
                                    const std::string& backup_root,
                                    v1::CreateBackupResponse* response) {
  if (backup_running_.exchange(true)) {
    return absl::AbortedError(
        "another backup is running; retry when it has finished");
  }
  const absl::Cleanup done = [this] { backup_running_.store(false); };
  const auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(
      const std::filesystem::path destination,
      ResolveBackupDestination(backup_root, request.destination()));
  // The checkpoint is built through descriptors, never through names
  // someone else could swap: its parent is opened beneath the root, and
  // RocksDB stages (and first empties) "<name>.tmp", so it builds in a
  // private directory of ours inside the parent, and the finished
  // checkpoint is renamed into place (never over an existing name).
  std::error_code error;
  const std::filesystem::path root = std::filesystem::weakly_canonical(
      std::filesystem::path(backup_root), error);
  const std::filesystem::path parent =
      destination.parent_path().lexically_relative(root);
  ASSIGN_OR_RETURN(
      const UniqueFd parent_dir,
      OpenBeneath(root.string(), parent.empty() ? "." : parent.string(),
                  O_PATH | O_DIRECTORY));
  const std::string name = destination.filename().string();
  // A fresh name each time: a staging directory left by a crash never
  // blocks a later backup.
  std::string staging;
  for (int attempt = 0;; ++attempt) {
    staging = absl::StrCat(".neardup-staging-",
                           absl::Hex(absl::Uniform<uint64_t>(bitgen_)));
    if (mkdirat(parent_dir.get(), staging.c_str(), 0700) == 0) break;
    if (errno != EEXIST || attempt == 8) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot create a staging directory next to ",
                       destination.string(), ": ", std::strerror(errno)));
    }
  }
  const UniqueFd staging_dir(
      openat(parent_dir.get(), staging.c_str(),
             O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  const absl::Cleanup remove_staging = [&] {
    std::error_code ignored;
    if (staging_dir.get() >= 0) {
      // Whatever is in it: the checkpoint, or RocksDB's half-built
      // "checkpoint.tmp".
      for (const auto& entry : std::filesystem::directory_iterator(
               staging_dir.ProcPath(), ignored)) {
        std::filesystem::remove_all(entry.path(), ignored);
      }
    }
    unlinkat(parent_dir.get(), staging.c_str(), AT_REMOVEDIR);
  };
  if (staging_dir.get() < 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot open the staging directory: ", std::strerror(errno)));
  }
  ASSIGN_OR_RETURN(
      const storage::CheckpointInfo info,
      db_->store().Checkpoint(staging_dir.ProcPath() + "/checkpoint"));
  int moved = renameat2(staging_dir.get(), "checkpoint", parent_dir.get(),
                        name.c_str(), RENAME_NOREPLACE);
  if (moved != 0 && (errno == EINVAL || errno == ENOSYS)) {
    // No rename flags on this filesystem (NFS): a plain rename once the
    // name is checked free; it replaces a name, never follows one.
    struct stat existing;
    if (fstatat(parent_dir.get(), name.c_str(), &existing,
                AT_SYMLINK_NOFOLLOW) == 0) {
      errno = EEXIST;
    } else if (errno == ENOENT) {
      moved = renameat(staging_dir.get(), "checkpoint", parent_dir.get(),
                       name.c_str());
    }
  }
  if (moved != 0) {
    return errno == EEXIST
               ? absl::AlreadyExistsError(absl::StrCat(
                     "destination ", destination.string(),
                     " appeared while the backup was made; nothing was "
                     "written there"))
               : absl::InternalError(absl::StrCat(
                     "cannot move the checkpoint to ", destination.string(),
                     ": ", std::strerror(errno)));
  }
  // The new name survives a power loss once its directory is on disk.
  if (const int dir =
          openat(parent_dir.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      dir >= 0) {
    fsync(dir);
    close(dir);
  }
  response->set_path(destination.string());
  response->set_sequence_number(info.sequence_number);
  for (const auto& [name, documents] : info.documents) {
    v1::BackupCollection* out = response->add_collections();
    out->set_name(name);
    out->set_documents(documents);
  }
  response->set_bytes(info.bytes);
  response->set_seconds(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count());
  return absl::OkStatus();
}

absl::StatusOr<Handlers::ExportStart> Handlers::StartExport(
    const v1::ExportRequest& request) {
  ASSIGN_OR_RETURN(auto collection, FindCollection(request.collection()));
  ExportStart start;
  // Evidence travels with the signatures: an import then verifies exactly.
  ASSIGN_OR_RETURN(start.cursor,
                   db_->store().OpenDocumentCursor(collection->record(),
                                                   request.with_signatures()));
  start.collection = CollectionToProto(*collection);
  start.record = collection->record();
  return start;
}

absl::Status Handlers::Stats(const v1::StatsRequest& request,
                             v1::StatsResponse* response) {
  std::vector<std::shared_ptr<engine::Collection>> collections;
  if (request.collection().empty()) {
    collections = db_->ListCollections();
    for (const engine::QuarantinedCollection& bad :
         db_->QuarantinedCollections()) {
      v1::QuarantinedCollection* out = response->add_quarantined();
      out->set_name(bad.name);
      out->set_reason(std::string(bad.reason.message()));
    }
  } else {
    ASSIGN_OR_RETURN(auto collection, FindCollection(request.collection()));
    collections.push_back(std::move(collection));
  }
  for (const auto& collection : collections) {
    v1::CollectionStats* out = response->add_collections();
    out->set_name(collection->name());
    out->set_document_count(collection->num_documents());
    out->set_index_bytes(collection->index_bytes());
    out->set_bands(collection->record().config.lsh.bands);
    out->set_rows(collection->record().config.lsh.rows);
    out->set_simhash(collection->record().config.simhash_enabled);
    out->set_min_threshold(collection->record().config.min_threshold);
    if (const SemanticIndex* semantic = collection->semantic_index()) {
      const size_t vectors = semantic->size();
      const size_t bytes = semantic->memory_bytes();
      out->set_semantic_vectors(vectors);
      out->set_semantic_index_bytes(bytes);
      out->set_semantic_bytes_per_vector(
          vectors == 0 ? 0.0 : static_cast<double>(bytes) / vectors);
    }
  }
  const storage::StoreStats store = db_->store().Stats();
  response->set_store_live_bytes(store.live_sst_bytes + store.live_blob_bytes);
  response->set_store_blob_garbage_bytes(store.blob_garbage_bytes);
  response->set_store_blob_gc_on(store.blob_gc_on);
  response->set_store_pending_compaction_bytes(
      store.estimated_pending_compaction_bytes);
  response->set_store_memtable_bytes(store.memtable_bytes);
  response->set_disk_available_bytes(store.disk_available_bytes);
  response->set_disk_capacity_bytes(store.disk_capacity_bytes);
  response->set_disk_full(store.disk_full);
  response->set_disk_full_reason(store.disk_full_reason);
  response->set_disk_reserve_bytes(store.disk_reserve_bytes);
  return absl::OkStatus();
}

namespace {

// A stateless call's proto fields as core's options. The wire's zeros mean
// the defaults: a 64-bit newsbot SimHash, a winnowing window of 4.
absl::StatusOr<StatelessOptions> StatelessOptionsOf(
    v1::FingerprintKind kind, const v1::FingerprintConfig& proto,
    uint32_t newsbot_bits, uint32_t winnow_window) {
  StatelessOptions options;
  ASSIGN_OR_RETURN(CollectionConfig config, ConfigFromProto(proto));
  ASSIGN_OR_RETURN(options.settings, neardup::proto::SettingsFromProto(proto));
  switch (kind) {
    case v1::FINGERPRINT_KIND_UNSPECIFIED:
      options.kind = FingerprintKind::kCollection;
      options.collection = std::move(config);
      break;
    case v1::FINGERPRINT_KIND_TLSH:
      options.kind = FingerprintKind::kTlsh;
      break;
    case v1::FINGERPRINT_KIND_TLSH_RAW:
      options.kind = FingerprintKind::kTlshRaw;
      break;
    case v1::FINGERPRINT_KIND_NEWSBOT:
      options.kind = FingerprintKind::kNewsbot;
      if (newsbot_bits != 0 && newsbot_bits != 16 && newsbot_bits != 32 &&
          newsbot_bits != 64 && newsbot_bits != 128) {
        return absl::InvalidArgumentError(
            absl::StrCat("newsbot_bits must be 16, 32, 64 or 128 (or 0 for "
                         "64), got ",
                         newsbot_bits));
      }
      if (newsbot_bits != 0) {
        options.newsbot_bits = static_cast<int>(newsbot_bits);
      }
      break;
    case v1::FINGERPRINT_KIND_PERCEPTUAL:
      options.kind = FingerprintKind::kPerceptual;
      if (winnow_window > 1024) {
        return absl::InvalidArgumentError(absl::StrCat(
            "winnow_window must be in [1, 1024] (or 0 for 4), got ",
            winnow_window));
      }
      if (winnow_window != 0) {
        options.winnow_window = static_cast<int>(winnow_window);
      }
      break;
    default:
      return absl::InvalidArgumentError("kind: unknown value");
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
  return absl::OkStatus();
}

}  // namespace neardup::server
