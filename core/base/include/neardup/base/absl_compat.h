#ifndef NEARDUP_BASE_ABSL_COMPAT_H_
#define NEARDUP_BASE_ABSL_COMPAT_H_

// Debian's Abseil is built with its own absl::string_view (not an alias of
// std::string_view). Our APIs use std::string_view; convert at the seam.
// It is also built with assertions on: see SkipAbslLockOrderChecks.

#include <string_view>

#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace neardup {

inline absl::string_view AbslView(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}
inline std::string_view StdView(absl::string_view s) {
  return std::string_view(s.data(), s.size());
}

// Debian's Abseil (built without NDEBUG) makes every absl::Mutex lock
// record itself in one process-wide lock-order graph, behind its own global
// lock. gRPC's locks are absl::Mutex: at 10K queries/s that check was ~10 %
// of the server's CPU. Our own code locks std mutexes (base/sync.h), which
// TSan checks in the tests. Call at the top of main, before any thread.
inline void SkipAbslLockOrderChecks() {
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
}

}  // namespace neardup

#endif  // NEARDUP_BASE_ABSL_COMPAT_H_
