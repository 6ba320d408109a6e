#ifndef NEARDUP_CLIENT_DEDUP_INPUT_FILES_H_
#define NEARDUP_CLIENT_DEDUP_INPUT_FILES_H_

// The list of inputs of a run, in the order their records are numbered.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/dedup/dedup_options.h"

namespace neardup::dedup {

struct InputFile {
  std::string path;           // "-" for standard input
  std::string relative_name;  // --doc-per-file: path under its input folder
  Format format;
};

// --stream: standard input. --doc-per-file: every regular file under each
// input folder, sorted by path. Otherwise the inputs as given, which must
// all have one format (the output has one).
absl::StatusOr<std::vector<InputFile>> ListInputFiles(
    const DedupOptions& options);

}  // namespace neardup::dedup

#endif  // NEARDUP_CLIENT_DEDUP_INPUT_FILES_H_
