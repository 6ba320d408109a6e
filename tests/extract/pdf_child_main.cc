// The child program the extract tests spawn: what neardupd and neardup run
// as `<program> --internal-pdf-child` or `--internal-extract-child`, plus
// `--sandbox-probe`, which enters the children's sandbox and reports what
// it can still do.

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "neardup/extract/extract_pool.h"
#include "neardup/extract/pdf.h"
#include "neardup/extract/sandbox.h"

namespace {

// "ok" when the call succeeded, else its errno's name.
std::string Outcome(bool ok) { return ok ? "ok" : strerrorname_np(errno); }

int SandboxProbe(const char* readable_path) {
  neardup::extract::SandboxReport report;
  const absl::Status entered =
      neardup::extract::EnterSandbox({.memory_bytes = 256 << 20}, &report);
  if (!entered.ok()) {
    std::printf("enter=%s\n", std::string(entered.message()).c_str());
    return 1;
  }
  std::string out;
  out += "socket=" + Outcome(socket(AF_INET, SOCK_STREAM, 0) >= 0);
  out += " unix=" + Outcome(socket(AF_UNIX, SOCK_STREAM, 0) >= 0);
  out += " read=" + Outcome(open(readable_path, O_RDONLY) >= 0);
  out += " create=" + Outcome(open("/tmp/neardup-sandbox-probe",
                                   O_WRONLY | O_CREAT, 0600) >= 0);
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  if (pid > 0) waitpid(pid, nullptr, 0);
  out += " fork=" + Outcome(pid >= 0);
  void* exec = mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  out += " exec_memory=" + Outcome(exec != MAP_FAILED);
  void* data = mmap(nullptr, 4096, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  out += " memory=" + Outcome(data != MAP_FAILED);
  out += " signal_parent=" + Outcome(kill(getppid(), 0) == 0);
  out +=
      " own_socket=" + Outcome(fcntl(STDOUT_FILENO, F_SETOWN, getppid()) == 0);
  out += " stat_path=" + Outcome([] {
           struct stat st;
           return stat("/etc/passwd", &st) == 0;
         }());
  out += report.seccomp ? " seccomp=on" : " seccomp=off";
  out += "\n";
  // write(2) is allowed: the probe's only way out. _exit: a sanitizer's
  // exit-time leak check needs ptrace, which the sandbox refuses.
  _exit(write(STDOUT_FILENO, out.data(), out.size()) ==
                static_cast<ssize_t>(out.size())
            ? 0
            : 1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], neardup::extract::kPdfChildFlag) == 0) {
    return neardup::extract::PdfChildMain(argc, argv);
  }
  if (argc > 1 &&
      std::strcmp(argv[1], neardup::extract::kExtractChildFlag) == 0) {
    return neardup::extract::ExtractChildMain(argc, argv);
  }
  if (argc > 2 && std::strcmp(argv[1], "--sandbox-probe") == 0) {
    return SandboxProbe(argv[2]);
  }
  return 2;
}
