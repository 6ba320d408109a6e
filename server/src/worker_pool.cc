#include "neardup/server/internal/worker_pool.h"

#include <utility>

namespace neardup::server {

WorkerPool::WorkerPool(int threads, size_t max_queued)
    : max_queued_(max_queued) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

WorkerPool::~WorkerPool() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

bool WorkerPool::TrySubmit(std::function<void()> task) {
  {
    MutexLock lock(&mu_);
    if (stopping_ || queue_.size() >= max_queued_) return false;
    queue_.push_back(std::move(task));
  }
  changed_.notify_all();
  return true;
}

bool WorkerPool::Submit(std::function<void()> task) {
  {
    std::unique_lock<Mutex> lock(mu_);
    changed_.wait(lock, [this]() ABSL_NO_THREAD_SAFETY_ANALYSIS {
      return stopping_ || queue_.size() < max_queued_;
    });
    if (stopping_) return false;
    queue_.push_back(std::move(task));
  }
  changed_.notify_all();
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
      std::unique_lock<Mutex> lock(mu_);
      changed_.wait(lock, [this]() ABSL_NO_THREAD_SAFETY_ANALYSIS {
        return stopping_ || !queue_.empty();
      });
      if (queue_.empty()) return;  // stopping, and nothing left to run
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    changed_.notify_all();  // room for Submit
    task();
  }
}

}  // namespace neardup::server
