#include "neardup/storage/internal/scan_ahead.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

namespace neardup::storage {

std::vector<AheadFile> FilesOfRange(const rocksdb::ColumnFamilyMetaData& meta,
                                    std::string_view begin,
                                    std::string_view end) {
  std::vector<AheadFile> files;
  for (const rocksdb::LevelMetaData& level : meta.levels) {
    for (const rocksdb::SstFileMetaData& file : level.files) {
      // Keys in [begin, end) only if largest >= begin and smallest < end.
      if (std::string_view(file.largestkey) < begin ||
          std::string_view(file.smallestkey) >= end) {
        continue;
      }
      std::string path = file.directory;
      if (!file.relative_filename.empty() && file.relative_filename[0] != '/') {
        path += '/';
      }
      path += file.relative_filename;
      files.push_back(
          {std::move(path), file.smallestkey, file.largestkey, file.size});
    }
  }
  std::stable_sort(files.begin(), files.end(),
                   [](const AheadFile& a, const AheadFile& b) {
                     return a.smallest < b.smallest;
                   });
  return files;
}

ScanAhead::ScanAhead(std::vector<AheadFile> files, uint64_t lead_bytes)
    : files_(std::move(files)),
      lead_bytes_(lead_bytes),
      thread_([this] { Run(); }) {}

ScanAhead::~ScanAhead() {
  {
    MutexLock lock(&mu_);
    stop_ = true;
  }
  changed_.SignalAll();
  thread_.join();
}

void ScanAhead::At(std::string_view key) {
  {
    MutexLock lock(&mu_);
    key_.assign(key.data(), key.size());
  }
  changed_.SignalAll();
}

size_t ScanAhead::files_advised() const {
  MutexLock lock(&mu_);
  return advised_;
}

void ScanAhead::WaitUntilCaughtUp() const {
  MutexLock lock(&mu_);
  while (!CaughtUpLocked()) changed_.Wait(&mu_);
}

uint64_t ScanAhead::AheadBytesLocked() const {
  uint64_t bytes = 0;
  for (size_t i = 0; i < advised_; ++i) {
    if (files_[i].largest >= key_) bytes += files_[i].bytes;
  }
  return bytes;
}

bool ScanAhead::CaughtUpLocked() const {
  return advised_ == files_.size() || AheadBytesLocked() >= lead_bytes_;
}

void ScanAhead::Run() {
  while (true) {
    std::string path;
    {
      MutexLock lock(&mu_);
      while (!stop_ && CaughtUpLocked()) {
        if (advised_ == files_.size()) return;
        changed_.Wait(&mu_);
      }
      if (stop_) return;
      path = files_[advised_].path;
    }
    // Failures change nothing but speed: a file a compaction has removed
    // meanwhile is read by nobody.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      ::posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED);
      ::close(fd);
    }
    {
      MutexLock lock(&mu_);
      ++advised_;
    }
    changed_.SignalAll();
  }
}

}  // namespace neardup::storage
