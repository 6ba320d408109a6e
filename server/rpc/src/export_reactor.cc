#include "neardup/server/internal/export_reactor.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "neardup/base/tsan_handoff.h"
#include "neardup/server/internal/grpc_status.h"
#include "neardup/server/internal/proto_convert.h"

namespace neardup::server {
namespace {

// Room in a message for everything but one document's own bytes.
constexpr size_t kMessageSlackBytes = 64 << 10;

}  // namespace

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
  TsanRelease(this);  // gRPC calls back on its own threads
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
  // Time spent waiting for the client to take messages, not the server's
  // own time reading and encoding them.
  double waited_seconds = 0;
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
    size_t message_bytes = 0;
    for (const storage::StoredDocument& doc : *batch) {
      v1::Document* out = message_.add_documents();
      *out = DocumentToProto(doc, record_);
      if (!options_.with_signatures) {
        out->clear_signatures();
        out->clear_embedding();  // a vector is a fingerprint too
      } else if (message_bytes + out->ByteSizeLong() + kMessageSlackBytes >
                 options_.max_message_bytes) {
        // The message would outgrow what gRPC sends (and the export fail
        // at this document forever): this one goes without its set.
        out->mutable_signatures()->clear_shingle_set();
        message_.add_shingle_set_left_out(out->id());
      }
      message_bytes += out->ByteSizeLong() + 16;
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
    const auto write_start = std::chrono::steady_clock::now();
    StartWrite(&message_);
    if (!AwaitWrite()) break;
    waited_seconds += std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - write_start)
                          .count();
    const double elapsed = waited_seconds;
    // A grace period first: the stall timeout, at most a minute.
    if (options_.min_bytes_per_second > 0 &&
        elapsed > std::min(options_.stall_timeout.count(), 60.0) &&
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
  TsanAcquire(this);
  std::lock_guard<std::mutex> lock(mu_);
  write_pending_ = false;
  write_failed_ = !ok;
  changed_.notify_all();
}

void ExportReactor::OnCancel() {
  TsanAcquire(this);
  std::lock_guard<std::mutex> lock(mu_);
  cancelled_ = true;
  changed_.notify_all();
}

void ExportReactor::OnDone() {
  TsanAcquire(this);
  producer_.join();  // it has called Finish: it is leaving
  done_(final_status_);
  delete this;
}

}  // namespace neardup::server
