#ifndef NEARDUP_BASE_TSAN_HANDOFF_H_
#define NEARDUP_BASE_TSAN_HANDOFF_H_

// Hand-offs ThreadSanitizer cannot see. gRPC (Debian's, not built with
// TSan) constructs our reactors on one of its threads and calls them back on
// others, ordered by its own synchronisation, which TSan does not see; it
// would report the reactor's own fields as racing. The reactor releases
// itself at the end of its constructor and acquires itself at the start of
// every callback: the order gRPC guarantees, told to TSan. No-ops in other
// builds.

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NEARDUP_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define NEARDUP_TSAN 1
#endif

#ifdef NEARDUP_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace neardup {

inline void TsanRelease([[maybe_unused]] void* addr) {
#ifdef NEARDUP_TSAN
  __tsan_release(addr);
#endif
}
inline void TsanAcquire([[maybe_unused]] void* addr) {
#ifdef NEARDUP_TSAN
  __tsan_acquire(addr);
#endif
}

}  // namespace neardup

#endif  // NEARDUP_BASE_TSAN_HANDOFF_H_
