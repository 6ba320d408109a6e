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
#include <span>

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

// Everything a parser needs once its input is in memory: I/O on the
// descriptors it holds, memory, locks, time, and leaving. Names this
// kernel's architecture lacks are skipped. Calls that could reach another
// process (signals, descriptor ownership) are allowed below only in forms
// that cannot.
constexpr const char* kAllowed[] = {
    "read",
    "write",
    "readv",
    "writev",
    "close",
    "fstat",
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
    "sched_yield",
    "sched_getaffinity",
    "restart_syscall",
    "sysinfo",
    "uname",
    "getrusage",
    "times",
    "poll",
    "ppoll",
};

absl::Status AddRule(scmp_filter_ctx ctx, int nr, std::string_view name,
                     std::span<const scmp_arg_cmp> args) {
  const int rc = seccomp_rule_add_array(
      ctx, SCMP_ACT_ALLOW, nr, static_cast<unsigned>(args.size()), args.data());
  if (rc != 0) {
    return absl::InternalError(
        absl::StrCat("sandbox: seccomp rule for ", AbslView(name), ": ", -rc));
  }
  return absl::OkStatus();
}

absl::Status InstallSeccomp() {
  // Anything else fails with EPERM instead of killing: a library that
  // probes (an open of a font file, say) gets an error it handles.
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
  if (ctx == nullptr) return absl::InternalError("sandbox: seccomp_init");
  const absl::Cleanup release = [ctx] { seccomp_release(ctx); };
  for (const char* name : kAllowed) {
    const int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue;
    if (auto s = AddRule(ctx, nr, name, {}); !s.ok()) return s;
  }
  const auto self = static_cast<scmp_datum_t>(getpid());
  const auto thread = static_cast<scmp_datum_t>(gettid());
  // A call allowed with these arguments only (at most two compared).
  struct Conditional {
    int nr;
    scmp_arg_cmp args[2];
    unsigned count;
  };
  const Conditional rules[] = {
      // Memory, but never executable: injected code would need it.
      {SCMP_SYS(mmap), {SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)}, 1},
      {SCMP_SYS(mprotect), {SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)}, 1},
      // Reading limits (getrlimit is prlimit64 with no new limit).
      {SCMP_SYS(prlimit64), {SCMP_A2(SCMP_CMP_EQ, 0)}, 1},
      // abort() signals this thread, and nothing else may be signalled.
      {SCMP_SYS(tgkill),
       {SCMP_A0(SCMP_CMP_EQ, self), SCMP_A1(SCMP_CMP_EQ, thread)},
       2},
      // fstat of a descriptor (glibc's newfstatat with AT_EMPTY_PATH), not
      // of a path.
      {SCMP_SYS(newfstatat),
       {SCMP_A3(SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, AT_EMPTY_PATH)},
       1},
      // Flags of a descriptor, never its owner (F_SETOWN would have the
      // kernel signal another process).
      {SCMP_SYS(fcntl), {SCMP_A1(SCMP_CMP_EQ, F_GETFL)}, 1},
      {SCMP_SYS(fcntl), {SCMP_A1(SCMP_CMP_EQ, F_GETFD)}, 1},
  };
  for (const Conditional& rule : rules) {
    if (auto s = AddRule(ctx, rule.nr, "a conditional call",
                         std::span(rule.args, rule.count));
        !s.ok()) {
      return s;
    }
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
  // No file writes; under sanitizers stderr may be a file their reports go
  // to.
  if (!kSanitized) {
    if (auto s = SetLimit(RLIMIT_FSIZE, 0, "RLIMIT_FSIZE"); !s.ok()) return s;
  }
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
