#include "neardup/base/worker_pool.h"

#include <algorithm>
#include <atomic>
#include <utility>

namespace neardup {

WorkerPool::WorkerPool(int threads, size_t max_queued)
    : max_queued_(max_queued) {
  threads_.reserve(std::max(threads, 0));
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

WorkerPool::~WorkerPool() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  work_cv_.SignalAll();
  room_cv_.SignalAll();
  for (std::thread& thread : threads_) thread.join();
}

bool WorkerPool::TrySubmit(std::function<void()> task) {
  {
    MutexLock lock(&mu_);
    if (stopping_ || !HasRoom()) return false;
    queue_.push_back(std::move(task));
  }
  work_cv_.Signal();
  return true;
}

bool WorkerPool::Submit(std::function<void()> task) {
  {
    MutexLock lock(&mu_);
    while (!stopping_ && !HasRoom()) room_cv_.Wait(&mu_);
    if (stopping_) return false;
    queue_.push_back(std::move(task));
  }
  work_cv_.Signal();
  return true;
}

bool WorkerPool::SubmitUnbounded(std::function<void()> task) {
  {
    MutexLock lock(&mu_);
    if (stopping_) return false;
    queue_.push_back(std::move(task));
  }
  work_cv_.Signal();
  return true;
}

size_t WorkerPool::queued() const {
  MutexLock lock(&mu_);
  return queue_.size();
}

void WorkerPool::Run() {
  while (true) {
    std::function<void()> task;
    {
      MutexLock lock(&mu_);
      while (!stopping_ && queue_.empty()) work_cv_.Wait(&mu_);
      if (queue_.empty()) return;  // stopping, and nothing left to run
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    room_cv_.Signal();
    task();
  }
}

void ParallelFor(size_t n, int threads, absl::FunctionRef<void(size_t)> work) {
  const size_t workers =
      std::clamp<size_t>(threads < 1 ? 1 : threads, 1, std::max<size_t>(n, 1));
  std::atomic<size_t> next{0};
  auto drain = [&] {
    for (size_t i = next++; i < n; i = next++) work(i);
  };
  if (workers == 1) {
    drain();
    return;
  }
  WorkerPool pool(static_cast<int>(workers - 1));
  for (size_t w = 1; w < workers; ++w) pool.Submit(drain);
  drain();
  // ~WorkerPool waits for the helpers' drain() to return.
}

}  // namespace neardup
