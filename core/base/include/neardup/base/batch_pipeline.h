#ifndef NEARDUP_BASE_BATCH_PIPELINE_H_
#define NEARDUP_BASE_BATCH_PIPELINE_H_

// A producer and a consumer of batches on two threads, one batch apart:
// while `apply` works on one batch (on the pipeline's own thread), the
// caller fills the next. An index rebuild uses it so that reading the
// store and inserting into the index overlap instead of taking turns.
// Batches are handed over by swap, so their buffers are reused.

#include <exception>
#include <functional>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "neardup/base/sync.h"

namespace neardup {

// Batch: default-constructible, swappable, with clear().
template <typename Batch>
class BatchPipeline {
 public:
  // `apply` runs on the pipeline's thread, one batch at a time, in the order
  // they were pushed; after its first error (an exception counts as an
  // INTERNAL one) it is not called again.
  explicit BatchPipeline(std::function<absl::Status(Batch&)> apply)
      : apply_(std::move(apply)), thread_([this] { Run(); }) {}
  ~BatchPipeline() { (void)Finish(); }
  BatchPipeline(const BatchPipeline&) = delete;
  BatchPipeline& operator=(const BatchPipeline&) = delete;

  // Hands `batch` over (waiting while the one pushed before is still not
  // taken up) and leaves an empty batch in its place. Returns apply's
  // first error once there is one: the caller should stop producing.
  absl::Status Push(Batch& batch) {
    MutexLock lock(&mu_);
    while (full_ && status_.ok()) changed_.Wait(&mu_);
    if (!status_.ok()) return status_;
    std::swap(slot_, batch);
    batch.clear();
    full_ = true;
    changed_.SignalAll();
    return absl::OkStatus();
  }

  // Waits until every pushed batch is applied; apply's first error.
  absl::Status Finish() {
    {
      MutexLock lock(&mu_);
      done_ = true;
      changed_.SignalAll();
    }
    if (thread_.joinable()) thread_.join();
    MutexLock lock(&mu_);
    return status_;
  }

 private:
  void Run() {
    Batch working;
    for (;;) {
      {
        MutexLock lock(&mu_);
        while (!full_ && !done_) changed_.Wait(&mu_);
        if (!full_) return;  // done, and every batch applied
        std::swap(working, slot_);
        full_ = false;
        changed_.SignalAll();
      }
      absl::Status status;
      // An exception (bad_alloc in a big rebuild) would end the process on
      // this thread; it ends the pipeline with an error instead.
      try {
        status = apply_(working);
      } catch (const std::exception& e) {
        status = absl::InternalError(e.what());
      } catch (...) {
        status = absl::InternalError("batch pipeline: unknown exception");
      }
      working.clear();
      if (!status.ok()) {
        MutexLock lock(&mu_);
        status_ = std::move(status);
        changed_.SignalAll();
        return;
      }
    }
  }

  const std::function<absl::Status(Batch&)> apply_;
  Mutex mu_;
  CondVar changed_;  // full_, done_ or status_ changed
  Batch slot_ ABSL_GUARDED_BY(mu_);
  bool full_ ABSL_GUARDED_BY(mu_) = false;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace neardup

#endif  // NEARDUP_BASE_BATCH_PIPELINE_H_
