// PdfToText: runs the PDF child and turns how it ended into a status.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "neardup/base/absl_compat.h"
#include "neardup/extract/extract_pool.h"
#include "neardup/extract/pdf.h"
#include "sanitizers.h"
#include "self_exec.h"

extern char** environ;

namespace neardup::extract {
namespace {

constexpr size_t kMaxErrorBytes = 4096;

// PDF children running at once, process-wide: each may take memory_bytes,
// and requests from many clients could otherwise start any number.
class ChildSlots {
 public:
  // False when no slot frees up before `deadline`.
  bool Acquire(absl::Time deadline) {
    std::unique_lock<std::mutex> lock(mu_);
    const auto until = absl::ToChronoTime(deadline);
    if (!freed_.wait_until(lock, until, [&] { return running_ < Limit(); })) {
      return false;
    }
    ++running_;
    return true;
  }
  void Release() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      --running_;
    }
    freed_.notify_one();
  }

 private:
  static int Limit() {
    static const int limit =
        std::max(2, static_cast<int>(std::thread::hardware_concurrency()));
    return limit;
  }

  std::mutex mu_;
  std::condition_variable freed_;
  int running_ = 0;
};

ChildSlots& Slots() {
  static ChildSlots* slots = new ChildSlots;
  return *slots;
}

// A pipe whose ends close with it.
struct Pipe {
  int read_end = -1;
  int write_end = -1;
  ~Pipe() {
    CloseRead();
    CloseWrite();
  }
  bool Open() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return false;
    read_end = fds[0];
    write_end = fds[1];
    return true;
  }
  void CloseRead() {
    if (read_end >= 0) close(read_end);
    read_end = -1;
  }
  void CloseWrite() {
    if (write_end >= 0) close(write_end);
    write_end = -1;
  }
};

void SetNonBlocking(int fd) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

// Reads what is available from `fd` into `out`, keeping at most `limit`
// bytes; false at end of file.
bool Drain(int fd, std::string& out, size_t limit, bool& overflow) {
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n > 0) {
      const size_t room = limit > out.size() ? limit - out.size() : 0;
      out.append(buffer, std::min(room, static_cast<size_t>(n)));
      if (static_cast<size_t>(n) > room) overflow = true;
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return true;  // EAGAIN: nothing more for now
  }
}

std::string Trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
    text.pop_back();
  }
  return text;
}

}  // namespace

namespace internal {

// Set by MaybeRunPdfChild: this program's main knows the child flags.
std::atomic<bool> self_exec_ready{false};

bool SelfExecReady() { return self_exec_ready.load(); }

std::vector<std::string> ChildEnvironment() {
  std::vector<std::string> env;
  if (!kSanitized) return env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view var = *e;
    for (std::string_view keep :
         {"ASAN_OPTIONS=", "UBSAN_OPTIONS=", "LSAN_OPTIONS=", "TSAN_OPTIONS=",
          "ASAN_SYMBOLIZER_PATH="}) {
      if (var.starts_with(keep)) env.emplace_back(var);
    }
  }
  return env;
}

}  // namespace internal

bool MaybeRunPdfChild(int argc, char** argv, int* exit_code) {
  if (argc > 1 && std::strcmp(argv[1], kPdfChildFlag) == 0) {
    *exit_code = PdfChildMain(argc, argv);
    return true;
  }
  if (argc > 1 && std::strcmp(argv[1], kExtractChildFlag) == 0) {
    *exit_code = ExtractChildMain(argc, argv);
    return true;
  }
  internal::self_exec_ready.store(true);
  return false;
}

