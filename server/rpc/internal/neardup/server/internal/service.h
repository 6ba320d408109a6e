#ifndef NEARDUP_SERVER_INTERNAL_SERVICE_H_
#define NEARDUP_SERVER_INTERNAL_SERVICE_H_

// The neardup.v1.NearDup gRPC service on the callback API. Cheap calls (small
// reads and plain queries: memory and a few RocksDB point lookups) run on
// gRPC's thread; every other call is handed to the worker pool, so gRPC's
// threads never wait on extraction, embedding, explain or writes; a full
// pool answers RESOURCE_EXHAUSTED at once.

#include <atomic>
#include <memory>
#include <string>

#include "grpcpp/grpcpp.h"
#include "neardup/base/worker_pool.h"
#include "neardup/engine/database.h"
#include "neardup/server/internal/auth.h"
#include "neardup/server/internal/client_slots.h"
#include "neardup/server/internal/handlers.h"
#include "neardup/server/internal/metrics.h"
#include "neardup/server/internal/stream_watchdog.h"
#include "neardup/v1/neardup.grpc.pb.h"

namespace neardup::server {

// Where a unary call runs: on gRPC's thread, or on the pool (and holding
// one of the client's extraction slots); in a cluster, a read that waits
// for other nodes' shards on a pool of its own (writes waiting out a log
// failover hold the other one).
enum class CallCost { kCheap, kPooled, kExtracts, kAcrossShards };

struct ServiceOptions {
  HandlerSettings handler;
  double default_deadline_seconds = 30;
  size_t stream_window = 64;  // BatchQuery probes processed ahead of writing
  // BulkUpsert messages (batches of up to hundreds of documents) processed
  // ahead of writing: enough to keep every worker busy, few enough that a
  // stream holds little memory.
  size_t bulk_window = 8;
  // Null: no authentication (every call allowed).
  std::shared_ptr<const TokenAuthenticator> auth;
  int max_concurrent_streams = 64;
  uint64_t max_stream_items = 10'000'000;
  // Calls one client (token, or connection without auth) may have queued or
  // running; more are refused so that one flooding client cannot fill the
  // queue for everyone.
  int max_calls_per_client = 256;
  // Streams one client (token, or connection) may have open at once.
  int max_streams_per_client = 8;
  // A stream with no message from the client for this long is ended with
  // DEADLINE_EXCEEDED; <= 0 never.
  double stream_idle_seconds = 60;
  // How often idle streams are looked for.
  double stream_idle_check_seconds = 1;
  // Root of CreateBackup destinations; empty: backups are off.
  std::string backup_root;
  // The gRPC message limit (--max-message-bytes).
  size_t max_message_bytes = size_t{64} << 20;
  // See ExportOptions::min_bytes_per_second.
  double export_min_bytes_per_second = 64 << 10;
  // HTML/Markdown/PDF extractions one client may run at once.
  int max_extractions_per_client = 1;
  // Bytes of answers one stream may hold before it stops reading; each
  // BatchQuery answer is kept to this over stream_window (at least 1 MiB).
  size_t stream_buffer_bytes = size_t{64} << 20;
  // The HTTP gateway's secret (http::kGatewayKeyMetadata): calls carrying
  // it count as protocol http, keyed by the HTTP client's address. Empty:
  // no gateway.
  std::string gateway_key;
};

class NearDupService final : public v1::NearDup::CallbackService {
 public:
  NearDupService(ServiceOptions options, WorkerPool* pool,
                 ServerMetrics* metrics);

  // Until this is called, database calls answer UNAVAILABLE ("starting").
  // `cluster`: this node's part in a cluster; null on a single node.
  // A request another node sent this node's shard; UNAVAILABLE until the
  // database is set.
  absl::StatusOr<std::string> ServeShard(const cluster::ShardCall& call);
  void SetDatabase(engine::Database* db,
                   cluster::ClusterNode* cluster = nullptr,
                   WorkerPool* reads_across_shards = nullptr);
  // From now on, new calls answer UNAVAILABLE ("shutting down").
  void StopAccepting() { stopping_ = true; }

