#ifndef NEARDUP_CLIENT_DEDUP_SRC_WORKER_POOL_H_
#define NEARDUP_CLIENT_DEDUP_SRC_WORKER_POOL_H_

// A fixed set of std::threads running submitted tasks in FIFO order.

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace neardup::dedup {

class WorkerPool {
 public:
  explicit WorkerPool(int threads);
  ~WorkerPool();  // finishes queued tasks, then joins
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void Submit(std::function<void()> task);

 private:
  void Loop();

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;  // guarded by mu_
  bool stopping_ = false;                    // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace neardup::dedup

#endif  // NEARDUP_CLIENT_DEDUP_SRC_WORKER_POOL_H_
