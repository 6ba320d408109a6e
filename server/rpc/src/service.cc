#include "neardup/server/internal/service.h"

#include <chrono>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"
#include "neardup/base/tsan_handoff.h"
#include "neardup/extract/content_type.h"
#include "neardup/extract/extract_pool.h"
#include "neardup/http/gateway.h"
#include "neardup/server/internal/export_reactor.h"
#include "neardup/server/internal/grpc_status.h"
#include "neardup/server/internal/ordered_stream_reactor.h"

namespace neardup::server {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

NearDupService::NearDupService(ServiceOptions options, WorkerPool* pool,
                               ServerMetrics* metrics)
    : options_(options),
      pool_(pool),
      metrics_(metrics),
      watchdog_(std::chrono::duration<double>(options.stream_idle_seconds),
                // Short idle limits (tests) are checked more often.
                std::chrono::duration<double>(
                    std::min(options.stream_idle_check_seconds,
                             options.stream_idle_seconds / 4))) {}

void NearDupService::SetDatabase(engine::Database* db,
                                 cluster::ClusterNode* cluster,
                                 WorkerPool* reads_across_shards) {
  shard_reads_pool_.store(reads_across_shards, std::memory_order_release);
  owned_handlers_ = std::make_unique<Handlers>(db, options_.handler, cluster);
  cluster_.store(cluster, std::memory_order_release);
  handlers_.store(owned_handlers_.get(), std::memory_order_release);
}

absl::StatusOr<std::string> NearDupService::ServeShard(
    const cluster::ShardCall& call) {
  Handlers* handlers = handlers_.load(std::memory_order_acquire);
  if (handlers == nullptr) {
    return absl::UnavailableError("this replica is starting");
  }
  return handlers->ServeShard(call);
}

CallCost NearDupService::ReadCost(CallCost cost,
                                  std::string_view collection) const {
  cluster::ClusterNode* cluster = cluster_.load(std::memory_order_acquire);
  if (cost == CallCost::kExtracts || cluster == nullptr) return cost;
  // Only what this node hosts already: no lookup here, before the call is
  // admitted (one not hosted yet is looked up on a pool).
  const std::optional<cluster::ClusterNode::Placement> placement =
      cluster->PlacementIfHosted(collection);
  if (placement.has_value() && placement->shards == 1) return cost;
  return shard_reads_pool_.load(std::memory_order_acquire) != nullptr
             ? CallCost::kAcrossShards
             : CallCost::kPooled;
}

grpc::Status NearDupService::Availability(bool needs_db) const {
  if (stopping_) {
    return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                        "neardupd is shutting down; retry on another replica "
                        "or after restart");
  }
  if (needs_db && handlers_.load(std::memory_order_acquire) == nullptr) {
    return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                        "neardupd is starting: indexes are being rebuilt "
                        "from the store; retry shortly");
  }
  return grpc::Status::OK;
}

bool NearDupService::MayRead(grpc::CallbackServerContext* context,
                             std::string_view collection) const {
  const absl::StatusOr<const TokenEntry*> token = Authenticate(context);
  if (!token.ok()) return false;
  return *token == nullptr ||
         TokenAuthenticator::Authorize(**token, Access::kRead, collection).ok();
}

absl::StatusOr<const TokenEntry*> NearDupService::Authenticate(
    grpc::CallbackServerContext* context) const {
  if (options_.auth == nullptr) return nullptr;
  const auto& metadata = context->client_metadata();
  auto it = metadata.find("authorization");
  const std::string_view header =
      it == metadata.end()
          ? std::string_view()
          : std::string_view(it->second.data(), it->second.size());
  return options_.auth->Authenticate(header);
}

namespace {

std::string_view MetadataValue(grpc::CallbackServerContext* context,
                               std::string_view key) {
  const auto& metadata = context->client_metadata();
  auto it = metadata.find(grpc::string_ref(key.data(), key.size()));
  return it == metadata.end()
             ? std::string_view()
             : std::string_view(it->second.data(), it->second.size());
}

}  // namespace

