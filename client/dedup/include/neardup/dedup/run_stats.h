#ifndef NEARDUP_DEDUP_RUN_STATS_H_
#define NEARDUP_DEDUP_RUN_STATS_H_

// Counters of one dedup run and their JSON form (--stats).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace neardup::dedup {

struct RunStats {
  uint64_t total = 0;       // records read
  uint64_t unique = 0;      // records written
  uint64_t duplicates = 0;  // removed as near-duplicates
  uint64_t empty = 0;       // no tokens (kept unless --drop-empty)
  uint64_t invalid = 0;     // malformed, skipped (--skip-invalid)
  uint64_t input_bytes = 0;
  double seconds = 0;
  uint64_t peak_rss_bytes = 0;
  std::string algorithm;
  std::string verify;
  nlohmann::ordered_json method_stats;  // the algorithm's own figures

  double duplicate_ratio() const {
    return total ? static_cast<double>(duplicates) / total : 0.0;
  }
  std::string ToJson() const;
};

// Peak resident set size of this process (VmHWM), in bytes.
uint64_t PeakRssBytes();

}  // namespace neardup::dedup

#endif  // NEARDUP_DEDUP_RUN_STATS_H_
