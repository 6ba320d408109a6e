#ifndef NEARDUP_STORAGE_INTERNAL_SCAN_AHEAD_H_
#define NEARDUP_STORAGE_INTERNAL_SCAN_AHEAD_H_

// Asks the kernel to read a scan's table files into the page cache ahead
// of the scan, from a thread of its own. A rebuild at start scans ~1 KB of
// signature per document: with the page cache cold (after a reboot) the one
// scanning thread waited on each read and filled the page cache itself
// (10M documents: 28-30 s to SERVING, 16-17 s warm). Reading the same data
// through a second iterator copied it all a second time and was slower; a
// WILLNEED advice costs no copy. Linux reads at most a few MB per advice,
// so each file is advised a step at a time. The advice stays at most
// `lead_bytes` ahead of the scan: what is advised of files that lie wholly
// after the scan's key counts (a file the key is in, or one reaching past
// the range, never would), so a store larger than memory does not evict
// its own scan.

#include <cstdint>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "neardup/base/sync.h"
#include "rocksdb/metadata.h"

namespace neardup::storage {

// A table file the scan of [begin, end) reads.
struct AheadFile {
  std::string path;
  std::string smallest;  // user keys
  std::string largest;
  uint64_t bytes = 0;
};

// The table files of every level that hold keys in [begin, end), by
// smallest key (the order the scan enters them).
std::vector<AheadFile> FilesOfRange(const rocksdb::ColumnFamilyMetaData& meta,
                                    std::string_view begin,
                                    std::string_view end);

class ScanAhead {
 public:
  // Bytes per advice.
  static constexpr uint64_t kStepBytes = uint64_t{1} << 20;

  // Starts advising `files` in order (from FilesOfRange). Without a thread
  // (none could be started), advises nothing.
  ScanAhead(std::vector<AheadFile> files, uint64_t lead_bytes);
  // Stops the thread and waits for it.
  ~ScanAhead();
  ScanAhead(const ScanAhead&) = delete;
  ScanAhead& operator=(const ScanAhead&) = delete;

  // The scan is at `key`: files that end before it are behind it.
  void At(std::string_view key);
  // Bytes advised so far of each file (tests).
  std::vector<uint64_t> bytes_advised() const;
  // Waits until the thread has advised all it may for the scan's key, or
  // everything (tests).
  void WaitUntilCaughtUp() const;

 private:
  void Run();
  // Advised bytes of the files wholly after the scan's key.
  uint64_t AheadBytesLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool CaughtUpLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::vector<AheadFile> files_;
  const uint64_t lead_bytes_;
  mutable Mutex mu_;
  mutable CondVar changed_;  // the scan moved, a step was advised, or stop_
  std::string key_ ABSL_GUARDED_BY(mu_);
  std::vector<uint64_t> advised_ ABSL_GUARDED_BY(mu_);  // bytes, per file
  bool done_ ABSL_GUARDED_BY(mu_) = false;  // all advised, or no thread
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;  // last: started once the fields above exist
};

}  // namespace neardup::storage

#endif  // NEARDUP_STORAGE_INTERNAL_SCAN_AHEAD_H_