bool NearDupService::ViaGateway(grpc::CallbackServerContext* context) const {
  // Only the gateway knows the key: a gRPC client cannot pass as it.
  return !options_.gateway_key.empty() &&
         MetadataValue(context, http::kGatewayKeyMetadata) ==
             options_.gateway_key;
}

Protocol NearDupService::ProtocolOf(
    grpc::CallbackServerContext* context) const {
  return ViaGateway(context) ? Protocol::kHttp : Protocol::kGrpc;
}

std::string NearDupService::ConnectionOf(
    grpc::CallbackServerContext* context) const {
  // An HTTP client is its address (its requests come over many
  // connections, and all reach the service over one in-process channel).
  if (ViaGateway(context)) {
    return absl::StrCat(
        "http:", AbslView(MetadataValue(context, http::kHttpClientMetadata)));
  }
  return context->peer();
}

namespace {

// Requests up to this size may run on gRPC's callback thread when they are
// cheap (see below); larger ones always go to the worker pool.
constexpr size_t kInlineRequestBytes = 16 << 10;
// Matches a cheap query may ask for: each one costs a record read.
constexpr uint32_t kInlineTopK = 100;

bool IsPlainText(const std::string& content_type) {
  if (content_type.empty()) return true;
  absl::StatusOr<extract::ContentType> type =
      extract::ParseContentType(content_type);
  return type.ok() && *type == extract::ContentType::kPlainText;
}

// A query that only touches memory and a few RocksDB point lookups: a small
// plain-text or signature probe, MinHash or SimHash, no explain, few
// matches, no log sequence to wait for. Everything else (extraction, embedding,
// explain) runs on the pool, so gRPC's threads stay free for every other call.
bool IsCheapQuery(const v1::QueryRequest& request) {
  const v1::Algorithm algorithm = request.algorithm();
  return request.ByteSizeLong() <= kInlineRequestBytes &&
         request.log_sequence() == 0 && IsPlainText(request.content_type()) &&
         !request.explain() && request.top_k() <= kInlineTopK &&
         (algorithm == v1::ALGORITHM_UNSPECIFIED ||
          algorithm == v1::ALGORITHM_MINHASH ||
          algorithm == v1::ALGORITHM_SIMHASH);
}

// The extraction slot of one stream: taken by its first item that needs
// extraction (such items run one at a time, see RunSerially) and held until
// the stream's last task is gone (the reactor owns this through its
// handler), so that a stream counts once against the client's cap, also
// while an item still extracts after the stream was cancelled.
class StreamExtractionSlot {
 public:
  StreamExtractionSlot(ClientSlots* slots, std::string peer, int limit)
      : slots_(slots), peer_(std::move(peer)), limit_(limit) {}
  ~StreamExtractionSlot() {
    MutexLock lock(&mu_);
    if (held_) slots_->Release(peer_);
  }
  // False when the client already runs its cap of extractions elsewhere.
  bool Acquire() {
    MutexLock lock(&mu_);
    if (!held_ && !finished_) held_ = slots_->TryAcquire(peer_, limit_);
    return held_;
  }
  // The stream ended: items still to run get no slot.
  void Finish() {
    MutexLock lock(&mu_);
    finished_ = true;
  }

 private:
  ClientSlots* const slots_;
  const std::string peer_;
  const int limit_;
  Mutex mu_;
  bool held_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
};

bool AnyExtracts(const v1::BulkUpsertRequest& request) {
  for (const v1::UpsertRequest& item : request.items()) {
    if (!IsPlainText(item.content_type())) return true;
  }
  return false;
}

template <typename Request>
CallCost CheapIfSmall(const Request& request) {
  return request.ByteSizeLong() <= kInlineRequestBytes ? CallCost::kCheap
                                                       : CallCost::kPooled;
}

// A token that may extract: any read or write scope (extraction is work on
// untrusted formats, not for every valid token).
absl::Status MayExtract(const TokenEntry& token) {
  if (TokenAuthenticator::AuthorizeSome(token, Access::kRead).ok() ||
      TokenAuthenticator::AuthorizeSome(token, Access::kWrite).ok()) {
    return absl::OkStatus();
  }
  return absl::PermissionDeniedError(
      "turning HTML, Markdown or PDF into text (content_type) needs a token "
      "with a read or write scope");
}

}  // namespace

