#ifndef NEARDUP_SERVER_INTERNAL_WORKER_POOL_H_
#define NEARDUP_SERVER_INTERNAL_WORKER_POOL_H_

// Fixed threads running request work off gRPC's callback threads, with a
// bounded queue: when it is full, callers are told to back off instead of
// the server buffering without limit.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "neardup/base/sync.h"

namespace neardup::server {

class WorkerPool {
 public:
  WorkerPool(int threads, size_t max_queued);
  // Runs what is queued, then joins the threads.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // False when the queue is full or the pool is stopping.
  bool TrySubmit(std::function<void()> task);
  // Like TrySubmit, but waits for room instead of failing (for stream
  // items, whose flow control already bounds them).
  bool Submit(std::function<void()> task);
  size_t queued() const;
  int threads() const { return static_cast<int>(threads_.size()); }

 private:
  void Run();

  const size_t max_queued_;
  mutable Mutex mu_;
  std::condition_variable_any changed_;
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace neardup::server

#endif  // NEARDUP_SERVER_INTERNAL_WORKER_POOL_H_
