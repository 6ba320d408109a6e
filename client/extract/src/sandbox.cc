#include "neardup/extract/sandbox.h"

#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "sanitizers.h"

namespace neardup::extract {
namespace {

absl::Status Errno(std::string_view what) {
  return absl::InternalError(
      absl::StrCat("sandbox: ", AbslView(what), ": ", std::strerror(errno)));
}

absl::Status SetLimit(int resource, rlim_t value, std::string_view name) {
  const rlimit limit{value, value};
  if (setrlimit(resource, &limit) != 0) return Errno(name);
  return absl::OkStatus();
}

// Everything a parser needs once its input is in memory: pipe I/O, memory,
// locks, time, signals to itself (abort), and leaving. Names this kernel's
// architecture lacks are skipped.
constexpr const char* kAllowed[] = {
    "read",
    "write",
    "readv",
    "writev",
    "recvfrom",
    "sendto",
    "close",
    "fstat",
    "newfstatat",
    "lseek",
    "munmap",
    "mremap",
    "brk",
    "madvise",
    "futex",
    "exit",
    "exit_group",
    "rt_sigreturn",
    "rt_sigprocmask",
    "rt_sigaction",
    "sigaltstack",
    "clock_gettime",
    "clock_getres",
    "gettimeofday",
    "time",
    "nanosleep",
    "clock_nanosleep",
    "getrandom",
    "getpid",
    "gettid",
    "getppid",
    "tgkill",
    "sched_yield",
    "sched_getaffinity",
    "restart_syscall",
    "fcntl",
    "sysinfo",
    "uname",
    "getrusage",
    "times",
    "poll",
    "ppoll",
};

absl::Status InstallSeccomp() {
  // Anything else fails with EPERM instead of killing: a library that
  // probes (an open of a font file, say) gets an error it handles.
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
  if (ctx == nullptr) return absl::InternalError("sandbox: seccomp_init");
  const absl::Cleanup release = [ctx] { seccomp_release(ctx); };
  for (const char* name : kAllowed) {
    const int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue;
    if (int rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0); rc != 0) {
      return absl::InternalError(
          absl::StrCat("sandbox: seccomp rule for ", name, ": ", -rc));
    }
  }
  // Memory, but never executable: injected code would need it.
  for (int nr : {SCMP_SYS(mmap), SCMP_SYS(mprotect)}) {
    if (int rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
                                  SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
        rc != 0) {
      return absl::InternalError(
          absl::StrCat("sandbox: seccomp rule for mmap/mprotect: ", -rc));
    }
  }
  // Reading limits (getrlimit is prlimit64 with no new limit), not setting.
  if (int rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 1,
                                SCMP_A2(SCMP_CMP_EQ, 0));
      rc != 0) {
    return absl::InternalError(
        absl::StrCat("sandbox: seccomp rule for prlimit64: ", -rc));
  }
  // libseccomp sets no_new_privs itself (SCMP_FLTATR_CTL_NNP, on by default).
  if (int rc = seccomp_load(ctx); rc != 0) {
    return absl::InternalError(absl::StrCat("sandbox: seccomp_load: ", -rc));
  }
  return absl::OkStatus();
}

// A new network namespace has only a loopback interface, down: nothing to
// connect to. Root may create one; others may inside a new user namespace
// where the kernel allows those. Neither is required: seccomp denies
// socket() anyway.
bool EnterEmptyNetwork() {
  if (unshare(CLONE_NEWNET) == 0) return true;
  return unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0;
}

}  // namespace

absl::Status EnterSandbox(const SandboxOptions& options,
                          SandboxReport* report) {
  SandboxReport done;
  // Descriptors the parent leaked into this process (none should be: they
  // are close-on-exec) are gone before the input is touched.
  if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0) {
    for (int fd = 3; fd < 1024; ++fd) close(fd);
  }
  if (chdir("/") != 0) return Errno("chdir /");
  if (auto s = SetLimit(RLIMIT_CORE, 0, "RLIMIT_CORE"); !s.ok()) return s;
  if (auto s = SetLimit(RLIMIT_FSIZE, 0, "RLIMIT_FSIZE"); !s.ok()) return s;
  if (auto s = SetLimit(RLIMIT_NOFILE, 8, "RLIMIT_NOFILE"); !s.ok()) return s;
  if (options.cpu_seconds > 0) {
    if (auto s = SetLimit(RLIMIT_CPU, static_cast<rlim_t>(options.cpu_seconds),
                          "RLIMIT_CPU");
        !s.ok()) {
      return s;
    }
  }
  if (options.memory_bytes > 0 && !kSanitized) {
    if (auto s = SetLimit(RLIMIT_DATA, options.memory_bytes, "RLIMIT_DATA");
        !s.ok()) {
      return s;
    }
  }
  done.network_namespace = EnterEmptyNetwork();
  // After the user namespace (which needs the process alone): no new
  // processes or threads for this user. seccomp refuses clone too; root is
  // not bound by RLIMIT_NPROC.
  if (auto s = SetLimit(RLIMIT_NPROC, 0, "RLIMIT_NPROC"); !s.ok()) return s;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    return Errno("no_new_privs");
  }
  if (auto s = InstallSeccomp(); !s.ok()) return s;
  done.seccomp = true;
  if (report != nullptr) *report = done;
  return absl::OkStatus();
}

}  // namespace neardup::extract
