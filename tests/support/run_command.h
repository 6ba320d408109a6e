#ifndef NEARDUP_TESTS_SUPPORT_RUN_COMMAND_H_
#define NEARDUP_TESTS_SUPPORT_RUN_COMMAND_H_

// Runs a shell command and captures its exit code and output, for tests of
// the real binaries; reads the files they write.

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include "neardup/base/files.h"

namespace neardup::testing {

struct CommandResult {
  int exit_code;
  std::string out;  // stdout and stderr together
};

inline CommandResult RunCommand(const std::string& command) {
  const std::string cmd = command + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  CommandResult r{-1, ""};
  if (pipe == nullptr) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) {
    r.out.append(buf.data(), n);
  }
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// `binary args...` through the shell (args may redirect).
inline CommandResult RunBinary(const std::string& binary,
                               const std::string& args) {
  return RunCommand(binary + " " + args);
}

// The bytes of `path`, or "" when it cannot be read (a file a failed run
// was not supposed to write reads as empty).
inline std::string FileContents(const std::string& path) {
  absl::StatusOr<std::string> bytes = ::neardup::ReadFile(path);
  return bytes.ok() ? *std::move(bytes) : std::string();
}

}  // namespace neardup::testing

#endif  // NEARDUP_TESTS_SUPPORT_RUN_COMMAND_H_
