#ifndef NEARDUP_SERVER_INTERNAL_ORDERED_STREAM_REACTOR_H_
#define NEARDUP_SERVER_INTERNAL_ORDERED_STREAM_REACTOR_H_

// A bidirectional stream where every request gets one response, in request
// order, while up to `window` requests are processed in parallel on the
// worker pool. Reading pauses when the window is full or the answers waiting
// to be written reach `max_buffered_bytes`, so a fast client cannot make
// the server buffer without limit; a client that stops reading answers is
// ended once a write has waited longer than the watchdog's idle time.
//
// The handler's status: OK sends the response; anything else ends the
// stream with that status after the responses before it were sent.
//
// Lifetime: gRPC calls OnDone once; tasks still running on the pool keep
// the reactor alive until the last one returns.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "grpcpp/grpcpp.h"
#include "neardup/base/sync.h"
#include "neardup/base/tsan_handoff.h"
#include "neardup/base/worker_pool.h"
#include "neardup/server/internal/stream_watchdog.h"

namespace neardup::server {

// `Base` is gRPC's reactor; tests give a stand-in that records the reads,
// writes and finish the reactor starts and lets the test complete them.
template <typename Request, typename Response,
          typename Base = grpc::ServerBidiReactor<Request, Response>>
class OrderedStreamReactor : public Base, public IdleCheckable {
 public:
  // Called with the request's position in the stream (from 0), counted in
  // items when an ItemCount is given (the position of its first item).
  using Handler =
      std::function<grpc::Status(uint64_t, const Request&, Response*)>;
  using OnFinish = std::function<void(const grpc::Status&)>;
  // Polled before each read: when true, the stream ends with UNAVAILABLE
  // once the requests already read are answered (graceful shutdown).
  using ShouldStop = std::function<bool()>;
  // True for requests cheap enough to process on gRPC's thread, which saves
  // two thread hand-offs per item; the rest go to the worker pool (past its
  // queue bound if need be: the window bounds what one stream queues, and
  // gRPC's threads never run them).
  using RunInline = std::function<bool(const Request&)>;
  // True for requests that run one at a time within the stream, in order
  // (those that need a client-wide resource, such as an extraction slot,
  // that parallel items of one stream would compete for).
  using RunSerially = std::function<bool(const Request&)>;
  // How many items a request carries, for streams of batches.
  using ItemCount = std::function<uint64_t(const Request&)>;

  // Starts reading at once. With a `watchdog`, the stream ends with
  // DEADLINE_EXCEEDED once it waited longer than the watchdog's idle time
  // for the client's next message (`idle_message` says which flag), or for
  // the client to take an answer (then `cancel_call` cancels the call: gRPC
  // then completes the pending write with ok = false).
  OrderedStreamReactor(WorkerPool* pool, size_t window, Handler handler,
                       OnFinish on_finish, ShouldStop should_stop,
                       RunInline run_inline, ItemCount item_count = nullptr,
                       StreamWatchdog* watchdog = nullptr,
                       std::string idle_message = "",
                       std::function<void()> cancel_call = nullptr,
                       size_t max_buffered_bytes = SIZE_MAX,
                       RunSerially run_serially = nullptr)
      : watchdog_(watchdog),
        idle_message_(std::move(idle_message)),
        cancel_call_(std::move(cancel_call)),
        max_buffered_bytes_(max_buffered_bytes),
        pool_(pool),
        window_(window),
        handler_(std::move(handler)),
        on_finish_(std::move(on_finish)),
        should_stop_(std::move(should_stop)),
        run_inline_(std::move(run_inline)),
        run_serially_(std::move(run_serially)),
        item_count_(std::move(item_count)) {
    {
      MutexLock lock(&mu_);
      last_message_ = Clock::now();
      StartReadLocked();
    }
    if (watchdog_ != nullptr) watchdog_->Add(this);
    TsanRelease(this);  // gRPC calls back on other threads
  }

  void FinishIfIdleSince(Clock::time_point since) override {
    MutexLock lock(&mu_);
    if (finished_ || done_) return;
    // Stalled = an answer the client has not taken since `since`: it stopped
    // reading. The write can only end by cancelling the call, which gRPC may
    // answer on the calling thread; that is done on the pool, not here
    // under the watchdog's lock.
    if (writing_ && write_started_ < since && cancel_call_ != nullptr &&
        !cancel_requested_) {
      FailNowLocked(grpc::Status(
          grpc::StatusCode::DEADLINE_EXCEEDED,
          "the client took no answer for longer than the stream idle time "
          "(--stream-idle-seconds): stream ended to free its answers"));
      cancel_requested_ = true;
      ++running_tasks_;
      if (!pool_->SubmitUnbounded([this] { CancelStalled(); })) {
        --running_tasks_;
      }
      return;
    }
    // Idle = waiting for the client with nothing of ours in flight.
    if (!reading_ || in_flight_ > 0 || last_message_ >= since) return;
    FailNowLocked(
        grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, idle_message_));
    MaybeFinishLocked();
  }

