#include "staged/staged_files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"

namespace neardup::dedup::staged {
namespace {

constexpr char kMagic[8] = {'n', 'd', 's', 't', 'a', 'g', 'e', '\0'};
constexpr size_t kWriteBuffer = 1 << 20;

absl::Status ErrnoError(const char* what, const std::string& path) {
  return absl::DataLossError(
      absl::StrCat("cannot ", what, " ", path, ": ", std::strerror(errno)));
}

absl::Status WriteAll(int fd, const char* data, size_t size,
                      const std::string& path) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("write", path);
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

std::string Header(FileKind kind) {
  std::string header(kMagic, sizeof(kMagic));
  const uint32_t fields[2] = {kFormatVersion, static_cast<uint32_t>(kind)};
  header.append(reinterpret_cast<const char*>(fields), sizeof(fields));
  return header;
}

// Unique: two runs of one task at once (a requeued job, a runner that died
// while its tasks ran on) never write or remove each other's.
std::string TempNameFor(const std::string& path) {
  static std::atomic<uint64_t> next{0};
  static const std::string host = [] {
    char name[256] = {};
    ::gethostname(name, sizeof(name) - 1);
    return std::string(name);
  }();
  return absl::StrCat(path, ".tmp-", host, "-", ::getpid(), "-", next++);
}

}  // namespace

absl::StatusOr<FileWriter> FileWriter::Create(std::string path, FileKind kind) {
  FileWriter writer;
  writer.temp_ = TempNameFor(path);
  writer.fd_ = ::open(writer.temp_.c_str(),
                      O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (writer.fd_ < 0) return ErrnoError("create", writer.temp_);
  writer.path_ = std::move(path);
  writer.buffer_ = Header(kind);
  writer.written_ = writer.buffer_.size();
  return writer;
}

FileWriter::FileWriter(FileWriter&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      path_(std::move(other.path_)),
      temp_(std::move(other.temp_)),
      buffer_(std::move(other.buffer_)),
      written_(other.written_) {}

FileWriter& FileWriter::operator=(FileWriter&& other) noexcept {
  if (this != &other) {
    this->~FileWriter();
    new (this) FileWriter(std::move(other));
  }
  return *this;
}

FileWriter::~FileWriter() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(temp_.c_str());
  }
}

absl::Status FileWriter::Write(const void* data, size_t size) {
  buffer_.append(static_cast<const char*>(data), size);
  written_ += size;
  if (buffer_.size() >= kWriteBuffer) return Flush();
  return absl::OkStatus();
}

absl::Status FileWriter::Flush() {
  RETURN_IF_ERROR(WriteAll(fd_, buffer_.data(), buffer_.size(), path_));
  buffer_.clear();
  return absl::OkStatus();
}

absl::Status FileWriter::Commit(bool sync) {
  RETURN_IF_ERROR(Flush());
  const std::string& temp = temp_;
  if (sync && ::fsync(fd_) != 0) return ErrnoError("sync", temp);
  const int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0) {
    ::unlink(temp.c_str());
    return ErrnoError("close", temp);
  }
  if (::rename(temp.c_str(), path_.c_str()) != 0) {
    ::unlink(temp.c_str());
    return ErrnoError("rename into place", path_);
  }
  return absl::OkStatus();
}

absl::StatusOr<FileReader> FileReader::Open(const std::string& path,
                                            FileKind kind,
                                            size_t buffer_bytes) {
  FileReader reader;
  reader.fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (reader.fd_ < 0) {
    if (errno == ENOENT) {
      return absl::NotFoundError(absl::StrCat(path, " does not exist"));
    }
    return ErrnoError("open", path);
  }
  reader.path_ = path;
  struct stat st;
  if (::fstat(reader.fd_, &st) != 0) return ErrnoError("stat", path);
  const std::string expected = Header(kind);
  std::string header(kHeaderBytes, '\0');
  const ssize_t n = ::pread(reader.fd_, header.data(), kHeaderBytes, 0);
  if (n != static_cast<ssize_t>(kHeaderBytes) ||
      header.compare(0, sizeof(kMagic), expected, 0, sizeof(kMagic)) != 0) {
    return absl::DataLossError(
        absl::StrCat(path, " is not a file of a staged dedup"));
  }
  if (header != expected) {
    return absl::FailedPreconditionError(
        absl::StrCat(path,
                     " has another format version or kind than this "
                     "build reads (made by another neardup?)"));
  }
  if (::lseek(reader.fd_, kHeaderBytes, SEEK_SET) < 0) {
    return ErrnoError("seek in", path);
  }
  reader.size_ = static_cast<uint64_t>(st.st_size) - kHeaderBytes;
  reader.buffer_.resize(std::max<size_t>(buffer_bytes, 4096));
  return reader;
}

