#ifndef NEARDUP_DATASET_INPUT_FILES_H_
#define NEARDUP_DATASET_INPUT_FILES_H_

// The list of inputs of a run, in the order their records are numbered.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "neardup/dataset/input_format.h"

namespace neardup::dataset {

// Where records come from and how to read them: shared by `neardup ingest`
// and `neardup dedup`, so both read a dataset the same way.
struct DatasetOptions {
  // Files ("-": standard input); folders with doc_per_file.
  std::vector<std::string> inputs;
  Format format = Format::kAuto;
  std::string field = "text";  // JSON field or CSV/TSV column of the text
  bool doc_per_file = false;   // TXT: each file is one document
  // A longer record is an error, not a buffer that grows with the input
  // (a newline-free stream would otherwise be read into memory whole).
  uint64_t max_record_bytes = kDefaultMaxRecordBytes;
};

struct InputFile {
  std::string path;           // "-" for standard input
  std::string relative_name;  // --doc-per-file: path under its input folder
  Format format;
};

// doc_per_file: every regular file under each input folder, sorted by path.
// Otherwise the inputs as given ("-" is standard input, JSONL unless
// `format` says otherwise), which must all have one format.
absl::StatusOr<std::vector<InputFile>> ListInputFiles(
    const DatasetOptions& options);

}  // namespace neardup::dataset

#endif  // NEARDUP_DATASET_INPUT_FILES_H_