grpc::Status NearDupService::TooManyExtractions() const {
  return grpc::Status(
      grpc::StatusCode::RESOURCE_EXHAUSTED,
      absl::StrCat("this client already runs ",
                   options_.max_extractions_per_client,
                   " HTML/Markdown/PDF extractions (--max-extractions-per-"
                   "client); wait for them before sending more"));
}

template <typename Work>
grpc::ServerUnaryReactor* NearDupService::Dispatch(
    Method method, grpc::CallbackServerContext* context, bool needs_db,
    Access access, std::string_view collection, CallCost cost, Work work) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const Clock::time_point start = Clock::now();
  const Protocol protocol = ProtocolOf(context);
  auto refuse = [&](const grpc::Status& status) {
    metrics_->RecordRpc(method, protocol, status.error_code(),
                        SecondsSince(start));
    reactor->Finish(status);
    return reactor;
  };
  if (grpc::Status status = Availability(needs_db); !status.ok()) {
    return refuse(status);
  }
  auto token = Authenticate(context);
  if (!token.ok()) return refuse(ToGrpcStatus(token.status()));
  if (*token != nullptr) {
    absl::Status allowed =
        TokenAuthenticator::Authorize(**token, access, collection);
    if (!allowed.ok()) return refuse(ToGrpcStatus(allowed));
  }
  // Fairness key: the token's name when authentication is on, else the
  // connection.
  std::string peer = *token != nullptr ? absl::StrCat("token:", (*token)->name)
                                       : ConnectionOf(context);
  if (cost == CallCost::kExtracts && *token != nullptr) {
    if (absl::Status may = MayExtract(**token); !may.ok()) {
      return refuse(ToGrpcStatus(may));
    }
  }
  if (!client_slots_.TryAcquire(peer, options_.max_calls_per_client)) {
    return refuse(grpc::Status(
        grpc::StatusCode::RESOURCE_EXHAUSTED,
        absl::StrCat("this client already has ", options_.max_calls_per_client,
                     " calls in flight; wait for answers before sending "
                     "more")));
  }
  const bool extracts = cost == CallCost::kExtracts;
  if (extracts && !extraction_slots_.TryAcquire(
                      peer, options_.max_extractions_per_client)) {
    client_slots_.Release(peer);
    return refuse(TooManyExtractions());
  }
  // The caller's deadline, or the server's default for calls without one.
  const auto client_deadline = context->deadline();
  const auto default_deadline =
      std::chrono::system_clock::now() +
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::duration<double>(options_.default_deadline_seconds));
  const auto deadline = std::min(client_deadline, default_deadline);
  auto task = [this, method, protocol, context, reactor, start, deadline, work,
               peer, extracts] {
    grpc::Status status;
    if (context->IsCancelled()) {
      status = grpc::Status(grpc::StatusCode::CANCELLED, "call cancelled");
    } else if (std::chrono::system_clock::now() > deadline) {
      status = grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                            "deadline passed while the call waited for a "
                            "worker; the server is overloaded");
    } else {
      Handlers* handlers = handlers_.load(std::memory_order_acquire);
      const extract::ExtractPool::ScopedPrincipal principal(peer);
      // The call is not finished before this returns: its context is
      // alive for the handler's checks.
      CallBudget call;
      call.deadline = absl::FromChrono(deadline);
      call.cancelled = [context] { return context->IsCancelled(); };
      status = ToGrpcStatus(work(handlers, call));
    }
    metrics_->RecordRpc(method, protocol, status.error_code(),
                        SecondsSince(start));
    if (extracts) extraction_slots_.Release(peer);
    client_slots_.Release(peer);
    reactor->Finish(status);
  };
  WorkerPool* pool = pool_;
  if (cost == CallCost::kAcrossShards) {
    pool = shard_reads_pool_.load(std::memory_order_acquire);
  }
  if (cost == CallCost::kCheap && context->client_metadata().size() < 64) {
    // Small reads finish in tens of microseconds: running them here saves
    // two thread hand-offs, which cost more than the work itself.
    task();
  } else if (!pool->TrySubmit(std::move(task))) {
    if (extracts) extraction_slots_.Release(peer);
    client_slots_.Release(peer);
    const grpc::Status busy(
        grpc::StatusCode::RESOURCE_EXHAUSTED,
        absl::StrCat("server busy: ", pool->queued(),
                     " requests are queued (--max-queued-requests); retry "
                     "with backoff"));
    metrics_->RecordRpc(method, protocol, busy.error_code(),
                        SecondsSince(start));
    reactor->Finish(busy);
  }
  return reactor;
}