FileReader::FileReader(FileReader&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      path_(std::move(other.path_)),
      buffer_(std::move(other.buffer_)),
      begin_(other.begin_),
      end_(other.end_),
      size_(other.size_) {}

FileReader& FileReader::operator=(FileReader&& other) noexcept {
  if (this != &other) {
    this->~FileReader();
    new (this) FileReader(std::move(other));
  }
  return *this;
}

FileReader::~FileReader() {
  if (fd_ >= 0) ::close(fd_);
}

absl::StatusOr<bool> FileReader::Read(void* data, size_t size) {
  char* out = static_cast<char*>(data);
  size_t got = 0;
  while (got < size) {
    if (begin_ == end_) {
      ssize_t n;
      do {
        n = ::read(fd_, buffer_.data(), buffer_.size());
      } while (n < 0 && errno == EINTR);
      if (n < 0) return ErrnoError("read", path_);
      if (n == 0) {
        if (got == 0) return false;
        return absl::DataLossError(
            absl::StrCat(path_, " ends inside a record (cut short?)"));
      }
      begin_ = 0;
      end_ = static_cast<size_t>(n);
    }
    const size_t take = std::min(size - got, end_ - begin_);
    std::memcpy(out + got, buffer_.data() + begin_, take);
    begin_ += take;
    got += take;
  }
  return true;
}

absl::Status FileReader::ReadAt(void* data, size_t size,
                                uint64_t offset) const {
  char* out = static_cast<char*>(data);
  uint64_t at = offset + kHeaderBytes;
  while (size > 0) {
    const ssize_t n = ::pread(fd_, out, size, static_cast<off_t>(at));
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("read", path_);
    }
    if (n == 0) {
      return absl::DataLossError(
          absl::StrCat(path_, " ends before byte ", at, " (cut short?)"));
    }
    out += n;
    at += static_cast<uint64_t>(n);
    size -= static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::Status WriteTextFile(const std::string& path, std::string_view contents) {
  const std::string temp = TempNameFor(path);
  const int fd =
      ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError("create", temp);
  absl::Status written = WriteAll(fd, contents.data(), contents.size(), temp);
  if (written.ok() && ::fsync(fd) != 0) written = ErrnoError("sync", temp);
  ::close(fd);
  if (written.ok() && ::rename(temp.c_str(), path.c_str()) != 0) {
    written = ErrnoError("rename into place", path);
  }
  if (!written.ok()) ::unlink(temp.c_str());
  return written;
}

absl::Status CopyFile(const std::string& from, const std::string& to) {
  const std::string temp = TempNameFor(to);
  std::error_code error;
  std::filesystem::copy_file(from, temp, error);
  if (!error) std::filesystem::rename(temp, to, error);
  if (error) {
    std::filesystem::remove(temp);
    return absl::DataLossError(
        absl::StrCat("cannot copy ", from, " to ", to, ": ", error.message()));
  }
  return absl::OkStatus();
}

absl::Status LinkOrCopyFile(const std::string& from, const std::string& to) {
  const std::string temp = TempNameFor(to);
  if (::link(from.c_str(), temp.c_str()) == 0) {
    const bool renamed = ::rename(temp.c_str(), to.c_str()) == 0;
    // (Renaming a link onto a link to the same file leaves both names.)
    ::unlink(temp.c_str());
    if (renamed) return absl::OkStatus();
  }
  return CopyFile(from, to);
}

absl::StatusOr<std::string> ReadTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (!std::filesystem::exists(path)) {
      return absl::NotFoundError(absl::StrCat(path, " does not exist"));
    }
    return absl::DataLossError(absl::StrCat("cannot read ", path));
  }
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

absl::Status MakeDirectories(const std::string& path) {
  std::error_code error;
  std::filesystem::create_directories(path, error);
  if (error) {
    return absl::DataLossError(
        absl::StrCat("cannot create ", path, ": ", error.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<TaskLock> TaskLock::Acquire(const std::string& path) {
  TaskLock lock;
  lock.fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock.fd_ < 0) return ErrnoError("create", path);
  if (::flock(lock.fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      return absl::AbortedError(
          absl::StrCat("this task is running elsewhere (", path,
                       " is locked): it was started twice"));
    }
    // A filesystem without locks (Lustre mounted noflock, NFS without
    // lockd): the task runs unguarded, as temporary names still keep two
    // runs apart.
    if (errno != ENOSYS && errno != ENOLCK && errno != EOPNOTSUPP) {
      return ErrnoError("lock", path);
    }
  }
  return lock;
}

TaskLock::TaskLock(TaskLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)) {}

TaskLock::~TaskLock() {
  if (fd_ >= 0) ::close(fd_);  // lets go of the lock
}

}  // namespace neardup::dedup::staged
