// OrderedStreamReactor driven by hand: a stand-in for gRPC's reactor records
// the reads, writes and finish it starts, and the test completes them, so
// window, backpressure, order, serial items, stalls and cancellation are
// checked step by step, without timing.

#include "neardup/server/internal/ordered_stream_reactor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <set>
#include <vector>

#include "neardup/base/sync.h"
#include "neardup/v1/neardup.pb.h"
#include "support/wait.h"

namespace neardup::server {
namespace {

using Request = v1::QueryRequest;
using Response = v1::QueryResponse;
using ::testing::HasSubstr;

// What gRPC's ServerBidiReactor offers the reactor, recorded.
class FakeStream {
 public:
  virtual ~FakeStream() = default;
  virtual void OnReadDone(bool) {}
  virtual void OnWriteDone(bool) {}
  virtual void OnCancel() {}
  virtual void OnDone() {}

  void StartRead(Request* into) {
    MutexLock lock(&mu_);
    read_into_ = into;
    ++reads_started_;
  }
  void StartWrite(const Response* response) {
    MutexLock lock(&mu_);
    written_.push_back(response->candidates());
    write_pending_ = true;
  }
  void Finish(grpc::Status status) {
    MutexLock lock(&mu_);
    finished_ = status;
  }

  // The client side, as the test plays it.
  bool ReadPending() {
    MutexLock lock(&mu_);
    return read_into_ != nullptr;
  }
  int reads_started() {
    MutexLock lock(&mu_);
    return reads_started_;
  }
  std::vector<uint64_t> written() {
    MutexLock lock(&mu_);
    return written_;
  }
  bool WritePending() {
    MutexLock lock(&mu_);
    return write_pending_;
  }
  std::optional<grpc::Status> finished() {
    MutexLock lock(&mu_);
    return finished_;
  }
  // Delivers the next message into the pending read.
  void Deliver(uint64_t tag) {
    Request* into;
    {
      MutexLock lock(&mu_);
      ASSERT_NE(read_into_, nullptr) << "no read pending";
      into = read_into_;
      read_into_ = nullptr;
    }
    into->set_top_k(static_cast<uint32_t>(tag));
    OnReadDone(true);
  }
  void CompleteWrite(bool ok = true) {
    {
      MutexLock lock(&mu_);
      ASSERT_TRUE(write_pending_);
      write_pending_ = false;
    }
    OnWriteDone(ok);
  }

 private:
  Mutex mu_;
  Request* read_into_ ABSL_GUARDED_BY(mu_) = nullptr;
  int reads_started_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<uint64_t> written_ ABSL_GUARDED_BY(mu_);
  bool write_pending_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<grpc::Status> finished_ ABSL_GUARDED_BY(mu_);
};

using Reactor = OrderedStreamReactor<Request, Response, FakeStream>;

// Handlers that wait until the test opens their gate, and count how many
// run at once.
class Gates {
 public:
  grpc::Status Run(const Request& request, Response* response) {
    const uint64_t tag = request.top_k();
    {
      MutexLock lock(&mu_);
      ++started_;
      max_running_ = std::max(max_running_, ++running_);
      while (!open_.contains(tag)) cv_.Wait(&mu_);
      --running_;
    }
    response->set_candidates(tag);
    if (fat_) response->add_matches()->set_id(std::string(4096, 'x'));
    return tag == fail_at_ ? grpc::Status(grpc::StatusCode::INTERNAL, "boom")
                           : grpc::Status::OK;
  }
  void Open(uint64_t tag) {
    MutexLock lock(&mu_);
    open_.insert(tag);
    cv_.SignalAll();
  }
  int started() {
    MutexLock lock(&mu_);
    return started_;
  }
  int max_running() {
    MutexLock lock(&mu_);
    return max_running_;
  }
  bool fat_ = false;
  uint64_t fail_at_ = UINT64_MAX;

 private:
  Mutex mu_;
  CondVar cv_;
  std::set<uint64_t> open_ ABSL_GUARDED_BY(mu_);
  int started_ ABSL_GUARDED_BY(mu_) = 0;
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  int max_running_ ABSL_GUARDED_BY(mu_) = 0;
};

struct ReactorSetup {
  size_t window = 3;
  size_t max_buffered_bytes = SIZE_MAX;
  bool serial = false;
};

class OrderedStreamReactorTest : public ::testing::Test {
 protected:
  Reactor* Make(ReactorSetup setup) {
    return new Reactor(
        &pool_, setup.window,
        [this](uint64_t, const Request& request, Response* response) {
          return gates_.Run(request, response);
        },
        [this](const grpc::Status& status) { on_finish_ = status; }, nullptr,
        nullptr, nullptr, &watchdog_, "idle: --stream-idle-seconds",
        [this] { cancelled_ = true; }, setup.max_buffered_bytes,
        [serial = setup.serial](const Request&) { return serial; });
  }
  bool WaitWritten(FakeStream* stream, size_t n) {
    return neardup::testing::WaitUntil(
        [&] { return stream->written().size() >= n; });
  }

