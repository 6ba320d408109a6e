// ResolveBackupDestination: only new directories strictly inside the root.

#include "neardup/server/internal/backup_path.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace neardup::server {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class BackupPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = temp_.path() + "/backups";
    fs::create_directories(root_);
    fs::create_directories(temp_.path() + "/elsewhere");
  }
  absl::StatusCode CodeOf(const std::string& destination) {
    return ResolveBackupDestination(root_, destination).status().code();
  }

  neardup::testing::TempDir temp_;
  std::string root_;
};

TEST_F(BackupPathTest, RelativeAndAbsolutePathsInsideTheRoot) {
  ASSERT_OK_AND_ASSIGN(fs::path daily,
                       ResolveBackupDestination(root_, "2026-11-26"));
  EXPECT_EQ(daily, fs::canonical(root_) / "2026-11-26");
  ASSERT_OK_AND_ASSIGN(fs::path nested,
                       ResolveBackupDestination(root_, "a/b/./c"));
  EXPECT_EQ(nested, fs::canonical(root_) / "a/b/c");
  EXPECT_TRUE(fs::is_directory(nested.parent_path()));  // parents made
  EXPECT_FALSE(fs::exists(nested));  // the checkpoint makes the last one
  ASSERT_OK_AND_ASSIGN(fs::path absolute, ResolveBackupDestination(
                                              root_, root_ + "/x/../absolute"));
  EXPECT_EQ(absolute, fs::canonical(root_) / "absolute");
}

TEST_F(BackupPathTest, TrailingSlashNamesTheDirectory) {
  ASSERT_OK_AND_ASSIGN(fs::path nightly,
                       ResolveBackupDestination(root_, "nightly/"));
  EXPECT_EQ(nightly, fs::canonical(root_) / "nightly");
  EXPECT_FALSE(fs::exists(nightly));  // left for the checkpoint to make
}

// RocksDB stages a checkpoint in "<destination>.tmp" and empties it first.
TEST_F(BackupPathTest, RefusesADestinationWhoseStagingDirectoryExists) {
  fs::create_directories(root_ + "/nightly.tmp");
  const absl::Status refused =
      ResolveBackupDestination(root_, "nightly").status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(refused.message(), HasSubstr("nightly.tmp"));
}

TEST_F(BackupPathTest, RefusesEverythingOutsideTheRoot) {
  EXPECT_EQ(CodeOf("../elsewhere/b"), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CodeOf("a/../../b"), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CodeOf(temp_.path() + "/elsewhere/b"),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CodeOf("/etc/neardup"), absl::StatusCode::kInvalidArgument);
  // The root itself is not a new directory inside it.
  EXPECT_EQ(CodeOf("."), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CodeOf(root_), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CodeOf(""), absl::StatusCode::kInvalidArgument);
  // A sibling whose name starts like the root is outside it.
  fs::create_directories(root_ + "-evil");
  EXPECT_EQ(CodeOf(root_ + "-evil/b"), absl::StatusCode::kInvalidArgument);
  const absl::Status outside =
      ResolveBackupDestination(root_, "../elsewhere/b").status();
  EXPECT_THAT(outside.message(), HasSubstr("outside --backup-dir"));
  EXPECT_FALSE(fs::exists(temp_.path() + "/elsewhere/b"));
}

TEST_F(BackupPathTest, SymlinksAreFollowedBeforeTheCheck) {
  fs::create_directory_symlink(temp_.path() + "/elsewhere", root_ + "/link");
  EXPECT_EQ(CodeOf("link/b"), absl::StatusCode::kInvalidArgument);
  fs::create_directory_symlink(root_ + "/inner", root_ + "/inside-link");
  fs::create_directories(root_ + "/inner");
  ASSERT_OK_AND_ASSIGN(fs::path via_link,
                       ResolveBackupDestination(root_, "inside-link/b"));
  EXPECT_EQ(via_link, fs::canonical(root_) / "inner/b");
}

TEST_F(BackupPathTest, ExistingDestinationAndMissingRoot) {
  fs::create_directories(root_ + "/taken");
  EXPECT_EQ(CodeOf("taken"), absl::StatusCode::kAlreadyExists);
  // A dangling symlink is taken: writing through it could land anywhere.
  fs::create_directory_symlink(root_ + "/nothing", root_ + "/dangle");
  EXPECT_EQ(CodeOf("dangle"), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(ResolveBackupDestination("", "x").status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(ResolveBackupDestination("", "x").status().message(),
              HasSubstr("--backup-dir"));
}

}  // namespace
}  // namespace neardup::server
