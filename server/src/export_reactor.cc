#include "neardup/server/internal/export_reactor.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "neardup/server/internal/grpc_status.h"
#include "neardup/server/internal/proto_convert.h"

namespace neardup::server {

ExportReactor::ExportReactor(grpc::CallbackServerContext* context,
                             v1::Collection collection,
                             storage::CollectionRecord record,
                             std::unique_ptr<storage::DocumentCursor> cursor,
                             ExportOptions options,
                             std::function<void(const grpc::Status&)> done)
    : context_(context),
      collection_(std::move(collection)),
      record_(std::move(record)),
      cursor_(std::move(cursor)),
      options_(options),
      done_(std::move(done)) {
  producer_ = std::thread([this] { Produce(); });
}

bool ExportReactor::AwaitWrite() {
  std::unique_lock<std::mutex> lock(mu_);
  const bool settled = changed_.wait_for(lock, options_.stall_timeout, [&] {
    return !write_pending_ || cancelled_;
  });
  if (!settled) {
    lock.unlock();
    // OnCancel follows; the write then completes with ok = false.
    context_->TryCancel();
    lock.lock();
    changed_.wait(lock, [&] { return !write_pending_; });
    final_status_ =
        grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                     absl::StrCat("the client read nothing for ",
                                  options_.stall_timeout.count(),
                                  " s (--stream-idle-seconds): export ended"));
    return false;
  }
  if (cancelled_ || write_failed_) {
    changed_.wait(lock, [&] { return !write_pending_; });
    final_status_ = grpc::Status(grpc::StatusCode::CANCELLED,
                                 "export cancelled by the client");
    return false;
  }
  return true;
}

void ExportReactor::Produce() {
  bool first = true;
  const auto start = std::chrono::steady_clock::now();
  double sent_bytes = 0;
  while (true) {
    auto batch = cursor_->Next(options_.max_docs_per_message,
                               options_.bytes_per_message);
    if (!batch.ok()) {
      final_status_ = ToGrpcStatus(batch.status());
      break;
    }
    if (batch->empty() && !first) {
      final_status_ = grpc::Status::OK;
      break;
    }
    message_.Clear();
    if (first) *message_.mutable_collection() = collection_;
    first = false;
    for (const storage::StoredDocument& doc : *batch) {
      v1::Document* out = message_.add_documents();
      *out = DocumentToProto(doc, record_);
      if (!options_.with_signatures) {
        out->clear_signatures();
        out->clear_embedding();  // a vector is a fingerprint too
      }
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (cancelled_) {
        final_status_ = grpc::Status(grpc::StatusCode::CANCELLED,
                                     "export cancelled by the client");
        break;
      }
      write_pending_ = true;
    }
    sent_bytes += static_cast<double>(message_.ByteSizeLong());
    StartWrite(&message_);
    if (!AwaitWrite()) break;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (options_.min_bytes_per_second > 0 &&
        elapsed > options_.stall_timeout.count() &&
        sent_bytes / elapsed < options_.min_bytes_per_second) {
      final_status_ = grpc::Status(
          grpc::StatusCode::DEADLINE_EXCEEDED,
          absl::StrCat("the client read this export at ",
                       static_cast<int64_t>(sent_bytes / elapsed),
                       " bytes/s, under the minimum of ",
                       static_cast<int64_t>(options_.min_bytes_per_second),
                       " (--export-min-bytes-per-second): an export holds a "
                       "snapshot of the store while it runs; export again "
                       "and read faster"));
      break;
    }
    if (batch->empty()) {  // the collection was empty: its header is sent
      final_status_ = grpc::Status::OK;
      break;
    }
  }
  Finish(final_status_);
}

void ExportReactor::OnWriteDone(bool ok) {
  std::lock_guard<std::mutex> lock(mu_);
  write_pending_ = false;
  write_failed_ = !ok;
  changed_.notify_all();
}

void ExportReactor::OnCancel() {
  std::lock_guard<std::mutex> lock(mu_);
  cancelled_ = true;
  changed_.notify_all();
}

void ExportReactor::OnDone() {
  producer_.join();  // it has called Finish: it is leaving
  done_(final_status_);
  delete this;
}

}  // namespace neardup::server
