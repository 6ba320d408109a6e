// A Store on a small tmpfs that fills up: writes fail with
// RESOURCE_EXHAUSTED, reads keep working, Stats says why, writes resume
// once space is freed (no reopen), and nothing acknowledged is lost.
// Mounting needs root (CAP_SYS_ADMIN): without it the tests skip and say so.

#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "store_test_util.h"

namespace neardup::storage::testing {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kTmpfsBytes = 48 * kMiB;

// Words drawn at random: text that neither compresses nor dedups away.
std::string RandomText(std::mt19937_64& rng, size_t bytes) {
  std::string text;
  while (text.size() < bytes) {
    text += std::to_string(rng());
    text += ' ';
  }
  return text;
}

class StoreDiskFullTest : public StoreTest {
 protected:
  void SetUp() override {
    mount_point_ = temp_.path() + "/tmpfs";
    std::filesystem::create_directories(mount_point_);
    if (geteuid() != 0) {
      GTEST_SKIP() << "mounting a tmpfs needs root; run as root to test a "
                      "full disk";
    }
    const std::string options = "size=" + std::to_string(kTmpfsBytes);
    if (mount("tmpfs", mount_point_.c_str(), "tmpfs", 0, options.c_str()) !=
        0) {
      GTEST_SKIP() << "cannot mount a tmpfs (" << std::strerror(errno)
                   << "): no capability to mount in this container";
    }
    mounted_ = true;
  }

  void TearDown() override {
    store_.reset();
    if (mounted_) umount2(mount_point_.c_str(), MNT_DETACH);
  }

  std::string Dir() const { return mount_point_ + "/store"; }

  uint64_t FreeBytes() const {
    return std::filesystem::space(mount_point_).available;
  }

  // Takes all but `leave` bytes of the tmpfs.
  void FillLeaving(uint64_t leave) {
    const uint64_t free = FreeBytes();
    ASSERT_GT(free, leave);
    std::ofstream out(Ballast(), std::ios::binary);
    const std::string chunk(kMiB / 4, 'b');
    for (uint64_t left = free - leave; left > 0;) {
      const uint64_t n = std::min<uint64_t>(left, chunk.size());
      out.write(chunk.data(), static_cast<std::streamsize>(n));
      left -= n;
    }
    out.close();
    ASSERT_TRUE(out.good() || !out.bad());
  }
  std::string Ballast() const { return mount_point_ + "/ballast"; }

  void OpenWithReserve(uint64_t reserve) {
    StoreOptions options = SmallOptions();
    options.min_free_disk_bytes = reserve;
    ASSERT_OK_AND_ASSIGN(store_, Store::Open(Dir(), options));
    CollectionConfig config;
    config.store_text = true;
    ASSERT_OK_AND_ASSIGN(collection_, store_->CreateCollection("c", config));
  }

  // Puts 64 KiB documents until one fails; returns the failure. The ids
  // acknowledged are in acked_.
  absl::Status PutUntilRefused(int limit) {
    DocumentMaker maker(collection_);
    for (int i = 0; i < limit; ++i) {
      const std::string id = "doc" + std::to_string(acked_.size());
      const DocumentWrite doc = maker.Make(id, RandomText(rng_, 64 << 10));
      absl::StatusOr<PutResult> put = store_->PutDocument(collection_, doc);
      if (!put.ok()) return put.status();
      acked_.push_back({id, *doc.text});
    }
    return absl::OkStatus();
  }

