#ifndef NEARDUP_SERVER_INTERNAL_HANDLERS_H_
#define NEARDUP_SERVER_INTERNAL_HANDLERS_H_

// What each RPC does, over the database, as plain functions returning
// absl::Status: no gRPC types beyond the messages, so they are tested
// directly as well as through the server.

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/random/random.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "neardup/base/sync.h"
#include "neardup/cluster/cluster_node.h"
#include "neardup/core/index/query_stats.h"
#include "neardup/engine/database.h"
#include "neardup/engine/embedders.h"
#include "neardup/engine/query.h"
#include "neardup/extract/extract.h"
#include "neardup/extract/extract_pool.h"
#include "neardup/storage/validation.h"
#include "neardup/v1/neardup.pb.h"

namespace neardup::server {

// What the handlers are set up with: the server's limits on a request, and
// the services and switches they use.
struct HandlerSettings {
  size_t max_document_bytes = size_t{16} << 20;
  int max_metadata_keys = 64;  // per document
  size_t max_metadata_bytes = size_t{64} << 10;
  // A Query answer stops adding matches before it would outgrow this (the
  // gRPC message limit) and says it was truncated.
  size_t max_response_bytes = size_t{64} << 20;
  bool sync_writes = false;  // fsync every write, whatever the request says
  // Where markup and PDFs become text (content_type): sandboxed children.
  // Null (unit tests of trusted inputs only): in this process.
  extract::ExtractPool* extractor = nullptr;
  size_t max_pdf_bytes = size_t{50} << 20;
  // Root of the fastText model files collections may name; empty: off.
  std::string models_dir;
  // In a cluster: how long a write, or a read at a log sequence, may wait
  // for the log (streams have no deadline of their own).
  absl::Duration cluster_write_timeout = absl::Seconds(30);
};

using engine::CallBudget;
using engine::kExplainMatchesPerQuery;
using engine::kExplainTextBytesPerQuery;

// Documents an UpsertResponse lists as blocking a dedup-on-write insert
// (the best first); blocking_count counts all of them.
inline constexpr size_t kMaxBlockingListed = 100;

inline constexpr uint32_t kDefaultTopK = 10;
inline constexpr uint32_t kMaxTopK = 10000;
// Longest document id (as the store allows), also for exclude_id.
inline constexpr size_t kMaxIdBytes = storage::kMaxExternalIdBytes;

class Handlers {
 public:
  // `cluster`: this node's part in a cluster (docs/cluster.md), whose log
  // every write then goes through; null on a single node.
  Handlers(engine::Database* db, HandlerSettings settings,
           cluster::ClusterNode* cluster = nullptr)
      : db_(db),
        settings_(settings),
        cluster_(cluster),
        embedders_(settings.models_dir) {}

  absl::Status CreateCollection(const v1::CreateCollectionRequest& request,
                                v1::Collection* response);
  absl::Status GetCollection(const v1::GetCollectionRequest& request,
                             v1::Collection* response,
                             const CallBudget& call = {});
  absl::Status ListCollections(const v1::ListCollectionsRequest& request,
                               v1::ListCollectionsResponse* response,
                               const CallBudget& call = {});
  absl::Status DropCollection(const v1::DropCollectionRequest& request,
                              v1::DropCollectionResponse* response);
  absl::Status Upsert(const v1::UpsertRequest& request,
                      v1::UpsertResponse* response,
                      const CallBudget& call = {});
  // Upserts `requests` in order, each as Upsert would, with one status and
  // one response per request. Plain upserts into the same collection share
  // RocksDB batches; dedup-on-write ones go one at a time.
  void UpsertBatch(std::span<const v1::UpsertRequest* const> requests,
                   std::span<absl::Status> statuses,
                   std::span<v1::UpsertResponse* const> responses);
  absl::Status Get(const v1::GetRequest& request, v1::Document* response,
                   const CallBudget& call = {});
  absl::Status Delete(const v1::DeleteRequest& request,
                      v1::DeleteResponse* response,
                      const CallBudget& call = {});
  absl::Status Query(const v1::QueryRequest& request,
                     v1::QueryResponse* response, IndexQueryStats* stats,
                     const CallBudget& call = {});
  absl::Status Stats(const v1::StatsRequest& request,
                     v1::StatsResponse* response);
  // In a cluster: a request another node sent the shard this node holds
  // (ClusterNodeOptions::shard_service), answered from the local replica.
  absl::StatusOr<std::string> ServeShard(const cluster::ShardCall& call);