  void OnReadDone(bool ok) override {
    TsanAcquire(this);
    MutexLock lock(&mu_);
    if (!ok) {  // the client half-closed, or the call is gone
      reading_ = false;
      reads_done_ = true;
      MaybeFinishLocked();
      return;
    }
    last_message_ = Clock::now();
    // reading_ stays true until the next read is issued below, so that
    // OnWriteDone (on another thread) does not start a second read.
    auto request = std::make_shared<Request>(std::move(request_));
    request_.Clear();
    const uint64_t index = next_read_index_++;
    const uint64_t position = item_count_ ? next_item_position_ : index;
    if (item_count_) next_item_position_ += item_count_(*request);
    ++in_flight_;
    ++running_tasks_;
    const bool serial = run_serially_ && run_serially_(*request);
    auto task = [this, index, position, request, serial] {
      Process(index, position, *request, serial);
    };
    if (run_inline_ && run_inline_(*request)) {
      mu_.Unlock();
      task();
      mu_.Lock();
    } else if (serial && serial_running_) {
      serial_queue_.push_back({index, std::move(task)});
    } else {
      if (serial) serial_running_ = true;
      SubmitLocked(index, std::move(task));
    }
    reading_ = false;
    if (!reads_done_ && !finished_) StartReadLocked();
  }

  void OnWriteDone(bool ok) override {
    TsanAcquire(this);
    MutexLock lock(&mu_);
    writing_ = false;
    buffered_bytes_ -= writing_bytes_;
    writing_bytes_ = 0;
    in_flight_ -= 1;
    ++next_write_index_;
    if (!ok) {
      FailNowLocked(grpc::Status(grpc::StatusCode::CANCELLED,
                                 "the client went away mid-stream"));
    }
    PumpWritesLocked();
    if (!reads_done_ && !reading_ && !finished_) StartReadLocked();
    MaybeFinishLocked();
  }

  void OnCancel() override {
    TsanAcquire(this);
    MutexLock lock(&mu_);
    FailNowLocked(grpc::Status(grpc::StatusCode::CANCELLED, "call cancelled"));
    MaybeFinishLocked();
  }

  void OnDone() override {
    TsanAcquire(this);
    // First: the watchdog must not look at a reactor that may be deleted.
    if (watchdog_ != nullptr) watchdog_->Remove(this);
    bool delete_now;
    {
      MutexLock lock(&mu_);
      done_ = true;
      delete_now = running_tasks_ == 0;
    }
    if (delete_now) delete this;
  }

