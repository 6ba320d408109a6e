#ifndef NEARDUP_BASE_ABSL_COMPAT_H_
#define NEARDUP_BASE_ABSL_COMPAT_H_

// Debian's Abseil is built with its own absl::string_view (not an alias of
// std::string_view). Our APIs use std::string_view; convert at the seam.

#include <string_view>

#include "absl/strings/string_view.h"

namespace neardup {

inline absl::string_view AbslView(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}
inline std::string_view StdView(absl::string_view s) {
  return std::string_view(s.data(), s.size());
}

}  // namespace neardup

#endif  // NEARDUP_BASE_ABSL_COMPAT_H_
