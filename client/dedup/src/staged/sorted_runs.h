#ifndef NEARDUP_CLIENT_DEDUP_SRC_STAGED_SORTED_RUNS_H_
#define NEARDUP_CLIENT_DEDUP_SRC_STAGED_SORTED_RUNS_H_

// Sorts more fixed-size records than fit the memory budget: records are
// gathered up to the budget, sorted and spilled to a run file; Merge() then
// reads the runs back in order through a heap. Nothing is spilled when the
// records fit.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"
#include "staged/staged_files.h"

namespace neardup::dedup::staged {

template <typename T>
class SortedRuns {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  // Runs are "<prefix><k>"; `budget_bytes` bounds the records held at once.
  SortedRuns(std::string prefix, uint64_t budget_bytes)
      : prefix_(std::move(prefix)),
        capacity_(std::max<uint64_t>(budget_bytes / sizeof(T), 1024)) {}
  ~SortedRuns() {
    for (const std::string& run : runs_) std::remove(run.c_str());
  }

  absl::Status Add(const T& record) {
    if (buffer_.size() >= capacity_) RETURN_IF_ERROR(Spill());
    // Untouched pages of the reservation cost no memory.
    if (buffer_.capacity() < capacity_) buffer_.reserve(capacity_);
    buffer_.push_back(record);
    return absl::OkStatus();
  }

  // Every record added, in ascending order (equal ones all given), once.
  absl::Status Merge(const std::function<absl::Status(const T&)>& consume) {
    std::sort(buffer_.begin(), buffer_.end());
    if (runs_.empty()) {
      for (const T& record : buffer_) RETURN_IF_ERROR(consume(record));
      buffer_ = {};
      return absl::OkStatus();
    }
    RETURN_IF_ERROR(Spill());
    buffer_ = {};  // the runs' readers get the budget
    // Each run's reader buffers a share of the budget.
    const size_t share = std::clamp<size_t>(
        capacity_ * sizeof(T) / (runs_.size() + 1), 64 << 10, 4 << 20);
    std::vector<FileReader> readers;
    struct Head {
      T record;
      size_t run;
      bool operator>(const Head& other) const {
        return other.record < record ||
               (!(record < other.record) && run > other.run);
      }
    };
    std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heads;
    for (size_t run = 0; run < runs_.size(); ++run) {
      ASSIGN_OR_RETURN(FileReader reader,
                       FileReader::Open(runs_[run], FileKind::kRun, share));
      readers.push_back(std::move(reader));
      T record;
      ASSIGN_OR_RETURN(const bool got, readers.back().Get(&record));
      if (got) heads.push({record, run});
    }
    while (!heads.empty()) {
      const Head head = heads.top();
      heads.pop();
      RETURN_IF_ERROR(consume(head.record));
      T record;
      ASSIGN_OR_RETURN(const bool got, readers[head.run].Get(&record));
      if (got) heads.push({record, head.run});
    }
    return absl::OkStatus();
  }

  uint64_t spilled_bytes() const { return spilled_bytes_; }

 private:
  absl::Status Spill() {
    if (buffer_.empty()) return absl::OkStatus();
    std::sort(buffer_.begin(), buffer_.end());
    const std::string path = absl::StrCat(prefix_, runs_.size());
    ASSIGN_OR_RETURN(FileWriter writer,
                     FileWriter::Create(path, FileKind::kRun));
    RETURN_IF_ERROR(writer.Write(buffer_.data(), buffer_.size() * sizeof(T)));
    RETURN_IF_ERROR(writer.Commit(/*sync=*/false));  // scratch
    runs_.push_back(path);
    spilled_bytes_ += buffer_.size() * sizeof(T);
    buffer_.clear();
    return absl::OkStatus();
  }

  std::string prefix_;
  uint64_t capacity_;  // records held before a spill
  std::vector<T> buffer_;
  std::vector<std::string> runs_;
  uint64_t spilled_bytes_ = 0;
};

}  // namespace neardup::dedup::staged

#endif  // NEARDUP_CLIENT_DEDUP_SRC_STAGED_SORTED_RUNS_H_
