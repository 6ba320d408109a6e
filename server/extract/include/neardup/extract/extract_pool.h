#ifndef NEARDUP_EXTRACT_EXTRACT_POOL_H_
#define NEARDUP_EXTRACT_EXTRACT_POOL_H_

// Extraction of untrusted HTML, Markdown and PDF in sandboxed child
// processes, so that no input can take the calling process down or hold it:
// each child runs one parse at a time under a memory limit (RLIMIT_DATA) and
// the pool's wall-clock timeout, confined by EnterSandbox (no files, no
// network, no new processes, no executable memory). A child that runs over
// its time is killed; one that runs out of memory or crashes answers or dies
// alone; either is started again for the next request. At most `workers`
// parses run at once, which bounds their memory in all to `workers` times
// `memory_bytes_per_worker`; a request that finds every worker busy is
// refused at once (RESOURCE_EXHAUSTED), never queued.
//
// Children are started on first use and reused (a parse costs a socket
// round trip, not a process start), and replaced after
// `requests_per_worker` parses so that heap fragmentation cannot build up.

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "neardup/base/sync.h"
#include "neardup/extract/content_type.h"
#include "neardup/extract/markdown.h"

namespace neardup::extract {

// argv[1] that makes a neardup program run as an extraction child
// (ExtractChildMain); MaybeRunPdfChild dispatches it too.
inline constexpr char kExtractChildFlag[] = "--internal-extract-child";

struct ExtractPoolOptions {
  int workers = 2;                                     // parses at once
  size_t memory_bytes_per_worker = size_t{512} << 20;  // RLIMIT_DATA
  absl::Duration timeout = absl::Seconds(30);          // wall clock per parse
  size_t max_input_bytes = size_t{50} << 20;           // refused before parsing
  size_t max_text_bytes = size_t{16} << 20;            // more text: refused
  int requests_per_worker = 10000;  // then the child is replaced
  // The child: a program whose main calls ExtractChildMain when argv[1] is
  // kExtractChildFlag. Empty: this program (/proc/self/exe), which needs
  // MaybeRunPdfChild in its main.
  std::vector<std::string> child_argv;
};

struct ExtractPoolStats {
  uint64_t parses = 0;    // answered by a child, text or refusal
  uint64_t busy = 0;      // refused: every worker busy
  uint64_t timeouts = 0;  // children killed for running over time
  uint64_t crashes = 0;   // children that died (memory, signal)
  uint64_t started = 0;   // children started
};

class ExtractPool {
 public:
  explicit ExtractPool(ExtractPoolOptions options);
  // Kills every child.
  ~ExtractPool();
  ExtractPool(const ExtractPool&) = delete;
  ExtractPool& operator=(const ExtractPool&) = delete;

  // Names the client whose inputs this thread extracts until it goes out of
  // scope: a child only ever parses one client's inputs (a child
  // compromised by a hostile file must not see another client's documents),
  // so a child is replaced when the next input is another client's.
  class ScopedPrincipal {
   public:
    explicit ScopedPrincipal(std::string_view principal);
    ~ScopedPrincipal();
    ScopedPrincipal(const ScopedPrincipal&) = delete;
    ScopedPrincipal& operator=(const ScopedPrincipal&) = delete;

   private:
    std::string_view previous_;
  };

  // The text of `content`; plain text comes back as it is. INVALID_ARGUMENT
  // (naming the content type and the limit) for an input that is not what it
  // says, too large, too slow, too hungry, or that crashes its parser;
  // RESOURCE_EXHAUSTED when every worker is busy; INTERNAL when no child can
  // be started.
  absl::StatusOr<std::string> Extract(std::string_view content,
                                      ContentType type,
                                      const MarkdownOptions& markdown = {});

  ExtractPoolStats stats() const;
  const ExtractPoolOptions& options() const { return options_; }
  // Process ids of the children running now (for tests of the sandbox).
  std::vector<pid_t> ChildPids() const;

 private:
  struct Worker;
  // A free worker's index (one whose child parsed `principal`'s inputs
  // first), or -1 when all are busy.
  int Acquire(std::string_view principal);
  void Release(int index);

  const ExtractPoolOptions options_;
  mutable Mutex mu_;
  std::vector<bool> busy_ ABSL_GUARDED_BY(mu_);
  // Each worker is used by the one thread that acquired it.
  std::vector<std::unique_ptr<Worker>> workers_;
  std::atomic<uint64_t> parses_{0}, busy_refusals_{0}, timeouts_{0},
      crashes_{0}, started_{0};
};

// The child's main: sets up the sandbox, then answers requests on stdin
// until it is closed. argv: program, kExtractChildFlag, memory bytes, max
// input bytes, max text bytes.
inline constexpr int kChildCpuSeconds = 900;  // RLIMIT_CPU of its whole life
int ExtractChildMain(int argc, char** argv);

}  // namespace neardup::extract

#endif  // NEARDUP_EXTRACT_EXTRACT_POOL_H_