  // Retries one put until space is back (the guard probes on every write
  // while the disk is full; RocksDB may still be finishing its own
  // recovery).
  absl::Status PutOnceSpaceIsBack() {
    absl::Status status;
    for (int i = 0; i < 300; ++i) {
      status = PutUntilRefused(1);
      if (status.ok()) return status;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return status;
  }

  void ExpectEveryAckedDocumentReadable(const Store& store) {
    for (const auto& [id, text] : acked_) {
      ASSERT_OK_AND_ASSIGN(StoredDocument doc,
                           store.GetDocument(collection_, id));
      ASSERT_EQ(doc.text, text) << id;
    }
  }

  std::string mount_point_;
  bool mounted_ = false;
  std::unique_ptr<Store> store_;
  CollectionRecord collection_;
  std::vector<std::pair<std::string, std::string>> acked_;
  std::mt19937_64 rng_{42};
};

TEST_F(StoreDiskFullTest, RefusesWritesBelowTheReserveAndResumesWhenFreed) {
  // The reserve holds a flush of the 4 MiB memtable budget with room to
  // spare: RocksDB itself never runs out here.
  OpenWithReserve(16 * kMiB);
  FillLeaving(20 * kMiB);
  const absl::Status refused = PutUntilRefused(1000);
  ASSERT_EQ(refused.code(), absl::StatusCode::kResourceExhausted) << refused;
  EXPECT_NE(refused.message().find("disk full"), std::string::npos) << refused;
  ASSERT_GT(acked_.size(), 10u);

  const StoreStats full = store_->Stats();
  EXPECT_TRUE(full.disk_full);
  EXPECT_NE(full.disk_full_reason.find("reserve"), std::string::npos)
      << full.disk_full_reason;
  ExpectEveryAckedDocumentReadable(*store_);
  // Deleting is how room is made: it is not refused.
  ASSERT_OK(store_->DeleteDocument(collection_, acked_.back().first));
  acked_.pop_back();

  std::filesystem::remove(Ballast());
  ASSERT_OK(PutOnceSpaceIsBack());
  EXPECT_FALSE(store_->Stats().disk_full);
  ExpectEveryAckedDocumentReadable(*store_);

  store_.reset();
  ASSERT_OK_AND_ASSIGN(store_, Store::Open(Dir(), SmallOptions()));
  ExpectEveryAckedDocumentReadable(*store_);
}

// No reserve: RocksDB itself runs out of space and stops writing. The store
// resumes it once space is back, without a reopen. Debian's RocksDB 7.8 is
// built with assertions on, and some interleavings of a real ENOSPC trip
// one (WritableFileWriter: sync_without_flush_called_) and abort the
// process: that is why the reserve exists. So the writer is a child
// process (tests/storage/disk_full_child.cc), and whatever becomes of it, a
// reopen must find every document it acknowledged.
TEST_F(StoreDiskFullTest, RunningOutOfSpaceLosesNothingAcknowledged) {
  const std::string acked_log = temp_.path() + "/acked";
  FillLeaving(3 * kMiB);
  const pid_t child = fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    execl(NEARDUP_DISK_FULL_CHILD, NEARDUP_DISK_FULL_CHILD, Dir().c_str(),
          Ballast().c_str(), acked_log.c_str(), nullptr);
    _exit(127);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  if (WIFSIGNALED(status)) {
    std::cerr << "note: the writer died of signal " << WTERMSIG(status)
              << " (RocksDB's assertion on ENOSPC); checking what it "
                 "acknowledged\n";
  } else {
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0)
        << "10: no RESOURCE_EXHAUSTED, 11: Stats not full, 12: no resume, "
           "13: still full after the resume (see disk_full_child.cc)";
  }
  std::filesystem::remove(Ballast());
  std::ifstream log(acked_log);
  for (std::string line; std::getline(log, line);) {
    const size_t tab = line.find('\t');
    ASSERT_NE(tab, std::string::npos);
    acked_.push_back({line.substr(0, tab), line.substr(tab + 1)});
  }
  ASSERT_GT(acked_.size(), 5u);
  ASSERT_OK_AND_ASSIGN(store_, Store::Open(Dir(), SmallOptions()));
  ASSERT_OK_AND_ASSIGN(collection_, store_->GetCollection("c"));
  ExpectEveryAckedDocumentReadable(*store_);
}

}  // namespace
}  // namespace neardup::storage::testing
