// ScanAhead: which table files a scan of a key range reads, in what order,
// and that the advice stays the given number of bytes ahead of the scan.

#include "neardup/storage/internal/scan_ahead.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "support/temp_dir.h"

namespace neardup::storage {
namespace {

rocksdb::SstFileMetaData File(std::string name, std::string smallest,
                              std::string largest, uint64_t size) {
  rocksdb::SstFileMetaData file;
  file.relative_filename = std::move(name);
  file.directory = "/db";
  file.smallestkey = std::move(smallest);
  file.largestkey = std::move(largest);
  file.size = size;
  return file;
}

std::vector<std::string> Paths(const std::vector<AheadFile>& files) {
  std::vector<std::string> paths;
  for (const AheadFile& file : files) paths.push_back(file.path);
  return paths;
}

TEST(FilesOfRangeTest, EveryLevelsFilesWithKeysInRangeBySmallestKey) {
  rocksdb::ColumnFamilyMetaData meta;
  meta.levels.emplace_back(0, 10, std::vector{File("9.sst", "b", "c", 10)});
  meta.levels.emplace_back(1, 0, std::vector<rocksdb::SstFileMetaData>{});
  meta.levels.emplace_back(
      2, 30,
      std::vector{File("1.sst", "a", "b1", 10), File("2.sst", "b2", "d", 10),
                  File("3.sst", "e", "f", 10)});
  // [b, e): 1.sst ends inside it, 3.sst starts at its end.
  EXPECT_EQ(Paths(FilesOfRange(meta, "b", "e")),
            (std::vector<std::string>{"/db/1.sst", "/db/9.sst", "/db/2.sst"}));
  EXPECT_EQ(Paths(FilesOfRange(meta, "x", "y")), std::vector<std::string>{});
}

class ScanAheadTest : public ::testing::Test {
 protected:
  // Five files of 100 bytes: keys k0-k1, k2-k3, ... k8-k9.
  std::vector<AheadFile> Files() {
    std::vector<AheadFile> files;
    for (int i = 0; i < 5; ++i) {
      const std::string path = absl::StrCat(dir_.path(), "/", i, ".sst");
      std::ofstream(path) << std::string(100, 'x');
      files.push_back(
          {path, absl::StrCat("k", 2 * i), absl::StrCat("k", 2 * i + 1), 100});
    }
    return files;
  }

  neardup::testing::TempDir dir_;
};

TEST_F(ScanAheadTest, StaysTheLeadAheadOfTheScan) {
  ScanAhead ahead(Files(), /*lead_bytes=*/250);
  ahead.WaitUntilCaughtUp();
  EXPECT_EQ(ahead.files_advised(), 3u);  // 300 bytes ahead, not 200
  ahead.At("k2");                        // past the first file: 200 bytes ahead
  ahead.WaitUntilCaughtUp();
  EXPECT_EQ(ahead.files_advised(), 4u);
  ahead.At("k3");  // still in the second file
  ahead.WaitUntilCaughtUp();
  EXPECT_EQ(ahead.files_advised(), 4u);
  ahead.At("k9");
  ahead.WaitUntilCaughtUp();
  EXPECT_EQ(ahead.files_advised(), 5u);
}

TEST_F(ScanAheadTest, AFileGoneMeanwhileIsPassedOver) {
  std::vector<AheadFile> files = Files();
  files[1].path = absl::StrCat(files[1].path, ".removed");
  ScanAhead ahead(std::move(files), /*lead_bytes=*/1000);
  ahead.WaitUntilCaughtUp();
  EXPECT_EQ(ahead.files_advised(), 5u);
}

TEST_F(ScanAheadTest, StopsWhileWaitingForTheScan) {
  ScanAhead ahead(Files(), /*lead_bytes=*/1);
  ahead.WaitUntilCaughtUp();
  EXPECT_EQ(ahead.files_advised(), 1u);
  // The destructor ends the wait for a scan that will not move on.
}

TEST_F(ScanAheadTest, NoFiles) {
  ScanAhead ahead({}, /*lead_bytes=*/1);
  ahead.WaitUntilCaughtUp();
  EXPECT_EQ(ahead.files_advised(), 0u);
}

}  // namespace
}  // namespace neardup::storage
