#ifndef NEARDUP_BASE_BENEATH_H_
#define NEARDUP_BASE_BENEATH_H_

// Opening a path a request names inside a directory the operator chose
// (--models-dir, --backup-dir) without ever leaving it, and without a
// check-then-open race: the path is resolved by the kernel relative to a
// descriptor of the directory (openat2 with RESOLVE_BENEATH, so `..` and
// symlinks may not climb out), and the caller then uses the descriptor it
// got, never the path again.

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace neardup {

// A file descriptor that closes with it.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  ~UniqueFd();
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  // "/proc/self/fd/N": a path naming exactly this open file or directory,
  // for libraries that only take paths.
  std::string ProcPath() const;

 private:
  int fd_ = -1;
};

// `relative` opened with `flags` (O_CLOEXEC added) beneath the directory
// `root`. Where openat2 is missing (kernels before 5.6, some container
// seccomp profiles) it walks the components itself, refusing symlinks and
// `..`. INVALID_ARGUMENT for a path that leaves `root` or is absolute;
// NOT_FOUND when it does not exist; FAILED_PRECONDITION when `root` cannot
// be opened.
absl::StatusOr<UniqueFd> OpenBeneath(const std::string& root,
                                     std::string_view relative, int flags);

}  // namespace neardup

#endif  // NEARDUP_BASE_BENEATH_H_
