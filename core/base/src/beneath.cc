#include "neardup/base/beneath.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "neardup/base/absl_compat.h"

namespace neardup {

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.release();
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) close(fd_);
}

std::string UniqueFd::ProcPath() const {
  return absl::StrCat("/proc/self/fd/", fd_);
}

namespace {

absl::Status Refused(std::string_view relative, int error) {
  if (error == ENOENT || error == ENOTDIR) {
    return absl::NotFoundError(
        absl::StrCat("\"", AbslView(relative), "\" does not exist"));
  }
  if (error == EXDEV || error == ELOOP || error == EPERM) {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"", AbslView(relative),
        "\" leads outside its directory (.., or a symlink out of it)"));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "\"", AbslView(relative), "\" cannot be opened: ", std::strerror(error)));
}

// Component by component, no symlink and no `..` at all: the fallback for
// kernels without openat2.
int WalkBeneath(int root, std::string_view relative, int flags) {
  std::vector<std::string> parts;
  for (absl::string_view part :
       absl::StrSplit(AbslView(relative), '/', absl::SkipEmpty())) {
    if (part == ".") continue;
    if (part == "..") {
      errno = EXDEV;
      return -1;
    }
    parts.emplace_back(part);
  }
  if (parts.empty()) return fcntl(root, F_DUPFD_CLOEXEC, 0);
  int dir = fcntl(root, F_DUPFD_CLOEXEC, 0);
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const int next = openat(dir, parts[i].c_str(),
                            O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const int saved = errno;
    close(dir);
    if (next < 0) {
      errno = saved;
      return -1;
    }
    dir = next;
  }
  const int fd = openat(dir, parts.back().c_str(), flags | O_NOFOLLOW, 0600);
  const int saved = errno;
  close(dir);
  errno = saved;
  return fd;
}

}  // namespace

absl::StatusOr<UniqueFd> OpenBeneath(const std::string& root,
                                     std::string_view relative, int flags) {
  if (relative.empty() || relative.front() == '/' ||
      relative.find('\0') != std::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", AbslView(relative),
                     "\" must be a relative path inside its directory"));
  }
  // Out by its very spelling, whatever exists on the way.
  const std::string lexical =
      std::filesystem::path(std::string(relative)).lexically_normal().string();
  if (lexical == ".." || lexical.starts_with("../")) {
    return Refused(relative, EXDEV);
  }
  UniqueFd dir(open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(root, " cannot be opened: ", std::strerror(errno)));
  }
  const std::string path(relative);
  open_how how{};
  how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
  how.mode = (flags & O_CREAT) ? 0600 : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  int fd;
  // EAGAIN: a rename raced the lookup; the kernel asks for a retry.
  int tries = 0;
  do {
    fd = static_cast<int>(
        syscall(SYS_openat2, dir.get(), path.c_str(), &how, sizeof(how)));
  } while (fd < 0 && errno == EAGAIN && ++tries < 16);
  if (fd < 0 && (errno == ENOSYS || errno == EPERM)) {
    // No openat2 here (EPERM: a seccomp profile that predates it).
    fd = WalkBeneath(dir.get(), relative, flags | O_CLOEXEC);
  }
  if (fd < 0) return Refused(relative, errno);
  return UniqueFd(fd);
}

}  // namespace neardup
