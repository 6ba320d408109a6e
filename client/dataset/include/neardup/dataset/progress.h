#ifndef NEARDUP_DATASET_PROGRESS_H_
#define NEARDUP_DATASET_PROGRESS_H_

// A one-line progress report on stderr, redrawn at most 5 times a second,
// and only when stderr is a terminal (logs and pipes stay clean).

#include <chrono>
#include <cstdint>
#include <string>

namespace neardup::dataset {

class Progress {
 public:
  // "label: 1200 docs  3.1/9.0 MB  4000 docs/s  ETA 2s". `total_bytes` 0:
  // unknown (no ETA).
  Progress(std::string label, bool wanted, uint64_t total_bytes);
  void Update(uint64_t docs, uint64_t bytes);
  void Finish(uint64_t docs, uint64_t bytes);

 private:
  void Draw(uint64_t docs, uint64_t bytes, bool last);

  std::string label_;
  bool enabled_;
  uint64_t total_bytes_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace neardup::dataset

#endif  // NEARDUP_DATASET_PROGRESS_H_
