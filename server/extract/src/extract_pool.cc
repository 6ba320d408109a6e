// ExtractPool: the parent's side of the extraction children.

#include "neardup/extract/extract_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "extract_protocol.h"
#include "neardup/base/absl_compat.h"
#include "neardup/extract/pdf.h"
#include "sanitizers.h"
#include "self_exec.h"

namespace neardup::extract {

using internal::AnswerCode;
using internal::AnswerHeader;
using internal::RequestHeader;

struct ExtractPool::Worker {
  std::atomic<pid_t> pid{-1};  // ChildPids reads it from other threads
  int fd = -1;                 // our end of the child's socket
  int requests = 0;
  // Whose inputs the child has parsed: a child is never handed another
  // client's input, so one compromised by a hostile file sees only that
  // client's documents.
  std::string principal;
  absl::Duration busy;  // wall time in parses, a bound on its CPU time

  // True when the child's socket says something unasked (it died while
  // idle, or wrote out of turn): it must not be given a request.
  bool Unwell() const {
    pollfd p{fd, POLLIN, 0};
    return poll(&p, 1, 0) != 0;
  }

  // Stops the child (if any) and reaps it; its wait status, or -1.
  int Stop() {
    if (fd >= 0) close(fd);
    fd = -1;
    if (pid <= 0) return -1;
    kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    pid = -1;
    requests = 0;
    busy = absl::ZeroDuration();
    return status;
  }
  // Reaps a child that is leaving by itself (its socket closed), killing it
  // if it has not left within a moment.
  int Reap() {
    if (fd >= 0) close(fd);
    fd = -1;
    int status = 0;
    for (int i = 0; i < 100; ++i) {
      const pid_t done = waitpid(pid, &status, WNOHANG);
      if (done == pid) {
        pid = -1;
        requests = 0;
        busy = absl::ZeroDuration();
        return status;
      }
      if (done < 0 && errno != EINTR) break;
      usleep(1000);
    }
    return Stop();
  }
};

namespace {

// A child is replaced after this much parsing, well before its lifetime CPU
// limit (kChildCpuSeconds) could stop it in the middle of a request.
constexpr absl::Duration kMaxBusyPerChild = absl::Seconds(300);

std::string_view FormatName(ContentType type) {
  switch (type) {
    case ContentType::kHtml:
      return "HTML";
    case ContentType::kMarkdown:
      return "Markdown";
    case ContentType::kPdf:
      return "PDF";
    case ContentType::kPlainText:
      break;
  }
  return "text";
}

absl::Status Internal(std::string_view what) {
  return absl::InternalError(absl::StrCat("extraction child: ", AbslView(what),
                                          ": ", std::strerror(errno)));
}

// What came back from one exchange with a child.
enum class Outcome { kAnswer, kTimeout, kDied };

// Sends the request and reads the answer before `deadline`.
// `*heard` tells whether any byte of an answer arrived.
Outcome Exchange(int fd, const RequestHeader& header, std::string_view content,
                 absl::Time deadline, AnswerHeader* answer, std::string* body,
                 size_t max_body, bool* heard) {
  *heard = false;
  std::string request(reinterpret_cast<const char*>(&header), sizeof(header));
  std::string_view to_send_header = request;
  std::string_view to_send = content;
  size_t got_header = 0;
  bool have_header = false;
  while (true) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return Outcome::kTimeout;
    const bool sending = !to_send_header.empty() || !to_send.empty();
    pollfd p{fd, static_cast<short>(POLLIN | (sending ? POLLOUT : 0)), 0};
    const int ms = static_cast<int>(
        std::min<int64_t>(absl::ToInt64Milliseconds(left) + 1, 1000));
    const int ready = poll(&p, 1, ms);
    if (ready < 0 && errno != EINTR) return Outcome::kDied;
    if (ready <= 0) continue;
    if (sending && (p.revents & POLLOUT)) {
      std::string_view& part =
          !to_send_header.empty() ? to_send_header : to_send;
      const ssize_t n =
          send(fd, part.data(), part.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) {
        part.remove_prefix(static_cast<size_t>(n));
      } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
        // The child stopped reading (it answered early, or died): what it
        // said, if anything, is still to be read.
        to_send_header = {};
        to_send = {};
      }
    }
    if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
      char* into;
      size_t room;
      if (!have_header) {
        into = reinterpret_cast<char*>(answer) + got_header;
        room = sizeof(AnswerHeader) - got_header;
      } else {
        into = body->data() + got_header;
        room = body->size() - got_header;
      }
      const ssize_t n = recv(fd, into, room, MSG_DONTWAIT);
      if (n == 0) return Outcome::kDied;
      if (n < 0) {
        if (errno == EAGAIN || errno == EINTR) continue;
        return Outcome::kDied;
      }
      got_header += static_cast<size_t>(n);
      *heard = true;
      if (!have_header && got_header == sizeof(AnswerHeader)) {
        if (answer->magic != internal::kAnswerMagic ||
            answer->length > max_body) {
          return Outcome::kDied;  // not an answer we can trust
        }
        have_header = true;
        got_header = 0;
        body->assign(answer->length, '\0');
      }
      if (have_header && got_header == body->size()) return Outcome::kAnswer;
    }
  }
}

}  // namespace

