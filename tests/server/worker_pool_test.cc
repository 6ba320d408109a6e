#include "neardup/server/internal/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>

namespace neardup::server {
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
  WorkerPool pool(1, 2);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
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

TEST(WorkerPool, SubmitWaitsForRoom) {
  std::atomic<int> ran{0};
  WorkerPool pool(2, 1);
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(pool.Submit([&] { ++ran; }));
  while (pool.queued() > 0) std::this_thread::yield();
  // Everything queued was taken; the last ones may still be running.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(ran.load(), 200);
}

}  // namespace
}  // namespace neardup::server