grpc::ServerUnaryReactor* NearDupService::CreateCollection(
    grpc::CallbackServerContext* context,
    const v1::CreateCollectionRequest* request, v1::Collection* response) {
  return Dispatch(Method::kCreateCollection, context, true, Access::kAdmin,
                  request->name(), CallCost::kPooled,
                  [request, response](Handlers* h, const CallBudget&) {
                    return h->CreateCollection(*request, response);
                  });
}

grpc::ServerUnaryReactor* NearDupService::GetCollection(
    grpc::CallbackServerContext* context,
    const v1::GetCollectionRequest* request, v1::Collection* response) {
  return Dispatch(Method::kGetCollection, context, true, Access::kRead,
                  request->name(),
                  ReadCost(CheapIfSmall(*request), request->name()),
                  [request, response](Handlers* h, const CallBudget& call) {
                    return h->GetCollection(*request, response, call);
                  });
}

grpc::ServerUnaryReactor* NearDupService::ListCollections(
    grpc::CallbackServerContext* context,
    const v1::ListCollectionsRequest* request,
    v1::ListCollectionsResponse* response) {
  // In a cluster, counting a collection of several shards asks them.
  return Dispatch(Method::kListCollections, context, true, Access::kRead, "*",
                  cluster_.load(std::memory_order_acquire) != nullptr
                      ? CallCost::kPooled
                      : CheapIfSmall(*request),
                  [request, response](Handlers* h, const CallBudget& call) {
                    return h->ListCollections(*request, response, call);
                  });
}

grpc::ServerUnaryReactor* NearDupService::DropCollection(
    grpc::CallbackServerContext* context,
    const v1::DropCollectionRequest* request,
    v1::DropCollectionResponse* response) {
  return Dispatch(Method::kDropCollection, context, true, Access::kAdmin,
                  request->name(), CallCost::kPooled,
                  [request, response](Handlers* h, const CallBudget&) {
                    return h->DropCollection(*request, response);
                  });
}

grpc::ServerUnaryReactor* NearDupService::Upsert(
    grpc::CallbackServerContext* context, const v1::UpsertRequest* request,
    v1::UpsertResponse* response) {
  // Which documents blocked a dedup-on-write insert is read access.
  const bool may_read = MayRead(context, request->collection());
  return Dispatch(
      Method::kUpsert, context, true, Access::kWrite, request->collection(),
      IsPlainText(request->content_type()) ? CallCost::kPooled
                                           : CallCost::kExtracts,
      [request, response, may_read](Handlers* h, const CallBudget& call) {
        RETURN_IF_ERROR(h->Upsert(*request, response, call));
        if (!may_read) response->clear_blocking();
        return absl::OkStatus();
      });
}

grpc::ServerUnaryReactor* NearDupService::Get(
    grpc::CallbackServerContext* context, const v1::GetRequest* request,
    v1::Document* response) {
  // A read at a log sequence may wait for it: on the pool.
  return Dispatch(Method::kGet, context, true, Access::kRead,
                  request->collection(),
                  ReadCost(request->log_sequence() == 0 ? CheapIfSmall(*request)
                                                        : CallCost::kPooled,
                           request->collection()),
                  [request, response](Handlers* h, const CallBudget& call) {
                    return h->Get(*request, response, call);
                  });
}

grpc::ServerUnaryReactor* NearDupService::Delete(
    grpc::CallbackServerContext* context, const v1::DeleteRequest* request,
    v1::DeleteResponse* response) {
  return Dispatch(Method::kDelete, context, true, Access::kWrite,
                  request->collection(), CallCost::kPooled,
                  [request, response](Handlers* h, const CallBudget& call) {
                    return h->Delete(*request, response, call);
                  });
}