ExtractPool::ExtractPool(ExtractPoolOptions options)
    : options_(std::move(options)) {
  const int n = std::max(1, options_.workers);
  busy_.assign(static_cast<size_t>(n), false);
  for (int i = 0; i < n; ++i) workers_.push_back(std::make_unique<Worker>());
}

ExtractPool::~ExtractPool() {
  for (auto& worker : workers_) worker->Stop();
}

int ExtractPool::Acquire(std::string_view principal) {
  MutexLock lock(&mu_);
  // A child that already parsed this client's inputs, else one without a
  // child, else any (its child is replaced).
  int best = -1, best_rank = 3;
  for (size_t i = 0; i < busy_.size(); ++i) {
    if (busy_[i]) continue;
    const Worker& worker = *workers_[i];
    const int rank = worker.pid > 0 && worker.principal == principal ? 0
                     : worker.pid <= 0                               ? 1
                                                                     : 2;
    if (rank < best_rank) {
      best = static_cast<int>(i);
      best_rank = rank;
    }
  }
  if (best >= 0) busy_[static_cast<size_t>(best)] = true;
  return best;
}

void ExtractPool::Release(int index) {
  MutexLock lock(&mu_);
  busy_[static_cast<size_t>(index)] = false;
}

ExtractPoolStats ExtractPool::stats() const {
  ExtractPoolStats s;
  s.parses = parses_.load();
  s.busy = busy_refusals_.load();
  s.timeouts = timeouts_.load();
  s.crashes = crashes_.load();
  s.started = started_.load();
  return s;
}

std::vector<pid_t> ExtractPool::ChildPids() const {
  std::vector<pid_t> pids;
  for (const auto& worker : workers_) {
    if (worker->pid > 0) pids.push_back(worker->pid);
  }
  return pids;
}

namespace {

absl::Status StartChild(const ExtractPoolOptions& options, pid_t* pid,
                        int* fd) {
  std::vector<std::string> args = options.child_argv;
  if (args.empty()) {
    if (!internal::SelfExecReady()) {
      return absl::InternalError(
          "no extraction child: this program's main does not call "
          "MaybeRunPdfChild and no ExtractPoolOptions::child_argv was given");
    }
    args = {"/proc/self/exe", kExtractChildFlag};
  }
  args.push_back(absl::StrCat(options.memory_bytes_per_worker));
  args.push_back(absl::StrCat(options.max_input_bytes));
  args.push_back(absl::StrCat(options.max_text_bytes));
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<std::string> env = internal::ChildEnvironment();
  std::vector<char*> envp;
  for (std::string& var : env) envp.push_back(var.data());
  envp.push_back(nullptr);

  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    return Internal("socketpair");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, sv[1], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, sv[1], STDOUT_FILENO);
  // A parser's complaints about a hostile file do not belong in the
  // server's log; a sanitizer's report does.
  if (!kSanitized) {
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null",
                                     O_WRONLY, 0);
  }
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  const int spawned =
      posix_spawn(pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(sv[1]);
  if (spawned != 0) {
    close(sv[0]);
    errno = spawned;
    return Internal(absl::StrCat("cannot start ", args[0]));
  }
  *fd = sv[0];
  return absl::OkStatus();
}

}  // namespace

namespace {
thread_local std::string_view current_principal;
}  // namespace

ExtractPool::ScopedPrincipal::ScopedPrincipal(std::string_view principal)
    : previous_(current_principal) {
  current_principal = principal;
}
ExtractPool::ScopedPrincipal::~ScopedPrincipal() {
  current_principal = previous_;
}

