#ifndef NEARDUP_BASE_WORKER_POOL_H_
#define NEARDUP_BASE_WORKER_POOL_H_

// The one way neardup runs work in parallel: fixed threads taking tasks
// from a queue in FIFO order. The server bounds the queue (a full pool
// answers RESOURCE_EXHAUSTED instead of buffering without limit); dedup
// and ParallelFor leave it unbounded.

#include <cstddef>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "neardup/base/sync.h"

namespace neardup {

class WorkerPool {
 public:
  // `max_queued` 0: no limit on queued tasks.
  explicit WorkerPool(int threads, size_t max_queued = 0);
  // Runs what is queued, then joins the threads.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // False when the queue is full or the pool is stopping.
  bool TrySubmit(std::function<void()> task);
  // Like TrySubmit, but waits for room instead of failing (for work whose
  // producer is already bounded, such as stream items under flow control).
  bool Submit(std::function<void()> task);
  // Queues past the bound, never waits: for producers bounded by other
  // means (a stream's window) that must not block. False only when the pool
  // is stopping.
  bool SubmitUnbounded(std::function<void()> task);
  size_t queued() const;
  int threads() const { return static_cast<int>(threads_.size()); }

 private:
  void Run();
  bool HasRoom() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return max_queued_ == 0 || queue_.size() < max_queued_;
  }

  const size_t max_queued_;
  mutable Mutex mu_;
  CondVar work_cv_;  // a task was queued, or the pool is stopping
  CondVar room_cv_;  // a queued task was taken
  std::deque<std::function<void()>> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

// Calls work(i) once for every i in [0, n), on up to `threads` threads (the
// calling one included), and returns when every call has returned. Order of
// the calls is not defined.
void ParallelFor(size_t n, int threads, absl::FunctionRef<void(size_t)> work);

}  // namespace neardup

#endif  // NEARDUP_BASE_WORKER_POOL_H_
