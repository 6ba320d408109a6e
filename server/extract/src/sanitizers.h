#ifndef NEARDUP_EXTRACT_SRC_SANITIZERS_H_
#define NEARDUP_EXTRACT_SRC_SANITIZERS_H_

// Whether this build runs under a sanitizer: their shadow memory is counted
// by memory limits, and their reports need stderr.

namespace neardup::extract {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace neardup::extract

#endif  // NEARDUP_EXTRACT_SRC_SANITIZERS_H_
