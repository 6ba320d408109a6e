// CallUnary and StreamCall against a small generic echo service over an
// in-process channel: ordering, a full answer queue (reading pauses), a
// call the server ends early, and a call abandoned mid-way. Also under
// TSan.
#include "neardup/http/rpc_bridge.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "neardup/base/tsan_handoff.h"

namespace neardup::http {
namespace {

std::string Text(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  (void)buffer.Dump(&slices);
  std::string out;
  for (const grpc::Slice& s : slices) {
    out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  return out;
}

// Echoes each message `copies` times ("/t.E/Echo": 1, "/t.E/Triple": 3);
// "/t.E/FailAfter2" ends the call with INVALID_ARGUMENT at the third.
class Echo : public grpc::ServerGenericBidiReactor {
 public:
  explicit Echo(grpc::GenericCallbackServerContext* context)
      : copies_(context->method() == "/t.E/Triple" ? 3 : 1),
        fail_after_(context->method() == "/t.E/FailAfter2" ? 2 : -1) {
    TsanRelease(this);  // gRPC calls back on its own threads
    StartRead(&in_);
  }
  void OnReadDone(bool ok) override {
    TsanAcquire(this);
    if (!ok) {
      Finish(grpc::Status::OK);
      return;
    }
    if (fail_after_ >= 0 && ++seen_ > fail_after_) {
      Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "enough"));
      return;
    }
    const std::string text = Text(in_);
    grpc::Slice slice(text);
    out_ = grpc::ByteBuffer(&slice, 1);
    pending_ = copies_;
    TsanRelease(this);
    StartWrite(&out_);
  }
  void OnWriteDone(bool ok) override {
    TsanAcquire(this);
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "write failed"));
      return;
    }
    const bool more = --pending_ > 0;
    TsanRelease(this);
    if (more) {
      StartWrite(&out_);
    } else {
      StartRead(&in_);
    }
  }
  void OnDone() override {
    TsanAcquire(this);
    delete this;
  }

 private:
  const int copies_;
  const int fail_after_;
  int seen_ = 0;
  int pending_ = 0;
  grpc::ByteBuffer in_;
  grpc::ByteBuffer out_;
};

class EchoService : public grpc::CallbackGenericService {
  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* context) override {
    return new Echo(context);
  }
};

class RpcBridgeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    builder.RegisterCallbackGenericService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    stub_ = std::make_unique<grpc::GenericStub>(
        server_->InProcessChannel(grpc::ChannelArguments()));
  }
  void TearDown() override { server_->Shutdown(); }

  EchoService service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<grpc::GenericStub> stub_;
};

TEST_F(RpcBridgeTest, UnaryRoundTrip) {
  grpc::ClientContext context;
  std::string answer;
  ASSERT_TRUE(CallUnary(*stub_, &context, "/t.E/Echo", "hello", &answer).ok());
  EXPECT_EQ(answer, "hello");
}

// Writes each message, relaying answers that arrive meanwhile, then reads
// the rest: the gateway's loop.
std::vector<std::string> Drive(StreamCall& call, int messages,
                               bool* write_failed) {
  std::vector<std::string> answers;
  std::string bytes;
  *write_failed = false;
  for (int i = 0; i < messages && !*write_failed; ++i) {
    call.Write(absl::StrCat(i));
    bool written = false;
    while (!written && !*write_failed) {
      switch (call.Next(&bytes)) {
        case StreamCall::Event::kAnswer:
          answers.push_back(bytes);
          break;
        case StreamCall::Event::kWritten:
          written = true;
          break;
        case StreamCall::Event::kWriteFailed:
        case StreamCall::Event::kAnswersDone:
          *write_failed = true;
          break;
      }
    }
  }
  call.CloseWrites();
  while (true) {
    const StreamCall::Event event = call.Next(&bytes);
    if (event == StreamCall::Event::kAnswersDone) break;
    if (event == StreamCall::Event::kAnswer) answers.push_back(bytes);
  }
  return answers;
}

TEST_F(RpcBridgeTest, StreamAnswersInOrder) {
  grpc::ClientContext context;
  StreamCall call(*stub_, &context, "/t.E/Echo");
  bool failed;
  const std::vector<std::string> answers = Drive(call, 200, &failed);
  EXPECT_FALSE(failed);
  ASSERT_EQ(answers.size(), 200u);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(answers[i], absl::StrCat(i));
  EXPECT_TRUE(call.Finish().ok());
}

TEST_F(RpcBridgeTest, MoreAnswersThanTheQueueHoldsDoNotStall) {
  // Three answers per message: the queue (kMaxQueued) fills while the
  // driver writes; reading must pause and resume, never deadlock.
  grpc::ClientContext context;
  StreamCall call(*stub_, &context, "/t.E/Triple");
  bool failed;
  const std::vector<std::string> answers =
      Drive(call, static_cast<int>(StreamCall::kMaxQueued) * 4, &failed);
  EXPECT_FALSE(failed);
  EXPECT_EQ(answers.size(), StreamCall::kMaxQueued * 4 * 3);
  EXPECT_TRUE(call.Finish().ok());
}

TEST_F(RpcBridgeTest, ServerEndsTheCallEarly) {
  grpc::ClientContext context;
  StreamCall call(*stub_, &context, "/t.E/FailAfter2");
  bool failed;
  // Whether a write sees the end depends on timing (writes may all be
  // buffered before the status arrives): either way the driver ends, with
  // the answers before the failure and the server's status.
  const std::vector<std::string> answers = Drive(call, 50, &failed);
  EXPECT_THAT(answers, ::testing::ElementsAre("0", "1"));
  const grpc::Status status = call.Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "enough");
}

TEST_F(RpcBridgeTest, AbandonedCallIsCancelledByTheDestructor) {
  grpc::ClientContext context;
  {
    StreamCall call(*stub_, &context, "/t.E/Triple");
    call.Write("x");
    std::string bytes;
    // One event, then gone without Finish: the destructor cancels and
    // waits for the call's end.
    (void)call.Next(&bytes);
  }
  SUCCEED();
}

}  // namespace
}  // namespace neardup::http
