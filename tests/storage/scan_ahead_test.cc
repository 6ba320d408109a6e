// ScanAhead: which table files a scan of a key range reads, in what order,
// and that the advice stays the given number of bytes ahead of the scan.

#include "neardup/storage/internal/scan_ahead.h"

#include <gtest/gtest.h>

#include <filesystem>
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
  // Files of `bytes` each (sparse): keys k0-k1, k2-k3, ...
  std::vector<AheadFile> Files(int count, uint64_t bytes) {
    std::vector<AheadFile> files;
    for (int i = 0; i < count; ++i) {
      const std::string path = absl::StrCat(dir_.path(), "/", i, ".sst");
      std::ofstream(path).close();
      std::filesystem::resize_file(path, bytes);
      files.push_back({path, absl::StrCat("k", 2 * i),
                       absl::StrCat("k", 2 * i + 1), bytes});
    }
    return files;
  }

  neardup::testing::TempDir dir_;
};

TEST_F(ScanAheadTest, StaysTheLeadAheadOfTheScan) {
  ScanAhead ahead(Files(5, 100), /*lead_bytes=*/250);
  ahead.WaitUntilCaughtUp();
  EXPECT_EQ(ahead.bytes_advised(),
            (std::vector<uint64_t>{100, 100, 100, 0, 0}));  // 300, not 200
  // Into the second file: the first two no longer count, the third does.
  ahead.At("k2");
  ahead.WaitUntilCaughtUp();
  EXPECT_EQ(ahead.bytes_advised(),
            (std::vector<uint64_t>{100, 100, 100, 100, 100}));
}

TEST_F(ScanAheadTest, AdvisesALargeFileAStepAtATime) {
  // The kernel reads at most a few MB per advice: a 64 MB table file is
  // advised in steps, each counted against the lead.
  const uint64_t step = ScanAhead::kStepBytes;
  {
    ScanAhead ahead(Files(2, 3 * step + 5), /*lead_bytes=*/2 * step);
    ahead.WaitUntilCaughtUp();
    EXPECT_EQ(ahead.bytes_advised(), (std::vector<uint64_t>{2 * step, 0}));
    ahead.At("k0");  // in the first file: it no longer counts
    ahead.WaitUntilCaughtUp();
    EXPECT_EQ(ahead.bytes_advised(),
              (std::vector<uint64_t>{3 * step + 5, 2 * step}));
  }
  ScanAhead all(Files(2, 3 * step + 5), /*lead_bytes=*/100 * step);
  all.WaitUntilCaughtUp();
  EXPECT_EQ(all.bytes_advised(),
            (std::vector<uint64_t>{3 * step + 5, 3 * step + 5}));
}

TEST_F(ScanAheadTest, AFileGoneMeanwhileIsPassedOver) {
  std::vector<AheadFile> files = Files(3, 100);
  files[1].path = absl::StrCat(files[1].path, ".removed");
  ScanAhead ahead(std::move(files), /*lead_bytes=*/1000);
  ahead.WaitUntilCaughtUp();
  EXPECT_EQ(ahead.bytes_advised(), (std::vector<uint64_t>{100, 0, 100}));
}

TEST_F(ScanAheadTest, StopsWhileWaitingForTheScan) {
  ScanAhead ahead(Files(5, 100), /*lead_bytes=*/1);
  ahead.WaitUntilCaughtUp();
  EXPECT_EQ(ahead.bytes_advised(), (std::vector<uint64_t>{100, 0, 0, 0, 0}));
  // The destructor ends the wait for a scan that will not move on.
}

TEST_F(ScanAheadTest, NoFiles) {
  ScanAhead ahead({}, /*lead_bytes=*/1);
  ahead.WaitUntilCaughtUp();
  EXPECT_TRUE(ahead.bytes_advised().empty());
}

}  // namespace
}  // namespace neardup::storage
