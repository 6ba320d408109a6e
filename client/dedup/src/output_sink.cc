#include "output_sink.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"

namespace neardup::dedup {
namespace {

constexpr size_t kFlushBytes = 1 << 20;

absl::Status ErrnoError(const char* what, const std::string& path) {
  return absl::DataLossError(
      absl::StrCat("cannot ", what, " ", path, ": ", std::strerror(errno)));
}

absl::Status WriteAll(int fd, std::string_view bytes, const std::string& name) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("write", name);
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

class FdSink : public OutputSink {
 public:
  // temp_path empty: writing straight to `fd` (standard output).
  FdSink(int fd, std::string path, std::string temp_path, bool flush_each)
      : fd_(fd),
        path_(std::move(path)),
        temp_path_(std::move(temp_path)),
        flush_each_(flush_each) {}

  ~FdSink() override {
    if (!temp_path_.empty() && !committed_) {
      ::close(fd_);
      ::unlink(temp_path_.c_str());
    }
  }

  absl::Status Write(std::string_view bytes, std::string_view) override {
    buffer_.append(bytes);
    if (flush_each_ || buffer_.size() >= kFlushBytes) return Flush();
    return absl::OkStatus();
  }

  absl::Status Commit() override {
    RETURN_IF_ERROR(Flush());
    if (temp_path_.empty()) return absl::OkStatus();
    if (::close(fd_) != 0) return ErrnoError("close", temp_path_);
    if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
      const absl::Status error = ErrnoError("rename to", path_);
      ::unlink(temp_path_.c_str());
      committed_ = true;
      return error;
    }
    committed_ = true;
    return absl::OkStatus();
  }

 private:
  absl::Status Flush() {
    absl::Status status = WriteAll(fd_, buffer_, path_);
    buffer_.clear();
    return status;
  }

  int fd_;
  std::string path_;
  std::string temp_path_;
  bool flush_each_;
  bool committed_ = false;
  std::string buffer_;
};

absl::StatusOr<std::pair<int, std::string>> MakeTempNextTo(
    const std::string& path) {
  std::string temp = path + ".tmp-XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) return ErrnoError("create a temporary file for", path);
  ::fchmod(fd, 0644);
  return std::make_pair(fd, temp);
}

class DirectorySink : public OutputSink {
 public:
  DirectorySink(std::string path, std::string temp_dir)
      : path_(std::move(path)), temp_dir_(std::move(temp_dir)) {}
  ~DirectorySink() override {
    if (!committed_) {
      std::error_code ec;
      std::filesystem::remove_all(temp_dir_, ec);
    }
  }

  absl::Status Write(std::string_view bytes,
                     std::string_view relative_name) override {
    const std::filesystem::path target =
        std::filesystem::path(temp_dir_) / std::string(relative_name);
    std::error_code ec;
    std::filesystem::create_directories(target.parent_path(), ec);
    if (ec) {
      return absl::DataLossError(absl::StrCat(
          "cannot create ", target.parent_path().string(), ": ", ec.message()));
    }
    const std::string name = target.string();
    const int fd =
        ::open(name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return ErrnoError("create", name);
    absl::Status status = WriteAll(fd, bytes, name);
    if (::close(fd) != 0 && status.ok()) status = ErrnoError("close", name);
    return status;
  }

  absl::Status Commit() override {
    committed_ = true;
    if (::rename(temp_dir_.c_str(), path_.c_str()) != 0) {
      const absl::Status error = ErrnoError("rename to", path_);
      std::error_code ec;
      std::filesystem::remove_all(temp_dir_, ec);
      return error;
    }
    return absl::OkStatus();
  }

 private:
  std::string path_;
  std::string temp_dir_;
  bool committed_ = false;
};

}  // namespace

absl::StatusOr<std::unique_ptr<OutputSink>> OpenFileSink(
    const std::string& path, bool flush_each_write) {
  if (path == "-") {
    return std::make_unique<FdSink>(STDOUT_FILENO, "<stdout>", "",
                                    flush_each_write);
  }
  ASSIGN_OR_RETURN(auto temp, MakeTempNextTo(path));
  return std::make_unique<FdSink>(temp.first, path, temp.second,
                                  flush_each_write);
}

absl::StatusOr<std::unique_ptr<OutputSink>> OpenDirectorySink(
    const std::string& path) {
  if (std::filesystem::exists(path)) {
    return absl::AlreadyExistsError(
        absl::StrCat(path, " exists; --doc-per-file writes a new directory"));
  }
  std::string temp = path + ".tmp-XXXXXX";
  if (::mkdtemp(temp.data()) == nullptr) {
    return ErrnoError("create a temporary directory for", path);
  }
  return std::make_unique<DirectorySink>(path, temp);
}

absl::Status WriteFileAtomically(const std::string& path,
                                 std::string_view contents) {
  ASSIGN_OR_RETURN(std::unique_ptr<OutputSink> sink, OpenFileSink(path));
  RETURN_IF_ERROR(sink->Write(contents, ""));
  return sink->Commit();
}

}  // namespace neardup::dedup