grpc::ServerUnaryReactor* NearDupService::Query(
    grpc::CallbackServerContext* context, const v1::QueryRequest* request,
    v1::QueryResponse* response) {
  const CallCost cost =
      ReadCost(IsCheapQuery(*request)                 ? CallCost::kCheap
               : IsPlainText(request->content_type()) ? CallCost::kPooled
                                                      : CallCost::kExtracts,
               request->collection());
  return Dispatch(
      Method::kQuery, context, true, Access::kRead, request->collection(), cost,
      [this, request, response](Handlers* h, const CallBudget& call) {
        IndexQueryStats stats;
        absl::Status status = h->Query(*request, response, &stats, call);
        if (status.ok()) metrics_->RecordQuery(stats);
        return status;
      });
}

grpc::ServerUnaryReactor* NearDupService::Fingerprint(
    grpc::CallbackServerContext* context, const v1::FingerprintRequest* request,
    v1::FingerprintResponse* response) {
  return Dispatch(Method::kFingerprint, context, false, Access::kAny, "",
                  IsPlainText(request->content_type()) ? CallCost::kPooled
                                                       : CallCost::kExtracts,
                  [this, request, response](Handlers*, const CallBudget&) {
                    return Handlers::Fingerprint(*request, response,
                                                 options_.handler);
                  });
}

grpc::ServerUnaryReactor* NearDupService::Compare(
    grpc::CallbackServerContext* context, const v1::CompareRequest* request,
    v1::CompareResponse* response) {
  return Dispatch(Method::kCompare, context, false, Access::kAny, "",
                  IsPlainText(request->content_type()) ? CallCost::kPooled
                                                       : CallCost::kExtracts,
                  [this, request, response](Handlers*, const CallBudget&) {
                    return Handlers::Compare(*request, response,
                                             options_.handler);
                  });
}

grpc::ServerUnaryReactor* NearDupService::Stats(
    grpc::CallbackServerContext* context, const v1::StatsRequest* request,
    v1::StatsResponse* response) {
  return Dispatch(Method::kStats, context, true, Access::kRead,
                  request->collection().empty() ? std::string_view("*")
                                                : request->collection(),
                  CheapIfSmall(*request),
                  [request, response](Handlers* h, const CallBudget&) {
                    return h->Stats(*request, response);
                  });
}

grpc::ServerUnaryReactor* NearDupService::CreateBackup(
    grpc::CallbackServerContext* context,
    const v1::CreateBackupRequest* request,
    v1::CreateBackupResponse* response) {
  // The whole store: admin only. On the pool: a checkpoint flushes
  // memtables and links every file.
  return Dispatch(Method::kCreateBackup, context, true, Access::kAdmin, "*",
                  CallCost::kPooled,
                  [this, request, response](Handlers* h, const CallBudget&) {
                    absl::Status status = h->CreateBackup(
                        *request, options_.backup_root, response);
                    metrics_->RecordBackup(status.ok(), response->seconds(),
                                           response->bytes());
                    return status;
                  });
}

namespace {

// A server-streaming call that is refused before it starts.
template <typename Response>
class RefusedWriteStream : public grpc::ServerWriteReactor<Response> {
 public:
  explicit RefusedWriteStream(grpc::Status status) {
    this->Finish(status);
    TsanRelease(this);  // gRPC calls OnDone on another thread
  }
  void OnDone() override {
    TsanAcquire(this);
    delete this;
  }
};

}  // namespace

