#ifndef NEARDUP_PYTHON_PARALLEL_H_
#define NEARDUP_PYTHON_PARALLEL_H_

// Plain threads for the extension's batches (no pool: a call's threads
// live for that call).

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace neardup::python {

// Threads to use for `threads` (0, or more than the cores: one per core).
inline size_t Workers(int threads) {
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  return threads > 0 ? std::min<size_t>(threads, cores) : cores;
}

// Runs body(i) for i in [0, n) on this thread and up to workers - 1 more.
// The first exception a body throws stops the rest and is rethrown here;
// threads that cannot be started leave their share to the others. Touches
// no Python object: callers decide about the GIL.
template <typename Body>
void RunParallel(size_t n, size_t workers, Body body) {
  workers = std::min(workers, std::max<size_t>(n, 1));
  std::atomic<size_t> next{0};
  std::mutex error_mu;
  std::exception_ptr error;
  auto work = [&] {
    try {
      for (size_t i; (i = next.fetch_add(1)) < n;) body(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mu);
      if (!error) error = std::current_exception();
      next = n;
    }
  };
  std::vector<std::thread> pool;
  try {
    pool.reserve(workers);
    for (size_t w = 1; w < workers; ++w) pool.emplace_back(work);
  } catch (const std::exception&) {
    // Fewer threads than asked: the ones running and this one do it all.
  }
  work();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace neardup::python

#endif  // NEARDUP_PYTHON_PARALLEL_H_
