#include "server/src/service.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "server/src/grpc_status.h"
#include "server/src/ordered_stream_reactor.h"

namespace neardup::server {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

NearDupService::NearDupService(ServiceOptions options, WorkerPool* pool,
                               ServerMetrics* metrics)
    : options_(options), pool_(pool), metrics_(metrics) {}

void NearDupService::SetDatabase(storage::Database* db) {
  owned_handlers_ = std::make_unique<Handlers>(db, options_.limits);
  handlers_.store(owned_handlers_.get(), std::memory_order_release);
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

template <typename Work>
grpc::ServerUnaryReactor* NearDupService::Dispatch(
    Method method, grpc::CallbackServerContext* context, bool needs_db,
    Work work) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const Clock::time_point start = Clock::now();
  if (grpc::Status status = Availability(needs_db); !status.ok()) {
    metrics_->RecordRpc(method, status.error_code(), SecondsSince(start));
    reactor->Finish(status);
    return reactor;
  }
  // The caller's deadline, or the server's default for calls without one.
  const auto client_deadline = context->deadline();
  const auto default_deadline =
      std::chrono::system_clock::now() +
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::duration<double>(options_.default_deadline_seconds));
  const auto deadline = std::min(client_deadline, default_deadline);
  auto task = [this, method, context, reactor, start, deadline, work] {
    grpc::Status status;
    if (context->IsCancelled()) {
      status = grpc::Status(grpc::StatusCode::CANCELLED, "call cancelled");
    } else if (std::chrono::system_clock::now() > deadline) {
      status = grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                            "deadline passed while the call waited for a "
                            "worker; the server is overloaded");
    } else {
      Handlers* handlers = handlers_.load(std::memory_order_acquire);
      status = ToGrpcStatus(work(handlers));
    }
    metrics_->RecordRpc(method, status.error_code(), SecondsSince(start));
    reactor->Finish(status);
  };
  if (!pool_->TrySubmit(std::move(task))) {
    const grpc::Status busy(
        grpc::StatusCode::RESOURCE_EXHAUSTED,
        absl::StrCat("server busy: ", pool_->queued(),
                     " requests are queued (--max-queued-requests); retry "
                     "with backoff"));
    metrics_->RecordRpc(method, busy.error_code(), SecondsSince(start));
    reactor->Finish(busy);
  }
  return reactor;
}

grpc::ServerUnaryReactor* NearDupService::CreateCollection(
    grpc::CallbackServerContext* context,
    const v1::CreateCollectionRequest* request, v1::Collection* response) {
  return Dispatch(Method::kCreateCollection, context, true,
                  [request, response](Handlers* h) {
                    return h->CreateCollection(*request, response);
                  });
}

grpc::ServerUnaryReactor* NearDupService::GetCollection(
    grpc::CallbackServerContext* context,
    const v1::GetCollectionRequest* request, v1::Collection* response) {
  return Dispatch(Method::kGetCollection, context, true,
                  [request, response](Handlers* h) {
                    return h->GetCollection(*request, response);
                  });
}

grpc::ServerUnaryReactor* NearDupService::ListCollections(
    grpc::CallbackServerContext* context,
    const v1::ListCollectionsRequest* request,
    v1::ListCollectionsResponse* response) {
  return Dispatch(Method::kListCollections, context, true,
                  [request, response](Handlers* h) {
                    return h->ListCollections(*request, response);
                  });
}

grpc::ServerUnaryReactor* NearDupService::DropCollection(
    grpc::CallbackServerContext* context,
    const v1::DropCollectionRequest* request,
    v1::DropCollectionResponse* response) {
  return Dispatch(Method::kDropCollection, context, true,
                  [request, response](Handlers* h) {
                    return h->DropCollection(*request, response);
                  });
}

grpc::ServerUnaryReactor* NearDupService::Upsert(
    grpc::CallbackServerContext* context, const v1::UpsertRequest* request,
    v1::UpsertResponse* response) {
  return Dispatch(Method::kUpsert, context, true,
                  [request, response](Handlers* h) {
                    return h->Upsert(*request, response);
                  });
}

grpc::ServerUnaryReactor* NearDupService::Get(
    grpc::CallbackServerContext* context, const v1::GetRequest* request,
    v1::Document* response) {
  return Dispatch(
      Method::kGet, context, true,
      [request, response](Handlers* h) { return h->Get(*request, response); });
}

grpc::ServerUnaryReactor* NearDupService::Delete(
    grpc::CallbackServerContext* context, const v1::DeleteRequest* request,
    v1::DeleteResponse* response) {
  return Dispatch(Method::kDelete, context, true,
                  [request, response](Handlers* h) {
                    return h->Delete(*request, response);
                  });
}

