// Stage "filter", one task per part: reads the part's records again and
// writes the kept ones into their place in the output (from the offset the
// clusters stage gave the part). The records must be the ones signatures
// read: their checksum is compared.

#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "batch_reader.h"
#include "neardup/base/status_macros.h"
#include "staged/stage_context.h"
#include "staged/stage_tasks.h"
#include "staged/staged_files.h"

namespace neardup::dedup::staged {
namespace {

constexpr size_t kWriteBuffer = 4 << 20;

// Writes at increasing offsets of an existing file, buffered.
class PlacedWriter {
 public:
  PlacedWriter(int fd, std::string path, uint64_t offset)
      : fd_(fd), path_(std::move(path)), offset_(offset) {}
  ~PlacedWriter() { ::close(fd_); }

  absl::Status Write(std::string_view bytes) {
    buffer_.append(bytes);
    return buffer_.size() >= kWriteBuffer ? Flush() : absl::OkStatus();
  }
  absl::Status Flush() {
    std::string_view left = buffer_;
    while (!left.empty()) {
      const ssize_t n =
          ::pwrite(fd_, left.data(), left.size(), static_cast<off_t>(offset_));
      if (n < 0) {
        if (errno == EINTR) continue;
        return absl::DataLossError(
            absl::StrCat("cannot write ", path_, ": ", std::strerror(errno)));
      }
      left.remove_prefix(static_cast<size_t>(n));
      offset_ += static_cast<uint64_t>(n);
    }
    buffer_.clear();
    return absl::OkStatus();
  }
  absl::Status Sync() {
    RETURN_IF_ERROR(Flush());
    if (::fsync(fd_) != 0) {
      return absl::DataLossError(
          absl::StrCat("cannot sync ", path_, ": ", std::strerror(errno)));
    }
    return absl::OkStatus();
  }
  uint64_t offset() const { return offset_ + buffer_.size(); }

 private:
  int fd_;
  std::string path_;
  uint64_t offset_;
  std::string buffer_;
};

}  // namespace

absl::Status RunFilterTask(const StageContext& context, int task) {
  const DedupOptions& options = context.options();
  const int part = context.InputPart(task);
  ASSIGN_OR_RETURN(const nlohmann::json signatures,
                   context.ReadManifest(Stage::kSignatures, part));
  ASSIGN_OR_RETURN(const nlohmann::json clusters,
                   context.ReadManifest(Stage::kClusters, 0));
  const uint64_t begin = clusters["offsets"][task].get<uint64_t>();
  const uint64_t end = task + 1 < static_cast<int>(clusters["offsets"].size())
                           ? clusters["offsets"][task + 1].get<uint64_t>()
                           : clusters["output_bytes"].get<uint64_t>();
  ASSIGN_OR_RETURN(FileReader keep,
                   FileReader::Open(absl::StrCat(context.Dir(Stage::kClusters),
                                                 "/keep-", part),
                                    FileKind::kKeep));
  const std::string output = StagedOutputTemp(context);
  const int fd = ::open(output.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot open ", output,
                     " (made by the clusters stage): ", std::strerror(errno)));
  }
  PlacedWriter writer(fd, output, begin);

  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> checksum(
      XXH3_createState(), &XXH3_freeState);
  XXH3_64bits_reset(checksum.get());
  const std::vector<dataset::InputFile> files = context.PartFiles(part);
  uint64_t docs = 0;
  if (!files.empty()) {
    BatchReader reader(files, options);
    RETURN_IF_ERROR(reader.Start());
    XXH3_64bits_update(checksum.get(), reader.header().data(),
                       reader.header().size());
    Batch batch;
    uint8_t bits = 0;
    while (true) {
      ASSIGN_OR_RETURN(
          const bool got,
          reader.Fill(options.batch_records, options.batch_bytes, &batch));
      if (!got) break;
      for (const RecordRef& ref : batch.records) {
        const std::string_view raw = batch.record(ref);
        XXH3_64bits_update(checksum.get(), raw.data(), raw.size());
        if (docs % 8 == 0) {
          ASSIGN_OR_RETURN(const bool more, keep.Get(&bits));
          if (!more) {
            return absl::FailedPreconditionError(absl::StrCat(
                "the inputs of filter task ", task, " (signatures part ", part,
                ")",
                " have more records than when their signatures were made; "
                "they changed: start again in a new work directory"));
          }
        }
        if (bits >> (docs % 8) & 1) {
          RETURN_IF_ERROR(writer.Write(raw));
          if (raw.empty() || raw.back() != '\n') {
            RETURN_IF_ERROR(writer.Write("\n"));
          }
        }
        ++docs;
      }
    }
  }
  const std::string sum = absl::StrCat(
      absl::Hex(XXH3_64bits_digest(checksum.get()), absl::kZeroPad16));
  if (docs != signatures.value("docs", uint64_t{0}) ||
      sum != signatures.value("checksum", "")) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the inputs of filter task ", task, " (signatures part ", part, ")",
        " changed since their signatures were made (checksum ", sum, ", was ",
        signatures.value("checksum", "?"),
        "): start again in a new work directory"));
  }
  if (writer.offset() != end) {
    return absl::DataLossError(absl::StrCat(
        "filter task ", task, " wrote up to byte ", writer.offset(),
        " of the output; the clusters stage expected ", end));
  }
  RETURN_IF_ERROR(writer.Sync());
  return context.WriteManifest(Stage::kFilter, task,
                               {{"docs", docs}, {"bytes", end - begin}});
}

}  // namespace neardup::dedup::staged
