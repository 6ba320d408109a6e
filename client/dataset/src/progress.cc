#include "neardup/dataset/progress.h"

#include <unistd.h>

#include <cstdio>

namespace neardup::dataset {

Progress::Progress(std::string label, bool wanted, uint64_t total_bytes)
    : label_(std::move(label)),
      enabled_(wanted && ::isatty(STDERR_FILENO)),
      total_bytes_(total_bytes),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

void Progress::Update(uint64_t docs, uint64_t bytes) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(200)) return;
  last_draw_ = now;
  Draw(docs, bytes, false);
}

void Progress::Finish(uint64_t docs, uint64_t bytes) {
  if (enabled_) Draw(docs, bytes, true);
}

void Progress::Draw(uint64_t docs, uint64_t bytes, bool last) {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
          .count();
  const double rate = seconds > 0 ? docs / seconds : 0;
  const double mb = bytes / 1e6;
  char eta[32] = "";
  if (total_bytes_ > 0 && bytes > 0 && !last) {
    const double left =
        seconds * (static_cast<double>(total_bytes_) / bytes - 1);
    std::snprintf(eta, sizeof(eta), "  ETA %.0fs", left > 0 ? left : 0);
  }
  if (total_bytes_ > 0) {
    std::fprintf(stderr, "\r\033[K%s: %llu docs  %.1f/%.1f MB  %.0f docs/s%s",
                 label_.c_str(), static_cast<unsigned long long>(docs), mb,
                 total_bytes_ / 1e6, rate, eta);
  } else {
    std::fprintf(stderr, "\r\033[K%s: %llu docs  %.1f MB  %.0f docs/s",
                 label_.c_str(), static_cast<unsigned long long>(docs), mb,
                 rate);
  }
  if (last) std::fputc('\n', stderr);
  std::fflush(stderr);
}

}  // namespace neardup::dataset
