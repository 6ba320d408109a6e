#include "neardup/dedup/run_stats.h"

#include <sys/resource.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>

#include "neardup/base/json.h"

namespace neardup::dedup {

std::string RunStats::ToJson() const {
  const double s = seconds > 0 ? seconds : 1e-9;
  nlohmann::ordered_json json = {
      {"method", algorithm},
      {"verification", verify},
      // The names before --method and --verification: they go in the
      // release after next.
      {"algorithm", algorithm},
      {"verify", verify},
      {"total", total},
      {"unique", unique},
      {"duplicates", duplicates},
      {"duplicate_ratio", Rounded(duplicate_ratio(), 6)},
      {"empty", empty},
      {"invalid", invalid},
      {"input_bytes", input_bytes},
      {"seconds", Rounded(seconds, 3)},
      {"docs_per_second", static_cast<uint64_t>(std::llround(total / s))},
      {"mb_per_second", Rounded(input_bytes / 1e6 / s, 2)},
      {"peak_rss_bytes", peak_rss_bytes},
  };
  if (method_stats.is_object()) json.update(method_stats);
  return ToJsonText(json) + "\n";
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
