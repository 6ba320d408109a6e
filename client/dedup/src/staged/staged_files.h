#ifndef NEARDUP_CLIENT_DEDUP_SRC_STAGED_STAGED_FILES_H_
#define NEARDUP_CLIENT_DEDUP_SRC_STAGED_STAGED_FILES_H_

// The files staged dedup tasks hand to each other: binary files of
// fixed-size records behind a 16-byte header (magic "ndstage", a format
// version and the file's kind), written under a temporary name and renamed
// when complete, so that a file a task left is always whole.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace neardup::dedup::staged {

// What a file holds; stored in its header and checked when it is opened.
enum class FileKind : uint32_t {
  kDocs = 1,          // DocEntry per record of a signatures part
  kBandTags = 2,      // per document: its number in the part, then its tags
  kSlots = 3,         // per record: the low 16 bits of each MinHash slot
  kSets = 4,          // shingle-hash sets, back to back (sorted, distinct)
  kSetIndex = 5,      // per record: where its set starts, then the end
  kPairs = 6,         // DocPair, sorted and distinct
  kEdges = 7,         // Edge, sorted by (later, earlier)
  kKeep = 8,          // a bit per record of a part: written to the output
  kRun = 9,           // a spilled sorted run
  kHeader = 10,       // a part's CSV/TSV header, as read (empty otherwise)
  kTwins = 11,        // Twin, by member
  kTwinLeaders = 12,  // TwinLeader, by leader
};
inline constexpr uint32_t kFormatVersion = 1;
inline constexpr size_t kHeaderBytes = 16;

// Writes `path` through a temporary file of its own next to it; Commit()
// renames it into place. A writer destroyed uncommitted removes its
// temporary file.
class FileWriter {
 public:
  static absl::StatusOr<FileWriter> Create(std::string path, FileKind kind);
  FileWriter(FileWriter&& other) noexcept;
  FileWriter& operator=(FileWriter&& other) noexcept;
  ~FileWriter();

  absl::Status Write(const void* data, size_t size);
  template <typename T>
  absl::Status Put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    return Write(&value, sizeof(T));
  }
  // Flushes, syncs (unless told not to: scratch files), closes and renames.
  absl::Status Commit(bool sync = true);
  // Bytes after the header.
  uint64_t size() const { return written_ - kHeaderBytes; }

 private:
  FileWriter() = default;
  absl::Status Flush();

  int fd_ = -1;
  std::string path_;
  std::string temp_;  // "<path>.tmp-<pid>-<n>"
  std::string buffer_;
  uint64_t written_ = 0;
};

// An exclusive lock on a task (flock on a file next to its manifest), held
// while it runs: a second run of the same task at once is refused.
class TaskLock {
 public:
  static absl::StatusOr<TaskLock> Acquire(const std::string& path);
  TaskLock(TaskLock&& other) noexcept;
  TaskLock& operator=(TaskLock&&) = delete;
  ~TaskLock();

 private:
  TaskLock() = default;
  int fd_ = -1;
};

// Reads a file FileWriter wrote, checking its header's kind and version.
class FileReader {
 public:
  static absl::StatusOr<FileReader> Open(const std::string& path, FileKind kind,
                                         size_t buffer_bytes = 1 << 20);
  FileReader(FileReader&& other) noexcept;
  FileReader& operator=(FileReader&& other) noexcept;
  ~FileReader();

  // The next `size` bytes: false at the end of the file, DATA_LOSS when it
  // ends inside them.
  absl::StatusOr<bool> Read(void* data, size_t size);
  template <typename T>
  absl::StatusOr<bool> Get(T* value) {
    static_assert(std::is_trivially_copyable_v<T>);
    return Read(value, sizeof(T));
  }
  // `size` bytes at `offset` after the header (unbuffered).
  absl::Status ReadAt(void* data, size_t size, uint64_t offset) const;
  // Bytes after the header.
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  FileReader() = default;

  int fd_ = -1;
  std::string path_;
  std::string buffer_;
  size_t begin_ = 0;  // unread bytes: buffer_[begin_, end_)
  size_t end_ = 0;
  uint64_t size_ = 0;
};

// `contents` into `path` through a temporary file and a rename.
absl::Status WriteTextFile(const std::string& path, std::string_view contents);
absl::StatusOr<std::string> ReadTextFile(const std::string& path);
// `from` to `to` through a temporary file and a rename.
absl::Status CopyFile(const std::string& from, const std::string& to);
// `from` as `to`: a hard link where the filesystem allows (a file never
// written again: files are replaced by renames), else a copy.
absl::Status LinkOrCopyFile(const std::string& from, const std::string& to);
// Makes `path` and its parents.
absl::Status MakeDirectories(const std::string& path);

}  // namespace neardup::dedup::staged

#endif  // NEARDUP_CLIENT_DEDUP_SRC_STAGED_STAGED_FILES_H_