  grpc::ServerUnaryReactor* CreateCollection(
      grpc::CallbackServerContext* context,
      const v1::CreateCollectionRequest* request,
      v1::Collection* response) override;
  grpc::ServerUnaryReactor* GetCollection(
      grpc::CallbackServerContext* context,
      const v1::GetCollectionRequest* request,
      v1::Collection* response) override;
  grpc::ServerUnaryReactor* ListCollections(
      grpc::CallbackServerContext* context,
      const v1::ListCollectionsRequest* request,
      v1::ListCollectionsResponse* response) override;
  grpc::ServerUnaryReactor* DropCollection(
      grpc::CallbackServerContext* context,
      const v1::DropCollectionRequest* request,
      v1::DropCollectionResponse* response) override;
  grpc::ServerUnaryReactor* Upsert(grpc::CallbackServerContext* context,
                                   const v1::UpsertRequest* request,
                                   v1::UpsertResponse* response) override;
  grpc::ServerBidiReactor<v1::BulkUpsertRequest, v1::BulkUpsertResponse>*
  BulkUpsert(grpc::CallbackServerContext* context) override;
  grpc::ServerUnaryReactor* Get(grpc::CallbackServerContext* context,
                                const v1::GetRequest* request,
                                v1::Document* response) override;
  grpc::ServerUnaryReactor* Delete(grpc::CallbackServerContext* context,
                                   const v1::DeleteRequest* request,
                                   v1::DeleteResponse* response) override;
  grpc::ServerUnaryReactor* Query(grpc::CallbackServerContext* context,
                                  const v1::QueryRequest* request,
                                  v1::QueryResponse* response) override;
  grpc::ServerBidiReactor<v1::QueryRequest, v1::QueryResponse>* BatchQuery(
      grpc::CallbackServerContext* context) override;
  grpc::ServerUnaryReactor* Fingerprint(
      grpc::CallbackServerContext* context,
      const v1::FingerprintRequest* request,
      v1::FingerprintResponse* response) override;
  grpc::ServerUnaryReactor* Compare(grpc::CallbackServerContext* context,
                                    const v1::CompareRequest* request,
                                    v1::CompareResponse* response) override;
  grpc::ServerUnaryReactor* Stats(grpc::CallbackServerContext* context,
                                  const v1::StatsRequest* request,
                                  v1::StatsResponse* response) override;
  grpc::ServerUnaryReactor* CreateBackup(
      grpc::CallbackServerContext* context,
      const v1::CreateBackupRequest* request,
      v1::CreateBackupResponse* response) override;
  grpc::ServerWriteReactor<v1::ExportResponse>* Export(
      grpc::CallbackServerContext* context,
      const v1::ExportRequest* request) override;

 private:
  // Runs `work(handlers, call)` on the pool (or inline when cheap) and
  // finishes the call with its status; `call` carries its deadline and
  // cancellation.
  // `needs_db`: answer UNAVAILABLE while the indexes are still rebuilding.
  template <typename Work>
  grpc::ServerUnaryReactor* Dispatch(Method method,
                                     grpc::CallbackServerContext* context,
                                     bool needs_db, Access access,
                                     std::string_view collection, CallCost cost,
                                     Work work);
  grpc::Status TooManyExtractions() const;

  // The caller's token (null when authentication is off), or why not.
  // True when the caller may read `collection` (or auth is off).
  bool MayRead(grpc::CallbackServerContext* context,
               std::string_view collection) const;
  absl::StatusOr<const TokenEntry*> Authenticate(
      grpc::CallbackServerContext* context) const;
  bool ViaGateway(grpc::CallbackServerContext* context) const;
  Protocol ProtocolOf(grpc::CallbackServerContext* context) const;
  // Who a call counts against when it carries no token: its connection
  // (gRPC) or its client's address (HTTP).
  std::string ConnectionOf(grpc::CallbackServerContext* context) const;
  // Admission of a stream: availability, token, stream count. On success
  // the caller owns one stream slot (released by ReleaseStream).
  grpc::Status AdmitStream(grpc::CallbackServerContext* context, Access access,
                           const TokenEntry** token, std::string* peer);
  void ReleaseStream(const std::string& peer) {
    --active_streams_;
    stream_slots_.Release(peer);
  }
  // UNAVAILABLE while starting or stopping; OK otherwise.
  grpc::Status Availability(bool needs_db) const;
  // A read's cost: `cost`, or the pool for a collection of several shards
  // (its answer waits for other nodes).
  CallCost ReadCost(CallCost cost, std::string_view collection) const;

  const ServiceOptions options_;
  WorkerPool* const pool_;
  // In a cluster: runs reads of collections of several shards.
  std::atomic<WorkerPool*> shard_reads_pool_{nullptr};
  ServerMetrics* const metrics_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> active_streams_{0};
  ClientSlots client_slots_;
  ClientSlots stream_slots_;
  ClientSlots extraction_slots_;
  StreamWatchdog watchdog_;
  std::atomic<Handlers*> handlers_{nullptr};
  std::unique_ptr<Handlers> owned_handlers_;
  // In a cluster: this node's part (set with the database).
  std::atomic<cluster::ClusterNode*> cluster_{nullptr};
};

}  // namespace neardup::server

#endif  // NEARDUP_SERVER_INTERNAL_SERVICE_H_
