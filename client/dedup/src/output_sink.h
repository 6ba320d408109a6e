#ifndef NEARDUP_CLIENT_DEDUP_SRC_OUTPUT_SINK_H_
#define NEARDUP_CLIENT_DEDUP_SRC_OUTPUT_SINK_H_

// Where kept records go. File outputs are written to a temporary file next
// to the target and renamed over it only by Commit(): a failed run leaves the
// target untouched (and says so) instead of half-written.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace neardup::dedup {

class OutputSink {
 public:
  virtual ~OutputSink() = default;
  // `relative_name` matters only to directory outputs (--doc-per-file).
  virtual absl::Status Write(std::string_view bytes,
                             std::string_view relative_name) = 0;
  // Makes the output visible. Without it, the destructor discards it.
  virtual absl::Status Commit() = 0;
};

// A file, replaced atomically on Commit(). "-" is standard output
// (buffered; `flush_each_write` for --stream).
absl::StatusOr<std::unique_ptr<OutputSink>> OpenFileSink(
    const std::string& path, bool flush_each_write = false);
// A directory of files (TXT --doc-per-file), built under a temporary name
// and renamed into place; the target must not exist yet.
absl::StatusOr<std::unique_ptr<OutputSink>> OpenDirectorySink(
    const std::string& path);

// Writes `contents` to `path` through a temporary file and rename.
absl::Status WriteFileAtomically(const std::string& path,
                                 std::string_view contents);

}  // namespace neardup::dedup

#endif  // NEARDUP_CLIENT_DEDUP_SRC_OUTPUT_SINK_H_