  // A checkpoint of the whole store into a new directory under
  // `backup_root` (see ResolveBackupDestination for the refusals).
  absl::Status CreateBackup(const v1::CreateBackupRequest& request,
                            const std::string& backup_root,
                            v1::CreateBackupResponse* response);

  // The start of an export: the collection and a cursor over its documents
  // as they are now.
  struct ExportStart {
    v1::Collection collection;
    storage::CollectionRecord record;
    std::unique_ptr<storage::DocumentCursor> cursor;
  };
  absl::StatusOr<ExportStart> StartExport(const v1::ExportRequest& request);

  // Stateless; no database needed.
  static absl::Status Fingerprint(const v1::FingerprintRequest& request,
                                  v1::FingerprintResponse* response,
                                  const HandlerSettings& settings);
  static absl::Status Compare(const v1::CompareRequest& request,
                              v1::CompareResponse* response,
                              const HandlerSettings& settings);

 private:
  // A validated, fingerprinted upsert, ready to write.
  struct PreparedUpsert {
    std::shared_ptr<engine::Collection> collection;
    engine::PreparedDocument doc;
    engine::UpsertOptions options;
  };
  absl::StatusOr<PreparedUpsert> PrepareUpsert(
      const v1::UpsertRequest& request) const;
  // Fills the response from what the write did. `blocking_ids`: the
  // blocking documents' ids as named when the write was applied (a
  // cluster); null: looked up now.
  static void DescribeOutcome(const v1::UpsertRequest& request,
                              const engine::Collection& collection,
                              const engine::UpsertOutcome& outcome,
                              v1::UpsertResponse* response,
                              const cluster::LoggedWrite* logged = nullptr);

  absl::StatusOr<std::shared_ptr<engine::Collection>> FindCollection(
      std::string_view name) const;
  // The collection's shard count: 1 on a single node.
  absl::StatusOr<int> ShardsOf(std::string_view collection) const;
  // Reads answered by this node's replica alone.
  absl::Status QueryHere(const v1::QueryRequest& request,
                         v1::QueryResponse* response, IndexQueryStats* stats,
                         const CallBudget& call);
  absl::Status GetHere(const v1::GetRequest& request, v1::Document* response,
                       const CallBudget& call);
  // Reads of a collection of several shards: asked of one replica of each
  // shard (or of the document's), through the cluster.
  absl::Status QueryShards(const v1::QueryRequest& request,
                           v1::QueryResponse* response, IndexQueryStats* stats,
                           const CallBudget& call);
  absl::Status GetFromShard(const v1::GetRequest& request,
                            v1::Document* response, const CallBudget& call);
  // Sets the documents of every shard in `collection` (and its shards).
  absl::Status CountAcrossShards(std::string_view name,
                                 v1::Collection* collection,
                                 const CallBudget& call);
  // When a request to the shards gives up.
  absl::Time ShardDeadline(const CallBudget& call) const;
  // A read's log_sequence: waits until this node applied it (a cluster),
  // refuses a non-zero one (a single node).
  absl::Status WaitForLog(std::string_view collection, uint64_t log_sequence,
                          const CallBudget& call) const;
  // The write's deadline in a cluster: the call's, or the setting's.
  absl::Time WriteDeadline(const CallBudget& call) const;

  engine::Database* const db_;
  const HandlerSettings settings_;
  cluster::ClusterNode* const cluster_;
  engine::EmbedderCache embedders_;
  // One backup at a time (two with the same new name would both pass the
  // "does not exist" check and share RocksDB's staging directory); another
  // is refused with ABORTED instead of holding a worker thread.
  std::atomic<bool> backup_running_{false};
  // Names of backup staging directories (used by the one running backup).
  absl::BitGen bitgen_;
};

}  // namespace neardup::server

#endif  // NEARDUP_SERVER_INTERNAL_HANDLERS_H_
