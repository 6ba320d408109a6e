#include "neardup/storage/internal/scan_ahead.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <system_error>
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
    : files_(std::move(files)), lead_bytes_(lead_bytes) {
  MutexLock lock(&mu_);
  advised_.assign(files_.size(), 0);
  try {
    thread_ = std::thread([this] { Run(); });
  } catch (const std::system_error&) {
    done_ = true;  // the scan reads as it did without
  }
}

ScanAhead::~ScanAhead() {
  {
    MutexLock lock(&mu_);
    stop_ = true;
  }
  changed_.SignalAll();
  if (thread_.joinable()) thread_.join();
}

void ScanAhead::At(std::string_view key) {
  {
    MutexLock lock(&mu_);
    key_.assign(key.data(), key.size());
  }
  changed_.SignalAll();
}

std::vector<uint64_t> ScanAhead::bytes_advised() const {
  MutexLock lock(&mu_);
  return advised_;
}

void ScanAhead::WaitUntilCaughtUp() const {
  MutexLock lock(&mu_);
  while (!CaughtUpLocked()) changed_.Wait(&mu_);
}

uint64_t ScanAhead::AheadBytesLocked() const {
  uint64_t bytes = 0;
  for (size_t i = 0; i < files_.size(); ++i) {
    if (files_[i].smallest > key_) bytes += advised_[i];
  }
  return bytes;
}

bool ScanAhead::CaughtUpLocked() const {
  return done_ || AheadBytesLocked() >= lead_bytes_;
}

void ScanAhead::Run() {
  for (size_t i = 0; i < files_.size(); ++i) {
    // Failures change nothing but speed: a file a compaction has removed
    // meanwhile is read by nobody.
    const int fd = ::open(files_[i].path.c_str(), O_RDONLY | O_CLOEXEC);
    for (uint64_t offset = 0; fd >= 0 && offset < files_[i].bytes;) {
      {
        MutexLock lock(&mu_);
        while (!stop_ && AheadBytesLocked() >= lead_bytes_) {
          changed_.Wait(&mu_);
        }
        if (stop_) {
          ::close(fd);
          return;
        }
      }
      const uint64_t step = std::min(kStepBytes, files_[i].bytes - offset);
      ::posix_fadvise(fd, static_cast<off_t>(offset), static_cast<off_t>(step),
                      POSIX_FADV_WILLNEED);
      offset += step;
      {
        MutexLock lock(&mu_);
        advised_[i] = offset;
      }
      changed_.SignalAll();
    }
    if (fd >= 0) ::close(fd);
  }
  {
    MutexLock lock(&mu_);
    done_ = true;
  }
  changed_.SignalAll();
}

}  // namespace neardup::storage