absl::StatusOr<std::string> ExtractPool::Extract(
    std::string_view content, ContentType type,
    const MarkdownOptions& markdown) {
  if (type == ContentType::kPlainText) return std::string(content);
  const std::string_view format = FormatName(type);
  if (content.size() > options_.max_input_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        AbslView(format), " is ", content.size(), " bytes, over the limit of ",
        options_.max_input_bytes, " bytes for extraction"));
  }
  if (type == ContentType::kPdf &&
      content.substr(0, 1024).find("%PDF-") == std::string_view::npos) {
    return absl::InvalidArgumentError(
        "not a PDF: no %PDF- header in its first 1024 bytes");
  }
  const std::string_view principal = current_principal;
  const int index = Acquire(principal);
  if (index < 0) {
    busy_refusals_.fetch_add(1);
    return absl::ResourceExhaustedError(absl::StrCat(
        "all ", workers_.size(),
        " extraction workers are busy (--extract-workers); retry with "
        "backoff"));
  }
  const absl::Cleanup release = [this, index] { Release(index); };
  Worker& worker = *workers_[static_cast<size_t>(index)];
  if (worker.pid > 0 && (worker.principal != principal || worker.Unwell())) {
    worker.Reap();
  }

  RequestHeader header;
  header.content_type = static_cast<uint8_t>(type);
  header.keep_code_blocks = markdown.keep_code_blocks ? 1 : 0;
  header.length = content.size();
  AnswerHeader answer;
  std::string body;
  Outcome outcome = Outcome::kDied;
  // A reused child that dies before saying a word may have died of
  // something else (killed while idle): the input gets one fresh child.
  for (int attempt = 0; attempt < 2; ++attempt) {
    const bool fresh = worker.pid <= 0;
    if (fresh) {
      pid_t pid = -1;
      int fd = -1;
      if (absl::Status started = StartChild(options_, &pid, &fd);
          !started.ok()) {
        return started;
      }
      worker.pid = pid;
      worker.fd = fd;
      worker.principal = std::string(principal);
      started_.fetch_add(1);
    }
    bool heard = false;
    const absl::Time start = absl::Now();
    outcome = Exchange(worker.fd, header, content, start + options_.timeout,
                       &answer, &body,
                       std::max<size_t>(options_.max_text_bytes, 4096), &heard);
    worker.busy += absl::Now() - start;
    if (outcome != Outcome::kDied || heard || fresh) break;
    worker.Reap();
  }
  auto stop = [&](bool gently) {
    return gently ? worker.Reap() : worker.Stop();
  };
  if (outcome == Outcome::kTimeout) {
    stop(false);
    timeouts_.fetch_add(1);
    return absl::InvalidArgumentError(
        absl::StrCat(AbslView(format), " extraction took longer than ",
                     absl::FormatDuration(options_.timeout),
                     " (--extract-timeout) and was stopped"));
  }
  if (outcome == Outcome::kDied) {
    const int status = stop(true);
    crashes_.fetch_add(1);
    if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 2) {
      return absl::InternalError(absl::StrCat(
          "the extraction child could not start or broke its protocol (exit "
          "code 2); is ",
          options_.child_argv.empty() ? "this program"
                                      : options_.child_argv.front(),
          " able to run as one?"));
    }
    const int signal =
        status >= 0 && WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    return absl::InvalidArgumentError(absl::StrCat(
        "the ", AbslView(format), " parser stopped on this input",
        signal != 0
            ? absl::StrCat(" (signal ", signal, ", ", strsignal(signal), ")")
            : "",
        " within its limits of ", options_.memory_bytes_per_worker,
        " bytes of memory (--extract-memory-bytes over --extract-workers); "
        "it ran in a sandboxed child, nothing else was affected"));
  }
  parses_.fetch_add(1);
  if (++worker.requests >= options_.requests_per_worker ||
      worker.busy >= kMaxBusyPerChild ||
      answer.code == AnswerCode::kOverMemory) {
    stop(true);  // it leaves after running out of memory anyway
  }
  switch (answer.code) {
    case AnswerCode::kText:
      return body;
    case AnswerCode::kInvalidInput:
      return absl::InvalidArgumentError(
          absl::StrCat(AbslView(format), ": ", body));
    case AnswerCode::kOverMemory:
      return absl::InvalidArgumentError(absl::StrCat(
          AbslView(format), " extraction ", body,
          " (--extract-memory-bytes over --extract-workers); such documents "
          "are refused"));
    case AnswerCode::kTextTooLong:
      return absl::InvalidArgumentError(absl::StrCat(
          "the ", AbslView(format), "'s text is over the limit of ",
          options_.max_text_bytes, " bytes"));
  }
  stop(false);
  return absl::InternalError("extraction child: unknown answer");
}

}  // namespace neardup::extract
