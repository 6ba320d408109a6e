#include "neardup/dedup/run_stats.h"

#include <sys/resource.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace neardup::dedup {

std::string RunStats::ToJson() const {
  const double s = seconds > 0 ? seconds : 1e-9;
  return absl::StrCat(
      "{\"algorithm\":\"", algorithm, "\",\"verify\":\"", verify,
      "\",\"total\":", total, ",\"unique\":", unique,
      ",\"duplicates\":", duplicates,
      ",\"duplicate_ratio\":", absl::StrFormat("%.6f", duplicate_ratio()),
      ",\"empty\":", empty, ",\"invalid\":", invalid,
      ",\"input_bytes\":", input_bytes,
      ",\"seconds\":", absl::StrFormat("%.3f", seconds),
      ",\"docs_per_second\":", absl::StrFormat("%.0f", total / s),
      ",\"mb_per_second\":", absl::StrFormat("%.2f", input_bytes / 1e6 / s),
      ",\"peak_rss_bytes\":", peak_rss_bytes, extra_json, "}\n");
}

uint64_t PeakRssBytes() {
  // VmHWM belongs to this process image. getrusage's ru_maxrss survives
  // execve, so a child of a large process would report its parent's peak.
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) {
      return std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;  // kB
    }
  }
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;  // KiB on Linux
}

}  // namespace neardup::dedup