absl::StatusOr<std::string> PdfToText(std::string_view pdf,
                                      const PdfOptions& options) {
  if (pdf.size() > options.max_pdf_bytes) {
    return absl::InvalidArgumentError(absl::StrCat("PDF is ", pdf.size(),
                                                   " bytes, over the limit of ",
                                                   options.max_pdf_bytes));
  }
  const size_t header = pdf.substr(0, 1024).find("%PDF-");
  if (header == std::string_view::npos) {
    return absl::InvalidArgumentError(
        "not a PDF: no %PDF- header in its first 1024 bytes");
  }

  // Waiting for a slot counts against the timeout.
  const absl::Time deadline = absl::Now() + options.timeout;
  if (!Slots().Acquire(deadline)) {
    return absl::ResourceExhaustedError(
        absl::StrCat("no PDF parser became free within ",
                     absl::FormatDuration(options.timeout),
                     " (every one is busy); try again"));
  }
  const absl::Cleanup release = [] { Slots().Release(); };
  std::vector<std::string> args = options.child_argv;
  if (args.empty()) {
    if (!internal::SelfExecReady()) {
      return absl::InternalError(
          "no PDF child: this program's main does not call MaybeRunPdfChild "
          "and no PdfOptions::child_argv was given");
    }
    args = {"/proc/self/exe", kPdfChildFlag};
  }
  args.push_back(absl::StrCat(options.memory_bytes));
  args.push_back(absl::StrCat(options.cpu_seconds));
  args.push_back(absl::StrCat(options.max_pdf_bytes));
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  // Nothing of this process's environment reaches the parser.
  std::vector<std::string> env = internal::ChildEnvironment();
  std::vector<char*> envp;
  for (std::string& var : env) envp.push_back(var.data());
  envp.push_back(nullptr);

  Pipe in, out, err;
  if (!in.Open() || !out.Open() || !err.Open()) {
    return absl::InternalError(
        absl::StrCat("PDF child: pipe: ", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.read_end, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out.write_end, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.write_end, STDERR_FILENO);
  // The child starts with default signal handling and nothing blocked,
  // whatever this process ignores or masks.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  const int spawned =
      posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (spawned != 0) {
    return absl::InternalError(absl::StrCat("PDF child: cannot start ", args[0],
                                            ": ", std::strerror(spawned)));
  }
  in.CloseRead();
  out.CloseWrite();
  err.CloseWrite();
  SetNonBlocking(in.write_end);
  SetNonBlocking(out.read_end);
  SetNonBlocking(err.read_end);

  // A child that exits before reading everything must not kill this
  // process with SIGPIPE: block it here, and take back one left pending.
  sigset_t pipe_signal, old_mask;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &old_mask);
  bool broken_pipe = false;
  const absl::Cleanup restore_mask = [&] {
    if (broken_pipe) {
      const timespec zero{0, 0};
      sigtimedwait(&pipe_signal, nullptr, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  };

  std::string text, error;
  bool text_overflow = false, error_overflow = false, timed_out = false;
  bool poll_failed = false;
  bool out_open = true, err_open = true;
  std::string_view to_send = pdf;
  if (to_send.empty()) in.CloseWrite();
  while (out_open || err_open) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      timed_out = true;
      break;
    }
    pollfd fds[3];
    int count = 0;
    const int out_at = out_open ? count++ : -1;
    if (out_at >= 0) fds[out_at] = {out.read_end, POLLIN, 0};
    const int err_at = err_open ? count++ : -1;
    if (err_at >= 0) fds[err_at] = {err.read_end, POLLIN, 0};
    const int in_at = in.write_end >= 0 ? count++ : -1;
    if (in_at >= 0) fds[in_at] = {in.write_end, POLLOUT, 0};
    const int ms = static_cast<int>(
        std::min<int64_t>(absl::ToInt64Milliseconds(left) + 1, 1000));
    if (poll(fds, count, ms) < 0 && errno != EINTR) {
      poll_failed = true;
      break;
    }
    if (in_at >= 0 && fds[in_at].revents != 0) {
      const ssize_t n = write(in.write_end, to_send.data(), to_send.size());
      if (n > 0) to_send.remove_prefix(static_cast<size_t>(n));
      if (n < 0 && errno == EPIPE) broken_pipe = true;
      if (to_send.empty() || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        in.CloseWrite();  // end of input for the child
      }
    }
    if (out_at >= 0 && fds[out_at].revents != 0) {
      out_open =
          Drain(out.read_end, text, options.max_text_bytes, text_overflow);
    }
    if (err_at >= 0 && fds[err_at].revents != 0) {
      err_open = Drain(err.read_end, error, kMaxErrorBytes, error_overflow);
    }
    if (text_overflow) break;
  }
  // Any way out of the loop but the child's own end: stop it, or waitpid
  // would wait on a child that waits on input.
  if (out_open || err_open) kill(pid, SIGKILL);
  in.CloseWrite();
  int status = 0;
  pid_t waited;
  while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (waited != pid) {
    return absl::InternalError(
        absl::StrCat("PDF child: waitpid: ", std::strerror(errno),
                     " (is SIGCHLD ignored, or the child reaped elsewhere?)"));
  }
  if (poll_failed) {
    return absl::InternalError(
        absl::StrCat("PDF child: poll: ", std::strerror(errno)));
  }

  if (timed_out) {
    return absl::InvalidArgumentError(absl::StrCat(
        "PDF parsing took longer than ", absl::FormatDuration(options.timeout),
        " and was stopped"));
  }
  if (text_overflow) {
    return absl::InvalidArgumentError(
        absl::StrCat("the PDF's text is over the limit of ",
                     options.max_text_bytes, " bytes"));
  }
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    if (signal == SIGXCPU || signal == SIGKILL) {
      return absl::InvalidArgumentError(
          absl::StrCat("PDF parsing used more than its ", options.cpu_seconds,
                       " s of CPU time and was stopped"));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "the PDF parser failed on this file (signal ", signal, ", ",
        strsignal(signal), "; its memory limit is ", options.memory_bytes,
        " bytes); it ran in a child process, nothing else was affected"));
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("PDF: ", Trimmed(std::move(error))));
  }
  if (code == 2) {  // its command line or pipes: our fault, not the file's
    return absl::InternalError(absl::StrCat("PDF child exited with code 2: ",
                                            Trimmed(std::move(error))));
  }
  if (code != 0) {  // e.g. a sanitizer or allocator stopping the parser
    return absl::InvalidArgumentError(absl::StrCat(
        "the PDF parser failed on this file (exit code ", code, ")"));
  }
  return text;
}

}  // namespace neardup::extract
