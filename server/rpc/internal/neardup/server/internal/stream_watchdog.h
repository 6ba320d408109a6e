#ifndef NEARDUP_SERVER_INTERNAL_STREAM_WATCHDOG_H_
#define NEARDUP_SERVER_INTERNAL_STREAM_WATCHDOG_H_

// Ends streams that sit idle: a client that opens a stream and never sends
// (or stops sending) would otherwise hold a stream slot forever. A thread
// looks at the open streams every `period` and asks those without a message
// for longer than `idle` to finish.

#include <chrono>
#include <thread>

#include "absl/container/flat_hash_set.h"
#include "neardup/base/sync.h"

namespace neardup::server {

class IdleCheckable {
 public:
  using Clock = std::chrono::steady_clock;
  virtual ~IdleCheckable() = default;
  // Ends the stream when it waits for the client's next message and got
  // none since `since`. Called with the watchdog's lock held.
  virtual void FinishIfIdleSince(Clock::time_point since) = 0;
};

class StreamWatchdog {
 public:
  // `idle` <= 0 disables the checks (streams may then idle forever).
  StreamWatchdog(std::chrono::duration<double> idle,
                 std::chrono::duration<double> period)
      : idle_(idle), period_(period) {
    if (idle_.count() > 0) thread_ = std::thread([this] { Run(); });
  }
  ~StreamWatchdog() {
    {
      MutexLock lock(&mu_);
      stop_ = true;
      cv_.SignalAll();
    }
    if (thread_.joinable()) thread_.join();
  }

  void Add(IdleCheckable* stream) {
    MutexLock lock(&mu_);
    streams_.insert(stream);
  }
  // After this returns the watchdog never touches `stream` again.
  void Remove(IdleCheckable* stream) {
    MutexLock lock(&mu_);
    streams_.erase(stream);
  }

 private:
  void Run() {
    MutexLock lock(&mu_);
    while (!stop_) {
      const auto wake =
          IdleCheckable::Clock::now() +
          std::chrono::duration_cast<IdleCheckable::Clock::duration>(period_);
      while (!stop_ && IdleCheckable::Clock::now() < wake) {
        cv_.WaitUntil(&mu_, wake);
      }
      if (stop_) break;
      const auto since =
          IdleCheckable::Clock::now() -
          std::chrono::duration_cast<IdleCheckable::Clock::duration>(idle_);
      for (IdleCheckable* stream : streams_) stream->FinishIfIdleSince(since);
    }
  }

  const std::chrono::duration<double> idle_;
  const std::chrono::duration<double> period_;
  Mutex mu_;
  CondVar cv_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  absl::flat_hash_set<IdleCheckable*> streams_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace neardup::server

#endif  // NEARDUP_SERVER_INTERNAL_STREAM_WATCHDOG_H_