grpc::ServerWriteReactor<v1::ExportResponse>* NearDupService::Export(
    grpc::CallbackServerContext* context, const v1::ExportRequest* request) {
  const Clock::time_point start = Clock::now();
  const TokenEntry* token = nullptr;
  std::string peer;
  const Protocol protocol = ProtocolOf(context);
  auto refuse = [&](const grpc::Status& status) {
    metrics_->RecordRpc(Method::kExport, protocol, status.error_code(),
                        SecondsSince(start));
    return new RefusedWriteStream<v1::ExportResponse>(status);
  };
  if (grpc::Status status = AdmitStream(context, Access::kRead, &token, &peer);
      !status.ok()) {
    return refuse(status);
  }
  const absl::Status allowed =
      token == nullptr ? absl::OkStatus()
                       : TokenAuthenticator::Authorize(*token, Access::kRead,
                                                       request->collection());
  absl::StatusOr<Handlers::ExportStart> export_start =
      allowed.ok()
          ? handlers_.load(std::memory_order_acquire)->StartExport(*request)
          : absl::StatusOr<Handlers::ExportStart>(allowed);
  if (!export_start.ok()) {
    ReleaseStream(peer);
    return refuse(ToGrpcStatus(export_start.status()));
  }
  ExportOptions options;
  options.with_signatures = request->with_signatures();
  options.stall_timeout = std::chrono::duration<double>(
      options_.stream_idle_seconds > 0 ? options_.stream_idle_seconds
                                       : 24 * 3600.0);
  options.min_bytes_per_second = options_.export_min_bytes_per_second;
  options.max_message_bytes = options_.max_message_bytes;
  return new ExportReactor(
      context, std::move(export_start->collection),
      std::move(export_start->record), std::move(export_start->cursor), options,
      [this, start, peer, protocol](const grpc::Status& status) {
        ReleaseStream(peer);
        metrics_->RecordRpc(Method::kExport, protocol, status.error_code(),
                            SecondsSince(start));
      });
}

namespace {

// A stream that is refused before it starts.
template <typename Request, typename Response>
class RefusedStream : public grpc::ServerBidiReactor<Request, Response> {
 public:
  explicit RefusedStream(grpc::Status status) {
    this->Finish(status);
    TsanRelease(this);  // gRPC calls OnDone on another thread
  }
  void OnDone() override {
    TsanAcquire(this);
    delete this;
  }
};

}  // namespace

grpc::Status NearDupService::AdmitStream(grpc::CallbackServerContext* context,
                                         Access access,
                                         const TokenEntry** token,
                                         std::string* peer) {
  if (grpc::Status status = Availability(true); !status.ok()) return status;
  auto authenticated = Authenticate(context);
  if (!authenticated.ok()) return ToGrpcStatus(authenticated.status());
  *token = *authenticated;
  // A token that could not use a single item is refused at once, instead
  // of holding a stream slot while every item fails.
  if (*token != nullptr) {
    absl::Status allowed = TokenAuthenticator::AuthorizeSome(**token, access);
    if (!allowed.ok()) return ToGrpcStatus(allowed);
  }
  *peer = *token != nullptr ? absl::StrCat("token:", (*token)->name)
                            : ConnectionOf(context);
  if (!stream_slots_.TryAcquire(*peer, options_.max_streams_per_client)) {
    return grpc::Status(
        grpc::StatusCode::RESOURCE_EXHAUSTED,
        absl::StrCat("this client already has ",
                     options_.max_streams_per_client,
                     " streams open (--max-streams-per-client); send more "
                     "per stream or close one"));
  }
  if (++active_streams_ > options_.max_concurrent_streams) {
    --active_streams_;
    stream_slots_.Release(*peer);
    return grpc::Status(
        grpc::StatusCode::RESOURCE_EXHAUSTED,
        absl::StrCat("the server already runs ",
                     options_.max_concurrent_streams,
                     " streams (--max-concurrent-streams); retry later"));
  }
  return grpc::Status::OK;
}

namespace {

std::string IdleMessage(double seconds) {
  return absl::StrCat("no message on this stream for ", seconds,
                      " s (--stream-idle-seconds): ended to free its slot; "
                      "open a new stream when there is more to send");
}

// Ends a stream that ran past --max-stream-items.
grpc::Status TooManyItems(uint64_t limit) {
  return grpc::Status(
      grpc::StatusCode::RESOURCE_EXHAUSTED,
      absl::StrCat("a stream may carry at most ", limit,
                   " items (--max-stream-items); open a new stream for the "
                   "rest"));
}

}  // namespace

