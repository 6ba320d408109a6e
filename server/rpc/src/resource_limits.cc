#include "neardup/server/internal/resource_limits.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "neardup/base/absl_compat.h"

namespace neardup::server {
namespace {

std::string ReadSmallFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string_view Trim(std::string_view text) {
  return StdView(absl::StripAsciiWhitespace(AbslView(text)));
}

// The cgroup directories of this process: the v2 one ("0::/path") and the
// v1 ones of the cpu and memory controllers.
struct CgroupPaths {
  std::string unified, cpu, memory;
};

CgroupPaths ReadCgroupPaths() {
  CgroupPaths paths;
  std::istringstream lines(ReadSmallFile("/proc/self/cgroup"));
  std::string line;
  while (std::getline(lines, line)) {
    // hierarchy-id:controllers:path
    const size_t first = line.find(':');
    const size_t second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (controllers.empty()) paths.unified = path;
    for (absl::string_view c : absl::StrSplit(controllers, ',')) {
      if (c == "cpu") paths.cpu = path;
      if (c == "memory") paths.memory = path;
    }
  }
  return paths;
}

// A file of the cgroup at `path` under `root`, or of the nearest ancestor
// that has it (a container often sees its own cgroup as "/").
std::string ReadCgroupFile(const std::string& root, std::string path,
                           const std::string& file) {
  while (true) {
    std::ifstream in(root + path + "/" + file);
    if (in) {
      std::stringstream text;
      text << in.rdbuf();
      return text.str();
    }
    if (path.empty() || path == "/") return "";
    path = path.substr(0, path.rfind('/'));
  }
}

}  // namespace

std::optional<double> ParseCpuMax(std::string_view text) {
  std::vector<std::string> parts =
      absl::StrSplit(AbslView(Trim(text)), ' ', absl::SkipEmpty());
  double quota = 0, period = 0;
  if (parts.size() != 2 || parts[0] == "max" ||
      !absl::SimpleAtod(parts[0], &quota) ||
      !absl::SimpleAtod(parts[1], &period) || quota <= 0 || period <= 0) {
    return std::nullopt;
  }
  return quota / period;
}

std::optional<double> ParseCfsQuota(std::string_view quota,
                                    std::string_view period) {
  double q = 0, p = 0;
  if (!absl::SimpleAtod(AbslView(Trim(quota)), &q) ||
      !absl::SimpleAtod(AbslView(Trim(period)), &p) || q <= 0 || p <= 0) {
    return std::nullopt;
  }
  return q / p;
}

std::optional<size_t> ParseMemoryLimit(std::string_view text) {
  uint64_t bytes = 0;
  if (!absl::SimpleAtoi(AbslView(Trim(text)), &bytes)) return std::nullopt;
  // cgroup v1 writes "no limit" as the largest page-aligned 63-bit value.
  if (bytes == 0 || bytes >= (uint64_t{1} << 62)) return std::nullopt;
  return static_cast<size_t>(bytes);
}

ResourceLimits DetectResourceLimits() {
  ResourceLimits limits;
  limits.cpus = std::max(1u, std::thread::hardware_concurrency());
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  limits.memory_bytes =
      pages > 0 && page_size > 0
          ? static_cast<size_t>(pages) * static_cast<size_t>(page_size)
          : size_t{4} << 30;
  const CgroupPaths paths = ReadCgroupPaths();
  std::optional<double> cpus;
  std::optional<size_t> memory;
  if (!paths.unified.empty()) {
    cpus =
        ParseCpuMax(ReadCgroupFile("/sys/fs/cgroup", paths.unified, "cpu.max"));
    memory = ParseMemoryLimit(
        ReadCgroupFile("/sys/fs/cgroup", paths.unified, "memory.max"));
  }
  if (!cpus && !paths.cpu.empty()) {
    for (const char* root :
         {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"}) {
      cpus =
          ParseCfsQuota(ReadCgroupFile(root, paths.cpu, "cpu.cfs_quota_us"),
                        ReadCgroupFile(root, paths.cpu, "cpu.cfs_period_us"));
      if (cpus) break;
    }
  }
  if (!memory && !paths.memory.empty()) {
    memory = ParseMemoryLimit(ReadCgroupFile(
        "/sys/fs/cgroup/memory", paths.memory, "memory.limit_in_bytes"));
  }
  if (cpus && *cpus < limits.cpus) {
    limits.cpus = *cpus;
    limits.cpus_from_cgroup = true;
  }
  if (memory && *memory < limits.memory_bytes) {
    limits.memory_bytes = *memory;
    limits.memory_from_cgroup = true;
  }
  return limits;
}

ExtractSizing SizeExtraction(const ResourceLimits& limits, int workers,
                             size_t memory_bytes) {
  constexpr size_t kMiB = size_t{1} << 20;
  constexpr size_t kMinPerWorker = 128 * kMiB;
  ExtractSizing sizing;
  sizing.memory_bytes = memory_bytes > 0 ? memory_bytes
                                         : std::clamp(limits.memory_bytes / 4,
                                                      256 * kMiB, 2048 * kMiB);
  if (workers > 0) {
    sizing.workers = workers;
  } else {
    const int cores = static_cast<int>(std::ceil(limits.cpus));
    const int by_memory = static_cast<int>(sizing.memory_bytes / kMinPerWorker);
    sizing.workers = std::clamp(std::min(cores, by_memory), 1, 8);
  }
  return sizing;
}

}  // namespace neardup::server
