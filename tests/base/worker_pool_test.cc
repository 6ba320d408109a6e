#include "neardup/base/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <vector>

namespace neardup {
namespace {

TEST(WorkerPool, RunsEverythingSubmitted) {
  std::atomic<int> ran{0};
  {
    WorkerPool pool(3, 1000);
    for (int i = 0; i < 500; ++i) {
      ASSERT_TRUE(pool.TrySubmit([&] { ++ran; }));
    }
  }  // the destructor drains the queue
  EXPECT_EQ(ran.load(), 500);
}

TEST(WorkerPool, FullQueueRefusesInsteadOfGrowing) {
  // Declared before the pool, so they outlive the tasks that use them.
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  WorkerPool pool(1, 2);
  ASSERT_TRUE(pool.TrySubmit([&] {
    started.set_value();
    released.wait();
  }));
  started.get_future().wait();  // the only worker is now busy
  EXPECT_TRUE(pool.TrySubmit([] {}));
  EXPECT_TRUE(pool.TrySubmit([] {}));
  EXPECT_FALSE(pool.TrySubmit([] {}));
  EXPECT_EQ(pool.queued(), 2u);
  release.set_value();
}

// Submit blocks while the queue is full and goes on once a task is taken.
TEST(WorkerPool, SubmitWaitsForRoom) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  WorkerPool pool(1, 1);
  ASSERT_TRUE(pool.Submit([&] {
    started.set_value();
    released.wait();
  }));
  started.get_future().wait();         // the worker is busy
  ASSERT_TRUE(pool.TrySubmit([] {}));  // the queue is now full
  std::promise<void> third_queued;
  std::future<bool> submitter = std::async(std::launch::async, [&] {
    const bool ok = pool.Submit([] {});
    third_queued.set_value();
    return ok;
  });
  std::future<void> queued = third_queued.get_future();
  // Blocked: a Submit that ignored the limit would return at once. (A
  // bounded wait on the outcome, not a sleep used to order threads.)
  EXPECT_EQ(queued.wait_for(std::chrono::milliseconds(200)),
            std::future_status::timeout);
  EXPECT_EQ(pool.queued(), 1u);
  release.set_value();  // the worker finishes and takes the queued task
  queued.wait();
  EXPECT_TRUE(submitter.get());
}

TEST(WorkerPool, UnboundedByDefault) {
  std::atomic<int> ran{0};
  {
    WorkerPool pool(2);
    for (int i = 0; i < 10000; ++i) ASSERT_TRUE(pool.TrySubmit([&] { ++ran; }));
  }
  EXPECT_EQ(ran.load(), 10000);
}

TEST(ParallelFor, CallsEveryIndexOnce) {
  for (int threads : {0, 1, 2, 7}) {
    for (size_t n : {0u, 1u, 5u, 1000u}) {
      std::vector<std::atomic<int>> calls(n);
      ParallelFor(n, threads, [&](size_t i) { ++calls[i]; });
      for (size_t i = 0; i < n; ++i) {
        EXPECT_EQ(calls[i].load(), 1) << "n=" << n << " threads=" << threads;
      }
    }
  }
}

}  // namespace
}  // namespace neardup