grpc::ServerBidiReactor<v1::BulkUpsertRequest, v1::BulkUpsertResponse>*
NearDupService::BulkUpsert(grpc::CallbackServerContext* context) {
  using Request = v1::BulkUpsertRequest;
  using Response = v1::BulkUpsertResponse;
  const Clock::time_point start = Clock::now();
  const TokenEntry* token = nullptr;
  std::string peer;
  const Protocol protocol = ProtocolOf(context);
  if (grpc::Status status = AdmitStream(context, Access::kWrite, &token, &peer);
      !status.ok()) {
    metrics_->RecordRpc(Method::kBulkUpsert, protocol, status.error_code(), 0);
    return new RefusedStream<Request, Response>(status);
  }
  Handlers* handlers = handlers_.load(std::memory_order_acquire);
  auto extraction = std::make_shared<StreamExtractionSlot>(
      &extraction_slots_, peer, options_.max_extractions_per_client);
  // Each item's error goes in its result; the stream itself goes on.
  return new OrderedStreamReactor<Request, Response>(
      pool_, options_.bulk_window,
      [this, handlers, token, peer, extraction](
          uint64_t first_item, const Request& request, Response* response) {
        const size_t n = static_cast<size_t>(request.items_size());
        if (first_item + n > options_.max_stream_items) {
          return TooManyItems(options_.max_stream_items);
        }
        std::vector<const v1::UpsertRequest*> items(n);
        std::vector<absl::Status> statuses(n);
        std::vector<v1::UpsertResponse*> outputs(n);
        std::vector<const v1::UpsertRequest*> allowed;
        std::vector<v1::UpsertResponse*> allowed_outputs;
        std::vector<size_t> allowed_at;
        for (size_t i = 0; i < n; ++i) {
          v1::BulkUpsertResult* result = response->add_results();
          result->set_index(first_item + i);
          outputs[i] = result->mutable_response();
          items[i] = &request.items(static_cast<int>(i));
          if (token != nullptr) {
            statuses[i] = TokenAuthenticator::Authorize(*token, Access::kWrite,
                                                        items[i]->collection());
            if (!statuses[i].ok()) continue;
          }
          // Without the stream's extraction slot these items fail alone
          // and the stream goes on.
          if (!IsPlainText(items[i]->content_type()) &&
              !extraction->Acquire()) {
            statuses[i] = absl::ResourceExhaustedError(
                TooManyExtractions().error_message());
            continue;
          }
          allowed.push_back(items[i]);
          allowed_outputs.push_back(outputs[i]);
          allowed_at.push_back(i);
        }
        std::vector<absl::Status> allowed_statuses(allowed.size());
        const extract::ExtractPool::ScopedPrincipal principal(peer);
        handlers->UpsertBatch(allowed,
                              std::span<absl::Status>(allowed_statuses),
                              allowed_outputs);
        for (size_t k = 0; k < allowed_at.size(); ++k) {
          statuses[allowed_at[k]] = std::move(allowed_statuses[k]);
          // Which documents blocked an insert is read access.
          if (token != nullptr &&
              !TokenAuthenticator::Authorize(*token, Access::kRead,
                                             allowed[k]->collection())
                   .ok()) {
            allowed_outputs[k]->clear_blocking();
          }
        }
        for (size_t i = 0; i < n; ++i) {
          v1::BulkUpsertResult* result =
              response->mutable_results(static_cast<int>(i));
          result->set_code(static_cast<int32_t>(statuses[i].code()));
          if (!statuses[i].ok()) {
            result->set_message(std::string(statuses[i].message()));
            result->clear_response();
          }
          metrics_->RecordStreamItem(
              Method::kBulkUpsert,
              static_cast<grpc::StatusCode>(statuses[i].code()));
        }
        return grpc::Status::OK;
      },
      [this, start, peer, protocol, extraction](const grpc::Status& status) {
        extraction->Finish();
        ReleaseStream(peer);
        metrics_->RecordRpc(Method::kBulkUpsert, protocol, status.error_code(),
                            SecondsSince(start));
      },
      [this] { return stopping_.load(); },
      // Writes go to the pool: batches of one stream then fingerprint in
      // parallel while another batch holds the collection's write lock.
      [](const Request&) { return false; },
      [](const Request& request) {
        return static_cast<uint64_t>(request.items_size());
      },
      &watchdog_, IdleMessage(options_.stream_idle_seconds),
      [context] { context->TryCancel(); }, options_.stream_buffer_bytes,
      [](const Request& request) { return AnyExtracts(request); });
}

