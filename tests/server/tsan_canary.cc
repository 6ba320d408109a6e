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

volatile int unguarded = 0;  // written by both threads, with nothing in between

}  // namespace

int main() {
  std::atomic<bool> started{false}, done{false};
  grpc::Alarm alarm;
  alarm.Set(std::chrono::system_clock::now(), [&](bool) {
    // On a gRPC thread: write while main writes too, nothing in between.
    started.store(true, std::memory_order_relaxed);
    while (!done.load(std::memory_order_relaxed)) unguarded = unguarded + 1;
  });
  while (!started.load(std::memory_order_relaxed)) {
    std::this_thread::yield();
  }
  for (int i = 0; i < 100000; ++i) unguarded = unguarded + 1;
  done.store(true, std::memory_order_relaxed);
  std::printf("canary done\n");
  return 0;
}
