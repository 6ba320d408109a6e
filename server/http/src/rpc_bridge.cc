#include "neardup/http/rpc_bridge.h"

#include <vector>

#include "neardup/base/tsan_handoff.h"

namespace neardup::http {
namespace {

grpc::ByteBuffer ToBuffer(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

std::string FromBuffer(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  (void)buffer.Dump(&slices);
  std::string bytes;
  bytes.reserve(buffer.Length());
  for (const grpc::Slice& slice : slices) {
    bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  return bytes;
}

}  // namespace

grpc::Status CallUnary(grpc::GenericStub& stub, grpc::ClientContext* context,
                       const std::string& method, const std::string& request,
                       std::string* response) {
  const grpc::ByteBuffer request_buffer = ToBuffer(request);
  grpc::ByteBuffer response_buffer;
  Mutex mu;
  CondVar done;
  std::optional<grpc::Status> result;
  stub.UnaryCall(context, method, grpc::StubOptions(), &request_buffer,
                 &response_buffer, [&](grpc::Status status) {
                   MutexLock lock(&mu);
                   result = std::move(status);
                   done.SignalAll();
                 });
  MutexLock lock(&mu);
  while (!result.has_value()) done.Wait(&mu);
  if (result->ok()) *response = FromBuffer(response_buffer);
  return *result;
}

StreamCall::StreamCall(grpc::GenericStub& stub, grpc::ClientContext* context,
                       const std::string& method)
    : context_(context) {
  stub.PrepareBidiStreamingCall(context, method, grpc::StubOptions(), this);
  // Held until Finish: the driving thread may start reads and writes until
  // then, which it may not once OnDone ran.
  AddHold();
  {
    MutexLock lock(&mu_);
    reading_ = true;
  }
  // gRPC calls back on its own threads, ordered by synchronisation TSan
  // does not see (base/tsan_handoff.h).
  TsanRelease(this);
  StartRead(&read_buffer_);
  StartCall();
}

StreamCall::~StreamCall() {
  bool finished;
  {
    MutexLock lock(&mu_);
    finished = status_.has_value();
  }
  if (!finished) {
    context_->TryCancel();
    (void)Finish();
  }
}

void StreamCall::Write(const std::string& message) {
  {
    MutexLock lock(&mu_);
    write_result_.reset();
  }
  write_buffer_ = ToBuffer(message);
  TsanRelease(this);
  StartWrite(&write_buffer_);
}

void StreamCall::CloseWrites() { StartWritesDone(); }

StreamCall::Event StreamCall::Next(std::string* answer) {
  bool resume_reading = false;
  Event event;
  {
    MutexLock lock(&mu_);
    while (answers_.empty() && !write_result_.has_value() && !reads_done_) {
      changed_.Wait(&mu_);
    }
    if (!answers_.empty()) {
      *answer = std::move(answers_.front());
      answers_.pop_front();
      if (!reading_ && !reads_done_) {
        reading_ = true;
        resume_reading = true;
      }
      event = Event::kAnswer;
    } else if (write_result_.has_value()) {
      event = *write_result_ ? Event::kWritten : Event::kWriteFailed;
      write_result_.reset();
    } else {
      event = Event::kAnswersDone;
    }
  }
  // Outside the lock: gRPC may run the reaction on this thread.
  if (resume_reading) {
    TsanRelease(this);
    StartRead(&read_buffer_);
  }
  return event;
}

grpc::Status StreamCall::Finish() {
  if (!hold_released_) {
    hold_released_ = true;
    RemoveHold();
  }
  MutexLock lock(&mu_);
  while (!status_.has_value()) changed_.Wait(&mu_);
  return *status_;
}

void StreamCall::OnWriteDone(bool ok) {
  TsanAcquire(this);
  MutexLock lock(&mu_);
  write_result_ = ok;
  changed_.SignalAll();
}

void StreamCall::OnReadDone(bool ok) {
  TsanAcquire(this);
  bool read_again = false;
  {
    MutexLock lock(&mu_);
    if (!ok) {
      reading_ = false;
      reads_done_ = true;
    } else {
      answers_.push_back(FromBuffer(read_buffer_));
      read_again = answers_.size() < kMaxQueued;
      reading_ = read_again;
    }
    changed_.SignalAll();
  }
  if (read_again) {
    TsanRelease(this);
    StartRead(&read_buffer_);
  }
}

void StreamCall::OnDone(const grpc::Status& status) {
  TsanAcquire(this);
  MutexLock lock(&mu_);
  status_ = status;
  reads_done_ = true;
  changed_.SignalAll();
}

}  // namespace neardup::http
