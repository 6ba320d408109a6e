#ifndef NEARDUP_CLIENT_DEDUP_PROGRESS_H_
#define NEARDUP_CLIENT_DEDUP_PROGRESS_H_

// A one-line progress report on stderr, redrawn at most 5 times a second,
// and only when stderr is a terminal (logs and pipes stay clean).

#include <chrono>
#include <cstdint>

namespace neardup::dedup {

class Progress {
 public:
  // `total_bytes` 0: unknown (no ETA).
  Progress(bool wanted, uint64_t total_bytes);
  void Update(uint64_t docs, uint64_t bytes);
  void Finish(uint64_t docs, uint64_t bytes);

 private:
  void Draw(uint64_t docs, uint64_t bytes, bool last);

  bool enabled_;
  uint64_t total_bytes_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace neardup::dedup

#endif  // NEARDUP_CLIENT_DEDUP_PROGRESS_H_