grpc::ServerUnaryReactor* NearDupService::Query(
    grpc::CallbackServerContext* context, const v1::QueryRequest* request,
    v1::QueryResponse* response) {
  return Dispatch(Method::kQuery, context, true,
                  [this, request, response](Handlers* h) {
                    IndexQueryStats stats;
                    absl::Status status = h->Query(*request, response, &stats);
                    if (status.ok()) metrics_->RecordQuery(stats);
                    return status;
                  });
}

grpc::ServerUnaryReactor* NearDupService::Fingerprint(
    grpc::CallbackServerContext* context, const v1::FingerprintRequest* request,
    v1::FingerprintResponse* response) {
  return Dispatch(Method::kFingerprint, context, false,
                  [this, request, response](Handlers*) {
                    return Handlers::Fingerprint(*request, response,
                                                 options_.limits);
                  });
}

grpc::ServerUnaryReactor* NearDupService::Compare(
    grpc::CallbackServerContext* context, const v1::CompareRequest* request,
    v1::CompareResponse* response) {
  return Dispatch(
      Method::kCompare, context, false, [this, request, response](Handlers*) {
        return Handlers::Compare(*request, response, options_.limits);
      });
}

grpc::ServerUnaryReactor* NearDupService::Stats(
    grpc::CallbackServerContext* context, const v1::StatsRequest* request,
    v1::StatsResponse* response) {
  return Dispatch(Method::kStats, context, true,
                  [request, response](Handlers* h) {
                    return h->Stats(*request, response);
                  });
}

namespace {

// A stream that is refused before it starts.
template <typename Request, typename Response>
class RefusedStream : public grpc::ServerBidiReactor<Request, Response> {
 public:
  explicit RefusedStream(grpc::Status status) { this->Finish(status); }
  void OnDone() override { delete this; }
};

}  // namespace

grpc::ServerBidiReactor<v1::UpsertRequest, v1::BulkUpsertResult>*
NearDupService::BulkUpsert(grpc::CallbackServerContext*) {
  const Clock::time_point start = Clock::now();
  if (grpc::Status status = Availability(true); !status.ok()) {
    metrics_->RecordRpc(Method::kBulkUpsert, status.error_code(), 0);
    return new RefusedStream<v1::UpsertRequest, v1::BulkUpsertResult>(status);
  }
  Handlers* handlers = handlers_.load(std::memory_order_acquire);
  // Each item's error goes in its result; the stream itself goes on.
  return new OrderedStreamReactor<v1::UpsertRequest, v1::BulkUpsertResult>(
      pool_, options_.stream_window,
      [this, handlers](uint64_t index, const v1::UpsertRequest& request,
                       v1::BulkUpsertResult* result) {
        const absl::Status status =
            handlers->Upsert(request, result->mutable_response());
        result->set_index(index);
        result->set_code(static_cast<int32_t>(status.code()));
        if (!status.ok()) {
          result->set_message(std::string(status.message()));
          result->clear_response();
        }
        metrics_->RecordStreamItem(
            Method::kBulkUpsert, static_cast<grpc::StatusCode>(status.code()));
        return grpc::Status::OK;
      },
      [this, start](const grpc::Status& status) {
        metrics_->RecordRpc(Method::kBulkUpsert, status.error_code(),
                            SecondsSince(start));
      },
      [this] { return stopping_.load(); });
}

grpc::ServerBidiReactor<v1::QueryRequest, v1::QueryResponse>*
NearDupService::BatchQuery(grpc::CallbackServerContext*) {
  const Clock::time_point start = Clock::now();
  if (grpc::Status status = Availability(true); !status.ok()) {
    metrics_->RecordRpc(Method::kBatchQuery, status.error_code(), 0);
    return new RefusedStream<v1::QueryRequest, v1::QueryResponse>(status);
  }
  Handlers* handlers = handlers_.load(std::memory_order_acquire);
  return new OrderedStreamReactor<v1::QueryRequest, v1::QueryResponse>(
      pool_, options_.stream_window,
      [this, handlers](uint64_t, const v1::QueryRequest& request,
                       v1::QueryResponse* response) {
        IndexQueryStats stats;
        const absl::Status status = handlers->Query(request, response, &stats);
        if (status.ok()) metrics_->RecordQuery(stats);
        metrics_->RecordStreamItem(
            Method::kBatchQuery, static_cast<grpc::StatusCode>(status.code()));
        return ToGrpcStatus(status);
      },
      [this, start](const grpc::Status& status) {
        metrics_->RecordRpc(Method::kBatchQuery, status.error_code(),
                            SecondsSince(start));
      },
      [this] { return stopping_.load(); });
}

}  // namespace neardup::server
