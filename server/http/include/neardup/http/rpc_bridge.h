#ifndef NEARDUP_HTTP_RPC_BRIDGE_H_
#define NEARDUP_HTTP_RPC_BRIDGE_H_

// Calls the server's own gRPC service by method name over an in-process
// channel, with serialized messages in and out: an HTTP request takes the
// same path as a gRPC call (auth, scopes, limits, deadlines, metrics).

#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/sync.h"

namespace neardup::http {

// A unary call; blocks until it ends.
grpc::Status CallUnary(grpc::GenericStub& stub, grpc::ClientContext* context,
                       const std::string& method, const std::string& request,
                       std::string* response);

// One streaming call (client, server or bidi streaming alike) driven by
// one blocking thread: one write at a time, answers queued as they arrive
// (at most kMaxQueued; reading pauses while the queue is full, which holds
// the server back as a slow gRPC client would).
class StreamCall final
    : public grpc::ClientBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  static constexpr size_t kMaxQueued = 16;

  // Starts the call. `context` must outlive this object.
  StreamCall(grpc::GenericStub& stub, grpc::ClientContext* context,
             const std::string& method);
  // Cancels the call if Finish was not called, and waits for its end.
  ~StreamCall() override;

  // Sends one message; the previous Write must have ended (kWritten or
  // kWriteFailed from Next).
  void Write(const std::string& message);
  // No more messages from this side.
  void CloseWrites();

  enum class Event {
    kAnswer,       // *answer holds the next answer
    kWritten,      // the last Write went out
    kWriteFailed,  // the call has ended: Finish tells why
    kAnswersDone,  // every answer has been returned
  };
  // Blocks until something happens; answers come first.
  Event Next(std::string* answer);

  // Waits for the call's end and returns its status.
  grpc::Status Finish();

  void OnWriteDone(bool ok) override;
  void OnReadDone(bool ok) override;
  void OnDone(const grpc::Status& status) override;

 private:
  grpc::ClientContext* const context_;
  grpc::ByteBuffer write_buffer_;
  grpc::ByteBuffer read_buffer_;
  bool hold_released_ = false;  // only the driving thread touches it

  Mutex mu_;
  CondVar changed_;
  std::deque<std::string> answers_ ABSL_GUARDED_BY(mu_);
  bool reading_ ABSL_GUARDED_BY(mu_) = false;
  bool reads_done_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<bool> write_result_ ABSL_GUARDED_BY(mu_);
  std::optional<grpc::Status> status_ ABSL_GUARDED_BY(mu_);
};

}  // namespace neardup::http

#endif  // NEARDUP_HTTP_RPC_BRIDGE_H_
