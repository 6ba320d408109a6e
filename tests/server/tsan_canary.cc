// A deliberate data race in a callback that gRPC runs on its own thread.
// The suite runs this under ThreadSanitizer twice (tests/server/CMakeLists):
// with tests/tsan.supp the race must be reported, proving the suppressions
// do not hide races in our code on gRPC's threads; with the old
// library-wide suppressions (tests/tsan_library_wide.supp) it is hidden,
// proving the check can tell the difference.

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "grpcpp/alarm.h"
#include "grpcpp/grpcpp.h"

namespace {

int unguarded = 0;  // written by both threads, with nothing in between

}  // namespace

int main() {
  std::atomic<bool> ran{false};
  grpc::Alarm alarm;
  alarm.Set(std::chrono::system_clock::now() + std::chrono::milliseconds(50),
            [&](bool) {
              unguarded = 1;  // on a gRPC thread
              ran.store(true, std::memory_order_relaxed);
            });
  // Relaxed: no happens-before with the callback's write.
  while (!ran.load(std::memory_order_relaxed)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  unguarded = 2;
  std::printf("canary done: %d\n", unguarded);
  return 0;
}
