// Opening request-named paths beneath an operator's directory.

#include "neardup/base/beneath.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace neardup {
namespace {

namespace fs = std::filesystem;

class BeneathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = temp_.path() + "/root";
    fs::create_directories(root_ + "/sub");
    temp_.Write("root/sub/model.bin", "inside");
    temp_.Write("secret", "outside");
    fs::create_symlink(temp_.path() + "/secret", root_ + "/escape");
    fs::create_symlink("sub/model.bin", root_ + "/alias");
  }
  std::string Read(const UniqueFd& fd) {
    char buffer[64] = {};
    const ssize_t n = pread(fd.get(), buffer, sizeof(buffer), 0);
    return std::string(buffer, n > 0 ? static_cast<size_t>(n) : 0);
  }
  testing::TempDir temp_;
  std::string root_;
};

TEST_F(BeneathTest, OpensWhatIsInside) {
  ASSERT_OK_AND_ASSIGN(UniqueFd fd,
                       OpenBeneath(root_, "sub/model.bin", O_RDONLY));
  EXPECT_EQ(Read(fd), "inside");
  // A symlink that stays inside is followed.
  ASSERT_OK_AND_ASSIGN(UniqueFd alias, OpenBeneath(root_, "alias", O_RDONLY));
  EXPECT_EQ(Read(alias), "inside");
  // The descriptor's path names the same file.
  ASSERT_OK_AND_ASSIGN(UniqueFd again,
                       OpenBeneath(root_, "sub/model.bin", O_RDONLY));
  EXPECT_TRUE(fs::equivalent(again.ProcPath(), root_ + "/sub/model.bin"));
}

TEST_F(BeneathTest, NeverLeavesTheDirectory) {
  for (const char* path : {"../secret", "sub/../../secret", "escape"}) {
    const absl::Status status = OpenBeneath(root_, path, O_RDONLY).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << path;
    EXPECT_THAT(status.message(), ::testing::HasSubstr("outside")) << path;
  }
  EXPECT_EQ(
      OpenBeneath(root_, temp_.path() + "/secret", O_RDONLY).status().code(),
      absl::StatusCode::kInvalidArgument);  // absolute
  EXPECT_EQ(OpenBeneath(root_, "missing.bin", O_RDONLY).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(OpenBeneath(root_ + "/nope", "x", O_RDONLY).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace neardup
