#include "neardup/base/batch_pipeline.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>
#include <vector>

#include "absl/status/status.h"

namespace neardup {
namespace {

using Batch = std::vector<int>;

TEST(BatchPipeline, AppliesEveryBatchInOrderOnItsOwnThread) {
  std::vector<int> applied;  // written by the pipeline's thread only
  std::thread::id apply_thread;
  BatchPipeline<Batch> pipeline([&](Batch& batch) {
    apply_thread = std::this_thread::get_id();
    applied.insert(applied.end(), batch.begin(), batch.end());
    return absl::OkStatus();
  });
  std::vector<int> pushed;
  Batch batch;
  for (int b = 0; b < 200; ++b) {
    for (int i = 0; i < b % 7; ++i) {
      batch.push_back(b * 10 + i);
      pushed.push_back(b * 10 + i);
    }
    ASSERT_TRUE(pipeline.Push(batch).ok());
    EXPECT_TRUE(batch.empty());  // handed back empty, ready to refill
  }
  ASSERT_TRUE(pipeline.Finish().ok());
  EXPECT_EQ(applied, pushed);
  EXPECT_NE(apply_thread, std::this_thread::get_id());
}

// The second batch is pushed while the first is still being applied: the
// first apply waits for it (it would wait in vain if Push applied inline).
TEST(BatchPipeline, TheNextBatchIsFilledWhileOneIsApplied) {
  std::promise<void> second_pushed;
  std::future<void> second = second_pushed.get_future();
  bool overlapped = false;
  BatchPipeline<Batch> pipeline([&](Batch& batch) {
    if (batch.front() == 1) {
      overlapped = second.wait_for(std::chrono::seconds(30)) ==
                   std::future_status::ready;
    }
    return absl::OkStatus();
  });
  Batch batch = {1};
  ASSERT_TRUE(pipeline.Push(batch).ok());
  batch = {2};
  ASSERT_TRUE(pipeline.Push(batch).ok());  // waits until batch 1 is taken
  second_pushed.set_value();
  ASSERT_TRUE(pipeline.Finish().ok());
  EXPECT_TRUE(overlapped);
}

TEST(BatchPipeline, TheFirstErrorStopsApplyAndReachesTheProducer) {
  std::vector<int> applied;
  BatchPipeline<Batch> pipeline([&](Batch& batch) {
    applied.push_back(batch.front());
    if (batch.front() == 3) return absl::DataLossError("batch 3 is bad");
    return absl::OkStatus();
  });
  absl::Status pushed;
  int next = 0;
  Batch batch;
  // The error reaches Push at most two batches later (one waits in the
  // slot, one is being applied).
  while (pushed.ok() && next < 1000) {
    batch = {next++};
    pushed = pipeline.Push(batch);
  }
  EXPECT_EQ(pushed.code(), absl::StatusCode::kDataLoss);
  EXPECT_LE(next, 6);
  const absl::Status finished = pipeline.Finish();
  EXPECT_EQ(finished.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(finished.message(), "batch 3 is bad");
  EXPECT_EQ(applied, (std::vector<int>{0, 1, 2, 3}));
}

TEST(BatchPipeline, AnExceptionInApplyIsAnInternalError) {
  BatchPipeline<Batch> pipeline([](Batch& batch) -> absl::Status {
    if (batch.front() == 1) throw std::runtime_error("out of memory");
    return absl::OkStatus();
  });
  Batch batch = {0};
  ASSERT_TRUE(pipeline.Push(batch).ok());
  batch = {1};
  ASSERT_TRUE(pipeline.Push(batch).ok());
  const absl::Status finished = pipeline.Finish();
  EXPECT_EQ(finished.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(finished.message(), "out of memory");
}

TEST(BatchPipeline, DestroyingWithoutFinishAppliesWhatWasPushed) {
  std::vector<int> applied;
  {
    BatchPipeline<Batch> pipeline([&](Batch& batch) {
      applied.push_back(batch.front());
      return absl::OkStatus();
    });
    Batch batch = {7};
    ASSERT_TRUE(pipeline.Push(batch).ok());
  }
  EXPECT_EQ(applied, (std::vector<int>{7}));
}

}  // namespace
}  // namespace neardup
