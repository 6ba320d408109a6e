#include "batch_reader.h"

#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"

namespace neardup::dedup {
namespace {

constexpr uint64_t kMaxDocs = 0xFFFFFFFFull;  // ids are 32-bit
constexpr size_t kTypicalRecordSlack = 64 << 10;

}  // namespace

absl::StatusOr<std::vector<dataset::InputFile>> ListDedupInputs(
    const DedupOptions& options) {
  dataset::DatasetOptions input = options.input;
  if (options.stream) input.inputs = {"-"};
  if (input.inputs.empty()) {
    return absl::InvalidArgumentError("no input files (or use --stream)");
  }
  ASSIGN_OR_RETURN(std::vector<dataset::InputFile> files,
                   dataset::ListInputFiles(input));
  for (const dataset::InputFile& file : files) {
    if (file.format != files.front().format) {
      return absl::InvalidArgumentError(absl::StrCat(
          file.path, " is ", dataset::FormatName(file.format), " but ",
          files.front().path, " is ", dataset::FormatName(files.front().format),
          "; one run writes one format"));
    }
  }
  return files;
}

absl::StatusOr<bool> BatchReader::Fill(size_t max_records, size_t max_bytes,
                                       Batch* batch) {
  batch->bytes.clear();
  batch->records.clear();
  // Most batches end just past max_bytes: size the buffer once so that it
  // is neither regrown (copied) nor re-faulted batch after batch.
  batch->bytes.reserve(max_bytes + kTypicalRecordSlack +
                       dataset::ExtractPadding());
  dataset::DatasetRecord record;
  while (batch->records.size() < max_records &&
         batch->bytes.size() < max_bytes) {
    ASSIGN_OR_RETURN(bool got, reader_.Next(&record));
    if (!got) break;
    if (next_doc_ >= kMaxDocs) {
      return absl::ResourceExhaustedError(
          "more than 4294967295 records; split the input");
    }
    batch->records.push_back({batch->bytes.size(), record.bytes.size(),
                              record.line, record.file,
                              static_cast<uint32_t>(next_doc_++)});
    batch->bytes.append(record.bytes);
  }
  batch->bytes.append(dataset::ExtractPadding(), '\0');
  return !batch->records.empty();
}

}  // namespace neardup::dedup
