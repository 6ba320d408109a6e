#ifndef NEARDUP_BASE_STATUS_MACROS_H_
#define NEARDUP_BASE_STATUS_MACROS_H_

// Abseil 20220623 ships no RETURN_IF_ERROR / ASSIGN_OR_RETURN; these are ours,
// with the one helper that puts context in front of an error.

#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace neardup {

// `status` with "prefix: " in front of its message, same code; OK stays OK.
inline absl::Status Prefixed(std::string_view prefix,
                             const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(
      status.code(),
      absl::StrCat(absl::string_view(prefix.data(), prefix.size()), ": ",
                   status.message()));
}

// The same for a StatusOr: its value, or its error prefixed.
template <typename T>
absl::StatusOr<T> Prefixed(std::string_view prefix, absl::StatusOr<T> value) {
  if (value.ok()) return value;
  return Prefixed(prefix, value.status());
}

}  // namespace neardup

#define NEARDUP_CONCAT_INNER_(a, b) a##b
#define NEARDUP_CONCAT_(a, b) NEARDUP_CONCAT_INNER_(a, b)

// Returns the status from the enclosing function if `expr` is not OK.
#define RETURN_IF_ERROR(expr)                          \
  do {                                                 \
    ::absl::Status neardup_status_ = (expr);           \
    if (!neardup_status_.ok()) return neardup_status_; \
  } while (false)

// `ASSIGN_OR_RETURN(auto x, MakeX());` unwraps a StatusOr or returns its error.
#define ASSIGN_OR_RETURN(lhs, expr)                                            \
  NEARDUP_ASSIGN_OR_RETURN_IMPL_(NEARDUP_CONCAT_(neardup_statusor_, __LINE__), \
                                 lhs, expr)
#define NEARDUP_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.ok()) return std::move(tmp).status();       \
  lhs = std::move(tmp).value()

#endif  // NEARDUP_BASE_STATUS_MACROS_H_
