#include "neardup/server/internal/handlers.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/collection_config.h"
#include "neardup/core/shingle_set.h"
#include "neardup/server/internal/proto_convert.h"
#include "neardup/server/internal/request_fields.h"

// Collections and documents: create, get, list, drop; upsert, get, delete.

namespace neardup::server {

absl::StatusOr<std::shared_ptr<engine::Collection>> Handlers::FindCollection(
    std::string_view name) const {
  if (name.empty()) {
    return absl::InvalidArgumentError("collection must not be empty");
  }
  absl::StatusOr<std::shared_ptr<engine::Collection>> found =
      db_->GetCollection(name);
  if (cluster_ != nullptr && absl::IsNotFound(found.status())) {
    // Created on another node a moment ago: the registry has it before
    // this node's next look.
    cluster_->LookUpUnhosted(name).IgnoreError();
    return db_->GetCollection(name);
  }
  return found;
}

absl::Status Handlers::WaitForLog(std::string_view collection,
                                  uint64_t log_sequence,
                                  const CallBudget& call) const {
  if (log_sequence == 0) return absl::OkStatus();
  if (cluster_ == nullptr) {
    return absl::FailedPreconditionError(
        "log_sequence is of clusters; this neardupd is a single node (leave "
        "it 0)");
  }
  // Never longer than a write may wait: a stream's probe has no deadline of
  // its own, and a sequence the log never reaches must not hold a worker.
  return cluster_->WaitApplied(
      collection, log_sequence,
      std::min(call.deadline, absl::Now() + settings_.cluster_write_timeout));
}

absl::Time Handlers::WriteDeadline(const CallBudget& call) const {
  const absl::Time now = absl::Now();
  // Room to answer before the client gives up: it hears UNAVAILABLE (not
  // written) rather than DEADLINE_EXCEEDED (not known).
  const absl::Duration margin =
      std::min(absl::Milliseconds(500), (call.deadline - now) / 10);
  return std::min(call.deadline - margin,
                  now + settings_.cluster_write_timeout);
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
  const int shards =
      request.cluster_shards() == 0
          ? 1
          : static_cast<int>(std::min(request.cluster_shards(), 1u << 20));
  if (cluster_ != nullptr) {
    // Registered in the cluster (the first config wins), then hosted here.
    RETURN_IF_ERROR(cluster_->CreateCollection(request.name(), config, shards));
  } else if (shards > 1) {
    return absl::InvalidArgumentError(
        "cluster_shards: a single node holds one shard; collections of "
        "several "
        "shards live in a cluster (docs/cluster.md)");
  }
  absl::StatusOr<std::shared_ptr<engine::Collection>> collection =
      cluster_ != nullptr ? db_->GetCollection(request.name())
                          : db_->CreateCollection(request.name(), config);
  RETURN_IF_ERROR(collection.status());
  *response = CollectionToProto(**collection);
  if (shards > 1) {
    // Empty, but on every shard: said as a read would say it.
    response->set_cluster_shards(static_cast<uint32_t>(shards));
  }
  return absl::OkStatus();
}

absl::Status Handlers::GetCollection(const v1::GetCollectionRequest& request,
                                     v1::Collection* response,
                                     const CallBudget& call) {
  ASSIGN_OR_RETURN(auto collection, FindCollection(request.name()));
  *response = CollectionToProto(*collection);
  ASSIGN_OR_RETURN(const int shards, ShardsOf(request.name()));
  if (shards > 1) return CountAcrossShards(request.name(), response, call);
  return absl::OkStatus();
}

absl::Status Handlers::ListCollections(const v1::ListCollectionsRequest&,
                                       v1::ListCollectionsResponse* response,
                                       const CallBudget& call) {
  for (const auto& collection : db_->ListCollections()) {
    v1::Collection* out = response->add_collections();
    *out = CollectionToProto(*collection);
    // One this node could not host (another config...) is listed as its
    // disk holds it; the cluster's others count every shard.
    const std::optional<cluster::ClusterNode::Placement> placement =
        cluster_ != nullptr ? cluster_->PlacementIfHosted(collection->name())
                            : std::nullopt;
    if (placement.has_value() && placement->shards > 1) {
      RETURN_IF_ERROR(CountAcrossShards(collection->name(), out, call));
    }
  }
  return absl::OkStatus();
}

absl::Status Handlers::DropCollection(const v1::DropCollectionRequest& request,
                                      v1::DropCollectionResponse*) {
  if (request.name().empty()) {
    return absl::InvalidArgumentError("name must not be empty");
  }
  if (cluster_ != nullptr) {
    return absl::UnimplementedError(
        "dropping a collection of a cluster is not supported yet "
        "(docs/cluster.md)");
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
      ASSIGN_OR_RETURN(
          input.signatures,
          SignatureInputFromProto(
              request.signatures(), collection,
              {.simhash_required = true,
               .max_shingle_set_bytes = settings_.max_response_bytes,
               .max_shingle_set_hashes = settings_.max_document_bytes}));
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
                               v1::UpsertResponse* response,
                               const cluster::LoggedWrite* logged) {
  // In a cluster the blocking documents were named where the write was
  // decided (perhaps on other shards).
  const std::vector<std::string>* blocking_ids =
      logged != nullptr ? &logged->blocking_ids : nullptr;
  response->set_id(request.id());
  response->set_written(outcome.written);
  response->set_replaced(outcome.written && outcome.put.replaced);
  // The best few are listed (each costs a read and answer bytes); the
  // count is of all of them.
  for (size_t i = 0; i < outcome.blocking.size(); ++i) {
    if (static_cast<size_t>(response->blocking_size()) >= kMaxBlockingListed) {
      break;
    }
    const engine::MinHashMatch& match = outcome.blocking[i];
    std::string id;
    if (blocking_ids != nullptr) {
      if (i >= blocking_ids->size()) break;
      id = (*blocking_ids)[i];
    } else if (auto stored = collection.GetByInternalId(
                   match.internal_id, storage::DocumentParts::kRecordOnly);
               stored.ok()) {
      id = stored->external_id;
    }
    if (id.empty()) continue;  // deleted meanwhile
    v1::Match* out = response->add_blocking();
    out->set_id(id);
    SetMinHashScores(match, out);
  }
  response->set_blocking_count(static_cast<uint32_t>(std::min<size_t>(
      logged != nullptr ? logged->blocking_count : outcome.blocking.size(),
      UINT32_MAX)));
}

absl::Status Handlers::Upsert(const v1::UpsertRequest& request,
                              v1::UpsertResponse* response,
                              const CallBudget& call) {
  ASSIGN_OR_RETURN(PreparedUpsert prepared, PrepareUpsert(request));
  if (cluster_ != nullptr) {
    // The log is the durable copy: a quorum of log servers stores it before
    // this answer (`sync` adds nothing).
    ASSIGN_OR_RETURN(const cluster::LoggedWrite written,
                     cluster_->Upsert(request.collection(), prepared.doc,
                                      prepared.options.insert_only_below,
                                      WriteDeadline(call)));
    DescribeOutcome(request, *prepared.collection, written.outcome, response,
                    &written);
    response->set_log_sequence(written.sequence);
    return absl::OkStatus();
  }
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
  if (cluster_ != nullptr) {
    // Through the log in order, within one deadline: runs of items of one
    // collection are appended together, then waited for. Once an append
    // fails the items after its run are not tried, so what is written
    // keeps the order (ClusterNode::UpsertMany).
    const absl::Time deadline = WriteDeadline({});
    absl::Status unavailable;
    size_t i = 0;
    while (i < requests.size()) {
      if (!prepared[i]) {
        ++i;
        continue;
      }
      std::vector<size_t> run;
      std::vector<cluster::UpsertItem> items;
      for (; i < requests.size(); ++i) {
        if (!prepared[i]) continue;
        if (requests[i]->collection() !=
            requests[run.empty() ? i : run[0]]->collection()) {
          break;
        }
        run.push_back(i);
        items.push_back(
            {.doc = &prepared[i]->doc,
             .insert_only_below = prepared[i]->options.insert_only_below});
      }
      std::vector<absl::StatusOr<cluster::LoggedWrite>> written;
      if (unavailable.ok()) {
        bool stopped = false;
        written = cluster_->UpsertMany(requests[run[0]]->collection(), items,
                                       deadline, &stopped);
        if (stopped) {
          unavailable = absl::UnavailableError(
              "not written: an earlier item of this message was not "
              "appended to the log");
        }
      } else {
        written.assign(run.size(), unavailable);
      }
      for (size_t r = 0; r < run.size(); ++r) {
        const size_t at = run[r];
        statuses[at] = written[r].status();
        if (!written[r].ok()) continue;
        DescribeOutcome(*requests[at], *prepared[at]->collection,
                        written[r]->outcome, responses[at], &*written[r]);
        responses[at]->set_log_sequence(written[r]->sequence);
      }
    }
    return;
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
        collection.ApplyMany(docs, storage::WriteOptions{.sync = sync});
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
                           v1::Document* response, const CallBudget& call) {
  ASSIGN_OR_RETURN(const int shards, ShardsOf(request.collection()));
  if (shards > 1) return GetFromShard(request, response, call);
  return GetHere(request, response, call);
}

absl::Status Handlers::GetHere(const v1::GetRequest& request,
                               v1::Document* response, const CallBudget& call) {
  ASSIGN_OR_RETURN(auto collection, FindCollection(request.collection()));
  RETURN_IF_ERROR(CheckId(request.id()));
  RETURN_IF_ERROR(
      WaitForLog(request.collection(), request.log_sequence(), call));
  ASSIGN_OR_RETURN(storage::StoredDocument doc, collection->Get(request.id()));
  *response = DocumentToProto(doc, collection->record());
  return absl::OkStatus();
}

absl::Status Handlers::Delete(const v1::DeleteRequest& request,
                              v1::DeleteResponse* response,
                              const CallBudget& call) {
  ASSIGN_OR_RETURN(auto collection, FindCollection(request.collection()));
  RETURN_IF_ERROR(CheckId(request.id()));
  if (cluster_ != nullptr) {
    ASSIGN_OR_RETURN(const cluster::LoggedWrite deleted,
                     cluster_->Delete(request.collection(), request.id(),
                                      WriteDeadline(call)));
    response->set_log_sequence(deleted.sequence);
    return absl::OkStatus();
  }
  storage::WriteOptions options;
  options.sync = request.sync() || settings_.sync_writes;
  return collection->Delete(request.id(), options);
}

}  // namespace neardup::server
