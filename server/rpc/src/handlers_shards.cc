// Reads of a collection of several shards (docs/cluster.md): a query asks
// one replica of every shard and merges their best matches, a read asks the
// document's shard; and what this node answers for the shard it holds.

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/engine/shard_merge.h"
#include "neardup/server/internal/handlers.h"
#include "neardup/server/internal/proto_convert.h"
#include "neardup/server/internal/request_fields.h"

namespace neardup::server {
namespace {

// Room kept in a merged Query answer for everything but the matches (the
// ranking itself is the engine's, MergeShardAnswers).
constexpr size_t kMergedSlackBytes = 4096;

template <typename Message>
absl::StatusOr<Message> Parse(const absl::StatusOr<std::string>& bytes,
                              std::string_view what) {
  RETURN_IF_ERROR(bytes.status());
  Message message;
  if (!message.ParseFromString(*bytes)) {
    return absl::DataLossError(
        absl::StrCat("a shard's answer is not a ", AbslView(what)));
  }
  return message;
}

}  // namespace

absl::StatusOr<int> Handlers::ShardsOf(std::string_view collection) const {
  if (cluster_ == nullptr) return 1;
  ASSIGN_OR_RETURN(const cluster::ClusterNode::Placement placement,
                   cluster_->PlacementOf(collection));
  return placement.shards;
}

absl::Time Handlers::ShardDeadline(const CallBudget& call) const {
  return std::min(call.deadline, absl::Now() + settings_.cluster_write_timeout);
}

absl::Status Handlers::Query(const v1::QueryRequest& request,
                             v1::QueryResponse* response,
                             IndexQueryStats* stats, const CallBudget& call) {
  RETURN_IF_ERROR(FindCollection(request.collection()).status());
  ASSIGN_OR_RETURN(const int shards, ShardsOf(request.collection()));
  if (shards > 1) return QueryShards(request, response, stats, call);
  return QueryHere(request, response, stats, call);
}

absl::Status Handlers::QueryShards(const v1::QueryRequest& request,
                                   v1::QueryResponse* response,
                                   IndexQueryStats* stats,
                                   const CallBudget& call) {
  // Refused here what every shard would refuse alike, before asking them.
  if (request.top_k() > kMaxTopK) {
    return absl::InvalidArgumentError(absl::StrCat(
        "top_k must be at most ", kMaxTopK, ", got ", request.top_k()));
  }
  std::vector<absl::StatusOr<std::string>> answers = cluster_->AskEveryShard(
      request.collection(), cluster::ShardCallKind::kQuery,
      request.SerializeAsString(), request.log_sequence(), ShardDeadline(call));
  std::vector<v1::QueryResponse> parts;
  std::vector<engine::ShardAnswer> ranked;
  for (const absl::StatusOr<std::string>& answer : answers) {
    // A shard that did not answer would leave its matches out: the query
    // fails rather than answer with less than it asked.
    ASSIGN_OR_RETURN(v1::QueryResponse part,
                     Parse<v1::QueryResponse>(answer, "query answer"));
    stats->candidates += part.candidates();
    stats->accepted += static_cast<size_t>(part.matches_size());
    parts.push_back(std::move(part));
  }
  for (const v1::QueryResponse& part : parts) {
    engine::ShardAnswer& answer = ranked.emplace_back();
    answer.truncated = part.truncated();
    for (const v1::Match& match : part.matches()) {
      answer.matches.push_back({match.id(), match.similarity()});
    }
  }
  const engine::MergedRanking merged = engine::MergeShardAnswers(
      ranked, request.top_k() == 0 ? kDefaultTopK : request.top_k());
  if (merged.truncated) response->set_truncated(true);
  const size_t limit =
      call.max_response_bytes > 0
          ? std::min(call.max_response_bytes, settings_.max_response_bytes)
          : settings_.max_response_bytes;
  const size_t budget =
      limit > kMergedSlackBytes ? limit - kMergedSlackBytes : 0;
  size_t answer_bytes = 0;
  for (size_t rank = 0; rank < merged.entries.size(); ++rank) {
    const engine::MergedRanking::Entry& entry = merged.entries[rank];
    v1::Match& match =
        *parts[entry.shard].mutable_matches(static_cast<int>(entry.match));
    if (rank >= kExplainMatchesPerQuery && match.passages_size() > 0) {
      // Each shard explained its best: the query's budget is the merged
      // ranking's, as on a single node.
      match.clear_passages();
      match.clear_passages_truncated();
      match.set_explain_unavailable(engine::ExplainBudgetSpent());
    }
    const size_t bytes = match.ByteSizeLong() + 16;
    if (answer_bytes + bytes > budget) {
      response->set_truncated(true);
      break;
    }
    answer_bytes += bytes;
    *response->add_matches() = std::move(match);
  }
  response->set_candidates(stats->candidates);
  return absl::OkStatus();
}

absl::Status Handlers::GetFromShard(const v1::GetRequest& request,
                                    v1::Document* response,
                                    const CallBudget& call) {
  RETURN_IF_ERROR(CheckId(request.id()));
  ASSIGN_OR_RETURN(
      *response,
      Parse<v1::Document>(
          cluster_->AskShardOf(request.collection(), request.id(),
                               cluster::ShardCallKind::kGet,
                               request.SerializeAsString(),
                               request.log_sequence(), ShardDeadline(call)),
          "document"));
  return absl::OkStatus();
}

absl::Status Handlers::CountAcrossShards(std::string_view name,
                                         v1::Collection* collection,
                                         const CallBudget& call) {
  v1::GetCollectionRequest request;
  request.set_name(std::string(name));
  std::vector<absl::StatusOr<std::string>> answers = cluster_->AskEveryShard(
      name, cluster::ShardCallKind::kCollection, request.SerializeAsString(), 0,
      ShardDeadline(call));
  uint64_t documents = 0;
  for (const absl::StatusOr<std::string>& answer : answers) {
    ASSIGN_OR_RETURN(const v1::Collection part,
                     Parse<v1::Collection>(answer, "collection"));
    documents += part.document_count();
  }
  collection->set_document_count(documents);
  collection->set_cluster_shards(static_cast<uint32_t>(answers.size()));
  return absl::OkStatus();
}

absl::StatusOr<std::string> Handlers::ServeShard(
    const cluster::ShardCall& call) {
  const CallBudget budget{.max_response_bytes = call.max_answer_bytes,
                          .deadline = call.deadline,
                          .cancelled = nullptr};
  switch (call.kind) {
    case cluster::ShardCallKind::kQuery: {
      v1::QueryRequest request;
      if (!request.ParseFromString(call.body)) {
        return absl::InvalidArgumentError("not a query");
      }
      if (request.collection() != call.collection) {
        return absl::InvalidArgumentError("a query of another collection");
      }
      v1::QueryResponse response;
      IndexQueryStats stats;
      RETURN_IF_ERROR(QueryHere(request, &response, &stats, budget));
      return response.SerializeAsString();
    }
    case cluster::ShardCallKind::kGet: {
      v1::GetRequest request;
      if (!request.ParseFromString(call.body) ||
          request.collection() != call.collection) {
        return absl::InvalidArgumentError("not a read of this collection");
      }
      v1::Document response;
      RETURN_IF_ERROR(GetHere(request, &response, budget));
      return response.SerializeAsString();
    }
    case cluster::ShardCallKind::kCollection: {
      ASSIGN_OR_RETURN(auto collection, FindCollection(call.collection));
      return CollectionToProto(*collection).SerializeAsString();
    }
    case cluster::ShardCallKind::kBlocking:
    case cluster::ShardCallKind::kOutcome:
    case cluster::ShardCallKind::kSnapshot:
      break;
  }
  return absl::UnimplementedError("a shard request this node does not serve");
}

}  // namespace neardup::server