grpc::ServerBidiReactor<v1::QueryRequest, v1::QueryResponse>*
NearDupService::BatchQuery(grpc::CallbackServerContext* context) {
  const Clock::time_point start = Clock::now();
  const TokenEntry* token = nullptr;
  std::string peer;
  const Protocol protocol = ProtocolOf(context);
  if (grpc::Status status = AdmitStream(context, Access::kRead, &token, &peer);
      !status.ok()) {
    metrics_->RecordRpc(Method::kBatchQuery, protocol, status.error_code(), 0);
    return new RefusedStream<v1::QueryRequest, v1::QueryResponse>(status);
  }
  Handlers* handlers = handlers_.load(std::memory_order_acquire);
  auto extraction = std::make_shared<StreamExtractionSlot>(
      &extraction_slots_, peer, options_.max_extractions_per_client);
  // Items may still run after gRPC is done with the call (and has freed its
  // context): they see the deadline as it was and whether the stream ended,
  // never the context.
  const absl::Time deadline =
      context->deadline() == std::chrono::system_clock::time_point::max()
          ? absl::InfiniteFuture()
          : absl::FromChrono(context->deadline());
  auto ended = std::make_shared<std::atomic<bool>>(false);
  // A failing probe ends the stream with its status.
  return new OrderedStreamReactor<v1::QueryRequest, v1::QueryResponse>(
      pool_, options_.stream_window,
      [this, handlers, token, peer, extraction, deadline, ended](
          uint64_t index, const v1::QueryRequest& request,
          v1::QueryResponse* response) {
        if (index >= options_.max_stream_items) {
          return TooManyItems(options_.max_stream_items);
        }
        absl::Status status =
            token == nullptr ? absl::OkStatus()
                             : TokenAuthenticator::Authorize(
                                   *token, Access::kRead, request.collection());
        if (status.ok() && !IsPlainText(request.content_type()) &&
            !extraction->Acquire()) {
          status = absl::ResourceExhaustedError(
              TooManyExtractions().error_message());
        } else if (status.ok()) {
          // Answers are buffered up to the window: each is kept to its
          // share of the stream's buffer.
          const size_t answer_bytes = std::max<size_t>(
              size_t{1} << 20, options_.stream_buffer_bytes /
                                   std::max<size_t>(1, options_.stream_window));
          const extract::ExtractPool::ScopedPrincipal principal(peer);
          CallBudget call;
          call.max_response_bytes = answer_bytes;
          call.deadline = deadline;
          call.cancelled = [ended] { return ended->load(); };
          IndexQueryStats stats;
          status = handlers->Query(request, response, &stats, call);
          if (status.ok()) metrics_->RecordQuery(stats);
        }
        metrics_->RecordStreamItem(
            Method::kBatchQuery, static_cast<grpc::StatusCode>(status.code()));
        return ToGrpcStatus(status);
      },
      [this, start, peer, protocol, extraction,
       ended](const grpc::Status& status) {
        ended->store(true);
        extraction->Finish();
        ReleaseStream(peer);
        metrics_->RecordRpc(Method::kBatchQuery, protocol, status.error_code(),
                            SecondsSince(start));
      },
      [this] { return stopping_.load(); },
      [this](const v1::QueryRequest& request) {
        // A collection of several shards waits for other nodes: never on
        // gRPC's threads.
        return IsCheapQuery(request) &&
               ReadCost(CallCost::kCheap, request.collection()) ==
                   CallCost::kCheap;
      },
      nullptr, &watchdog_, IdleMessage(options_.stream_idle_seconds),
      [context] { context->TryCancel(); }, options_.stream_buffer_bytes,
      [](const v1::QueryRequest& request) {
        return !IsPlainText(request.content_type());
      });
}

}  // namespace neardup::server
