#ifndef NEARDUP_SERVER_INTERNAL_EXPORT_REACTOR_H_
#define NEARDUP_SERVER_INTERNAL_EXPORT_REACTOR_H_

// The server side of an Export stream. A thread of its own reads the next
// batch from the store's cursor while gRPC sends the previous one, so
// neither gRPC's threads nor the request pool wait on a long scan; one
// message is in flight at a time, which is all the memory an export holds.
// A client that stops reading for `stall_timeout` gets its call cancelled.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "grpcpp/grpcpp.h"
#include "neardup/storage/collection_record.h"
#include "neardup/storage/store.h"
#include "neardup/v1/neardup.pb.h"

namespace neardup::server {

struct ExportOptions {
  bool with_signatures = false;
  size_t max_docs_per_message = 256;
  // A message stops taking documents once it holds this many bytes of text
  // and metadata (it may exceed it by one document).
  size_t bytes_per_message = size_t{1} << 20;
  std::chrono::duration<double> stall_timeout{60};
  // An export holds a snapshot of the store (and RocksDB keeps what it
  // sees) for as long as it runs: once it has run past stall_timeout it must
  // have sent at least this many bytes per second on average, or it ends
  // with DEADLINE_EXCEEDED. 0: no minimum.
  double min_bytes_per_second = 64 << 10;
  // The largest message gRPC may send: a document whose shingle set would
  // outgrow it goes without the set (ExportResponse.shingle_set_left_out).
  size_t max_message_bytes = size_t{64} << 20;
};

class ExportReactor final
    : public grpc::ServerWriteReactor<v1::ExportResponse> {
 public:
  // `done` runs once, with the final status, when the call is over.
  ExportReactor(grpc::CallbackServerContext* context, v1::Collection collection,
                storage::CollectionRecord record,
                std::unique_ptr<storage::DocumentCursor> cursor,
                ExportOptions options,
                std::function<void(const grpc::Status&)> done);

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  void Produce();
  // Waits until the message in flight is sent; false if the call ended.
  bool AwaitWrite();

  grpc::CallbackServerContext* const context_;
  v1::Collection collection_;
  const storage::CollectionRecord record_;
  const std::unique_ptr<storage::DocumentCursor> cursor_;
  const ExportOptions options_;
  const std::function<void(const grpc::Status&)> done_;
  v1::ExportResponse message_;
  grpc::Status final_status_;

  std::mutex mu_;
  std::condition_variable changed_;
  bool write_pending_ = false;
  bool write_failed_ = false;
  bool cancelled_ = false;
  std::thread producer_;
};

}  // namespace neardup::server

#endif  // NEARDUP_SERVER_INTERNAL_EXPORT_REACTOR_H_
