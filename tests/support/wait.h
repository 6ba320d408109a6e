#ifndef NEARDUP_TESTS_SUPPORT_WAIT_H_
#define NEARDUP_TESTS_SUPPORT_WAIT_H_

// Waiting for a condition in tests, instead of sleeping a fixed time and
// hoping: returns as soon as `condition()` holds, false after `timeout`.

#include <chrono>
#include <functional>
#include <thread>

namespace neardup::testing {

inline bool WaitUntil(
    const std::function<bool()>& condition,
    std::chrono::milliseconds timeout = std::chrono::milliseconds(10000)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

}  // namespace neardup::testing

#endif  // NEARDUP_TESTS_SUPPORT_WAIT_H_