 private:
  // Hands `task` (request `index`) to the pool; when the pool is stopping
  // the request is not processed and the stream ends before it.
  void SubmitLocked(uint64_t index, std::function<void()> task)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (pool_->SubmitUnbounded(std::move(task))) return;
    --running_tasks_;
    if (index < failed_index_) {
      failed_ = true;
      failed_index_ = index;
      final_status_ = grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                   "neardupd is shutting down; requests "
                                   "after the last answered one were not "
                                   "processed");
    }
    MaybeFinishLocked();
  }

  void Process(uint64_t index, uint64_t position, const Request& request,
               bool serial) {
    auto response = std::make_unique<Response>();
    const grpc::Status status = handler_(position, request, response.get());
    bool delete_now = false;
    {
      MutexLock lock(&mu_);
      --running_tasks_;
      if (!status.ok()) {
        if (index < failed_index_) {
          failed_ = true;
          failed_index_ = index;
          final_status_ = status;
        }
      } else {
        buffered_bytes_ += response->ByteSizeLong();
        ready_.emplace(index, std::move(response));
      }
      if (serial) {
        // The next request that runs alone, if one waits and its answer can
        // still be sent (after a failure before it, or once the stream is
        // finished, waiting requests are dropped unprocessed).
        serial_running_ = false;
        while (!serial_running_ && !serial_queue_.empty()) {
          auto [next_index, next] = std::move(serial_queue_.front());
          serial_queue_.pop_front();
          if (finished_ || (failed_ && next_index >= failed_index_)) {
            --running_tasks_;
            continue;
          }
          serial_running_ = true;
          const size_t before = running_tasks_;
          SubmitLocked(next_index, std::move(next));
          if (running_tasks_ < before) serial_running_ = false;  // refused
        }
      }
      if (!done_) {
        PumpWritesLocked();
        MaybeFinishLocked();
      }
      delete_now = done_ && running_tasks_ == 0;
    }
    if (delete_now) delete this;
  }

  // Ends a stalled write by cancelling the call (see FinishIfIdleSince).
  // While it runs the stream is not finished, so gRPC keeps the context.
  void CancelStalled() {
    bool cancel;
    {
      MutexLock lock(&mu_);
      cancel = !finished_;
      cancelling_ = cancel;
    }
    if (cancel) cancel_call_();
    bool delete_now;
    {
      MutexLock lock(&mu_);
      cancelling_ = false;
      --running_tasks_;
      if (!done_) {
        PumpWritesLocked();
        MaybeFinishLocked();
      }
      delete_now = done_ && running_tasks_ == 0;
    }
    if (delete_now) delete this;
  }

  void StartReadLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    // Resumed on a write.
    if (in_flight_ >= window_ || failed_ ||
        buffered_bytes_ >= max_buffered_bytes_) {
      return;
    }
    if (should_stop_ && should_stop_()) {
      // Answer what was read, then end: the client resends the rest to
      // another replica or after the restart.
      if (next_read_index_ < failed_index_) {
        failed_ = true;
        failed_index_ = next_read_index_;
        final_status_ = grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                     "neardupd is shutting down; requests "
                                     "after the last answered one were not "
                                     "processed");
      }
      MaybeFinishLocked();
      return;
    }
    reading_ = true;
    this->StartRead(&request_);
  }

  void PumpWritesLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (writing_ || finished_) return;
    if (failed_ && next_write_index_ >= failed_index_) return;
    auto it = ready_.find(next_write_index_);
    if (it == ready_.end()) return;
    writing_response_ = std::move(it->second);
    ready_.erase(it);
    writing_ = true;
    writing_bytes_ = writing_response_->ByteSizeLong();
    write_started_ = Clock::now();
    this->StartWrite(writing_response_.get());
  }

  // Finishes once every response is written, or, after a failure at
  // request f, once the responses before f are written.
  void MaybeFinishLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (finished_ || writing_ || cancelling_) return;
    const bool done = failed_ ? next_write_index_ >= failed_index_
                              : reads_done_ && in_flight_ == 0;
    if (!done) return;
    finished_ = true;
    const grpc::Status status = failed_ ? final_status_ : grpc::Status::OK;
    if (on_finish_) on_finish_(status);
    this->Finish(status);
  }

  // Stops the stream where it is: nothing more is written.
  void FailNowLocked(grpc::Status status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!failed_ || next_write_index_ < failed_index_) {
      failed_ = true;
      failed_index_ = next_write_index_;
      final_status_ = std::move(status);
    }
  }

  StreamWatchdog* const watchdog_;
  const std::string idle_message_;
  const std::function<void()> cancel_call_;
  const size_t max_buffered_bytes_;
  WorkerPool* const pool_;
  const size_t window_;
  const Handler handler_;
  const OnFinish on_finish_;
  const ShouldStop should_stop_;
  const RunInline run_inline_;
  const RunSerially run_serially_;
  const ItemCount item_count_;

  Mutex mu_;
  Request request_ ABSL_GUARDED_BY(mu_);  // the read buffer
  bool reading_ ABSL_GUARDED_BY(mu_) = false;
  bool reads_done_ ABSL_GUARDED_BY(mu_) = false;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  bool failed_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t failed_index_ ABSL_GUARDED_BY(mu_) = UINT64_MAX;
  grpc::Status final_status_ ABSL_GUARDED_BY(mu_);
  Clock::time_point last_message_ ABSL_GUARDED_BY(mu_);
  uint64_t next_read_index_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t next_item_position_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t next_write_index_ ABSL_GUARDED_BY(mu_) = 0;
  size_t in_flight_ ABSL_GUARDED_BY(mu_) = 0;  // read, not yet written
  size_t running_tasks_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<uint64_t, std::unique_ptr<Response>> ready_ ABSL_GUARDED_BY(mu_);
  // Serial requests: whether one runs, and those waiting for it (index and
  // task), in stream order.
  bool serial_running_ ABSL_GUARDED_BY(mu_) = false;
  std::deque<std::pair<uint64_t, std::function<void()>>> serial_queue_
      ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Response> writing_response_ ABSL_GUARDED_BY(mu_);
  // Answers processed and not yet written, in bytes (the one being written
  // included, until its write is done).
  size_t buffered_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  size_t writing_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  Clock::time_point write_started_ ABSL_GUARDED_BY(mu_);
  bool cancel_requested_ ABSL_GUARDED_BY(mu_) = false;
  bool cancelling_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace neardup::server

#endif  // NEARDUP_SERVER_INTERNAL_ORDERED_STREAM_REACTOR_H_
