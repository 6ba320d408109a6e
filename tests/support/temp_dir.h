#ifndef NEARDUP_TESTS_SUPPORT_TEMP_DIR_H_
#define NEARDUP_TESTS_SUPPORT_TEMP_DIR_H_

// A fresh directory per test, removed afterwards.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace neardup::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "neardup-test-XXXXXX")
            .string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // Writes `contents` to path()/name (creating the folders `name` names)
  // and returns the full path.
  std::string Write(std::string_view name, std::string_view contents) const {
    const std::string file = path_ + "/" + std::string(name);
    std::filesystem::create_directories(
        std::filesystem::path(file).parent_path());
    std::ofstream(file, std::ios::binary) << contents;
    return file;
  }

 private:
  std::string path_;
};

}  // namespace neardup::testing

#endif  // NEARDUP_TESTS_SUPPORT_TEMP_DIR_H_
