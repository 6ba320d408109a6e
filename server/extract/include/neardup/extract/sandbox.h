#ifndef NEARDUP_EXTRACT_SANDBOX_H_
#define NEARDUP_EXTRACT_SANDBOX_H_

// The confinement of a parser child process (HTML, Markdown, PDF): once
// EnterSandbox returns OK the process can read and write the descriptors it
// already holds (0, 1, 2), allocate memory up to its budget and exit; it
// cannot open files or sockets, start processes or threads, map executable
// memory, gain privileges or reach a network. A parser bug that lets an input
// run code therefore runs it in a process that can do nothing but answer.

#include <cstddef>
#include <string>

#include "absl/status/status.h"

namespace neardup::extract {

struct SandboxOptions {
  // RLIMIT_DATA (heap and private mappings, not the program's own code):
  // past it allocations fail. 0: no limit. Ignored under sanitizers, whose
  // shadow memory counts as data.
  size_t memory_bytes = 0;
  // RLIMIT_CPU, a backstop for a child's whole life: the parent's wall-clock
  // timeout stops each request first. 0: no limit.
  int cpu_seconds = 0;
};

// What EnterSandbox managed, for logs and tests.
struct SandboxReport {
  bool network_namespace = false;  // a new, empty network namespace
  bool seccomp = false;            // the system call allow-list is in force
};

// Call in a single-threaded child, after everything it needs from the file
// system is loaded. Closes every descriptor above 2, sets resource limits
// (no core files, no file writes, few descriptors, no new processes),
// enters a new network namespace where the kernel allows it, sets
// no_new_privs and installs the seccomp allow-list. Not undoable.
absl::Status EnterSandbox(const SandboxOptions& options,
                          SandboxReport* report = nullptr);

}  // namespace neardup::extract

#endif  // NEARDUP_EXTRACT_SANDBOX_H_
