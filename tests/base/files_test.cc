#include "neardup/base/files.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "neardup/base/status_macros.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace neardup {
namespace {

using ::testing::HasSubstr;

TEST(ReadFile, ReturnsTheBytes) {
  testing::TempDir dir;
  const std::string bytes("a\0b\xff\n", 5);
  const absl::StatusOr<std::string> read = ReadFile(dir.Write("f", bytes));
  ASSERT_OK(read);
  EXPECT_EQ(*read, bytes);
}

TEST(ReadFile, MissingFileNamesThePath) {
  const absl::Status status = ReadFile("/no/such/file").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("/no/such/file"));
}

TEST(Prefixed, KeepsTheCodeAndPutsContextFirst) {
  const absl::Status status =
      Prefixed("config.yaml", absl::InvalidArgumentError("bad key"));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "config.yaml: bad key");
  EXPECT_OK(Prefixed("x", absl::OkStatus()));
}

}  // namespace
}  // namespace neardup
