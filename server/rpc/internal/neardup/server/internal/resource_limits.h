#ifndef NEARDUP_SERVER_INTERNAL_RESOURCE_LIMITS_H_
#define NEARDUP_SERVER_INTERNAL_RESOURCE_LIMITS_H_

// The CPU and memory this process may use: its cgroup's limits (a
// container's or pod's, v2 or v1) where set, else the machine's. Sizes what
// scales with the machine (extraction workers and their memory) to what the
// pod was given, not to the node it landed on.

#include <cstddef>
#include <optional>
#include <string_view>

namespace neardup::server {

struct ResourceLimits {
  double cpus = 1;          // cores (a quota of 1.5 cores is 1.5)
  size_t memory_bytes = 0;  // bytes
  bool cpus_from_cgroup = false;
  bool memory_from_cgroup = false;
};

// Reads /proc/self/cgroup and the cgroup files it points to.
ResourceLimits DetectResourceLimits();

// Parsers of the cgroup files, for tests. Unset: no limit.
// v2 cpu.max: "max 100000" or "150000 100000".
std::optional<double> ParseCpuMax(std::string_view text);
// v1 cpu.cfs_quota_us and cpu.cfs_period_us: quota -1 is no limit.
std::optional<double> ParseCfsQuota(std::string_view quota,
                                    std::string_view period);
// v2 memory.max ("max" or bytes), v1 memory.limit_in_bytes (bytes; values
// near 2^63 mean no limit).
std::optional<size_t> ParseMemoryLimit(std::string_view text);

// Extraction sizing from the limits: workers (one per core, at least one,
// at most 8) and the memory all of them may hold (a quarter of the memory
// limit, between 256 MiB and 2 GiB), each worker at least 128 MiB.
struct ExtractSizing {
  int workers = 1;
  size_t memory_bytes = 0;  // in all
};
ExtractSizing SizeExtraction(const ResourceLimits& limits, int workers,
                             size_t memory_bytes);

}  // namespace neardup::server

#endif  // NEARDUP_SERVER_INTERNAL_RESOURCE_LIMITS_H_