  // Never scans by itself (idle 0): the test calls FinishIfIdleSince.
  StreamWatchdog watchdog_{std::chrono::seconds(0), std::chrono::seconds(1)};
  Gates gates_;
  std::optional<grpc::Status> on_finish_;
  std::atomic<bool> cancelled_{false};
  // Last: destroyed first, so tasks still running finish before the rest.
  WorkerPool pool_{4};
};

TEST_F(OrderedStreamReactorTest, ReadsPauseWhenTheWindowIsFull) {
  Reactor* reactor = Make({.window = 3});
  EXPECT_EQ(reactor->reads_started(), 1);  // reading from the start
  reactor->Deliver(0);
  reactor->Deliver(1);
  reactor->Deliver(2);
  EXPECT_FALSE(reactor->ReadPending());  // three in flight: no fourth read
  EXPECT_EQ(reactor->reads_started(), 3);
  gates_.Open(0);
  ASSERT_TRUE(WaitWritten(reactor, 1));
  EXPECT_FALSE(reactor->ReadPending());  // written is not yet taken
  reactor->CompleteWrite();
  EXPECT_TRUE(reactor->ReadPending());  // one left the window
  gates_.Open(1);
  gates_.Open(2);
  ASSERT_TRUE(WaitWritten(reactor, 2));
  reactor->CompleteWrite();
  ASSERT_TRUE(WaitWritten(reactor, 3));
  reactor->CompleteWrite();
  reactor->OnReadDone(false);  // the client half-closes
  ASSERT_TRUE(reactor->finished().has_value());
  EXPECT_TRUE(reactor->finished()->ok());
  reactor->OnDone();
}

TEST_F(OrderedStreamReactorTest, AnswersGoOutInRequestOrder) {
  Reactor* reactor = Make({.window = 3});
  reactor->Deliver(0);
  reactor->Deliver(1);
  reactor->Deliver(2);
  gates_.Open(2);
  gates_.Open(1);
  // Nothing may be written before answer 0, whatever finished first.
  gates_.Open(0);
  ASSERT_TRUE(WaitWritten(reactor, 1));
  EXPECT_EQ(reactor->written(), std::vector<uint64_t>{0});
  reactor->CompleteWrite();
  ASSERT_TRUE(WaitWritten(reactor, 2));
  reactor->CompleteWrite();
  ASSERT_TRUE(WaitWritten(reactor, 3));
  reactor->CompleteWrite();
  EXPECT_EQ(reactor->written(), (std::vector<uint64_t>{0, 1, 2}));
  reactor->OnReadDone(false);
  EXPECT_TRUE(reactor->finished()->ok());
  reactor->OnDone();
}

TEST_F(OrderedStreamReactorTest, ReadsPauseWhileAnswersWaitToBeTaken) {
  gates_.fat_ = true;
  Reactor* reactor = Make({.window = 10, .max_buffered_bytes = 1000});
  reactor->Deliver(0);
  EXPECT_TRUE(reactor->ReadPending());  // nothing buffered yet
  gates_.Open(0);
  ASSERT_TRUE(WaitWritten(reactor, 1));  // 4 KB being written
  reactor->Deliver(1);
  EXPECT_FALSE(reactor->ReadPending());  // over 1000 bytes: no new read
  reactor->CompleteWrite();
  EXPECT_TRUE(reactor->ReadPending());  // taken: reading again
  gates_.Open(1);
  ASSERT_TRUE(WaitWritten(reactor, 2));
  reactor->CompleteWrite();
  reactor->OnReadDone(false);
  EXPECT_TRUE(reactor->finished()->ok());
  reactor->OnDone();
}

TEST_F(OrderedStreamReactorTest, SerialRequestsRunOneAtATime) {
  Reactor* reactor = Make({.window = 5, .serial = true});
  for (int i = 0; i < 5; ++i) reactor->Deliver(i);
  ASSERT_TRUE(
      neardup::testing::WaitUntil([&] { return gates_.started() == 1; }));
  // The others were never handed to the pool (which has idle threads): a
  // task handed over is queued or started.
  EXPECT_EQ(pool_.queued(), 0u);
  EXPECT_EQ(gates_.started(), 1);
  for (int i = 4; i >= 1; --i) gates_.Open(i);
  EXPECT_EQ(pool_.queued(), 0u);  // still waiting for request 0
  gates_.Open(0);
  for (size_t i = 1; i <= 5; ++i) {
    ASSERT_TRUE(WaitWritten(reactor, i));
    reactor->CompleteWrite();
  }
  EXPECT_EQ(gates_.max_running(), 1);
  EXPECT_EQ(reactor->written(), (std::vector<uint64_t>{0, 1, 2, 3, 4}));
  reactor->OnReadDone(false);
  EXPECT_TRUE(reactor->finished()->ok());
  reactor->OnDone();
}

// The control for the test above: without serial, all run at once.
TEST_F(OrderedStreamReactorTest, OtherRequestsRunInParallel) {
  Reactor* reactor = Make({.window = 4});
  for (int i = 0; i < 4; ++i) reactor->Deliver(i);
  ASSERT_TRUE(
      neardup::testing::WaitUntil([&] { return gates_.started() == 4; }));
  for (int i = 0; i < 4; ++i) gates_.Open(i);
  for (size_t i = 1; i <= 4; ++i) {
    ASSERT_TRUE(WaitWritten(reactor, i));
    reactor->CompleteWrite();
  }
  EXPECT_EQ(gates_.max_running(), 4);
  reactor->OnReadDone(false);
  reactor->OnDone();
}

TEST_F(OrderedStreamReactorTest, AFailureEndsTheStreamAfterTheAnswersBefore) {
  gates_.fail_at_ = 1;
  Reactor* reactor = Make({.window = 3});
  reactor->Deliver(0);
  reactor->Deliver(1);
  reactor->Deliver(2);
  gates_.Open(1);
  gates_.Open(2);
  gates_.Open(0);
  ASSERT_TRUE(WaitWritten(reactor, 1));
  reactor->CompleteWrite();
  ASSERT_TRUE(neardup::testing::WaitUntil(
      [&] { return reactor->finished().has_value(); }));
  EXPECT_EQ(reactor->finished()->error_code(), grpc::StatusCode::INTERNAL);
  EXPECT_EQ(reactor->written(), std::vector<uint64_t>{0});  // not 2
  EXPECT_EQ(on_finish_->error_code(), grpc::StatusCode::INTERNAL);
  reactor->OnDone();
}

TEST_F(OrderedStreamReactorTest, CancelWithWorkInFlightFinishesAndFreesLater) {
  Reactor* reactor = Make({.window = 3});
  reactor->Deliver(0);
  reactor->Deliver(1);
  reactor->OnCancel();
  ASSERT_TRUE(reactor->finished().has_value());
  EXPECT_EQ(reactor->finished()->error_code(), grpc::StatusCode::CANCELLED);
  reactor->OnDone();  // gRPC is done; the two tasks still hold the reactor
  gates_.Open(0);
  gates_.Open(1);
  // The last task deletes it (ASan checks nothing touches it after; the
  // pool is joined before the fixture goes).
}

TEST_F(OrderedStreamReactorTest, IdleStreamIsEnded) {
  Reactor* reactor = Make({.window = 3});
  // Waiting for the client with nothing of ours in flight: idle.
  reactor->FinishIfIdleSince(IdleCheckable::Clock::now() +
                             std::chrono::hours(1));
  ASSERT_TRUE(reactor->finished().has_value());
  EXPECT_EQ(reactor->finished()->error_code(),
            grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_THAT(reactor->finished()->error_message(),
              HasSubstr("--stream-idle-seconds"));
  reactor->OnDone();
}

TEST_F(OrderedStreamReactorTest, ClientThatStopsTakingAnswersIsCancelled) {
  Reactor* reactor = Make({.window = 3});
  reactor->Deliver(0);
  gates_.Open(0);
  ASSERT_TRUE(WaitWritten(reactor, 1));
  // Work in flight is not idleness; a write not taken since `since` is.
  reactor->FinishIfIdleSince(IdleCheckable::Clock::now() -
                             std::chrono::hours(1));
  EXPECT_FALSE(cancelled_);
  reactor->FinishIfIdleSince(IdleCheckable::Clock::now() +
                             std::chrono::hours(1));
  ASSERT_TRUE(neardup::testing::WaitUntil([&] { return cancelled_.load(); }));
  // gRPC answers a cancel by failing the pending write, then OnCancel.
  reactor->CompleteWrite(false);
  reactor->OnCancel();
  ASSERT_TRUE(neardup::testing::WaitUntil(
      [&] { return reactor->finished().has_value(); }));
  EXPECT_EQ(reactor->finished()->error_code(),
            grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_THAT(reactor->finished()->error_message(),
              HasSubstr("took no answer"));
  reactor->OnDone();
}

}  // namespace
}  // namespace neardup::server
