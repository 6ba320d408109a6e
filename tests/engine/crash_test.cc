// Kills a writing child process with SIGKILL at random moments, reopens the
// database and checks that every acknowledged write survived and that the
// rebuilt indexes hold exactly what the store holds.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <set>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "engine/engine_test_util.h"
#include "neardup/base/absl_compat.h"
#include "neardup/engine/database.h"
#include "support/temp_dir.h"

namespace neardup::engine {
namespace {

using storage::StoredSignatures;

using Clock = std::chrono::steady_clock;

struct ChildRun {
  std::vector<std::string> acks;  // complete lines only
};

// Starts the child, lets it write for `run_for` after its first ack, kills
// it with SIGKILL and returns every line it acknowledged.
ChildRun RunAndKill(const std::string& dir, uint64_t first,
                    std::chrono::milliseconds run_for) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    const std::string first_arg = absl::StrCat(first);
    execl(NEARDUP_CRASH_CHILD, NEARDUP_CRASH_CHILD, dir.c_str(),
          first_arg.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  std::string buffer;
  std::optional<Clock::time_point> kill_at;
  bool killed = false;
  char chunk[4096];
  while (true) {
    pollfd pfd{fds[0], POLLIN, 0};
    poll(&pfd, 1, 5);
    if (pfd.revents & (POLLIN | POLLHUP)) {
      const ssize_t n = read(fds[0], chunk, sizeof(chunk));
      if (n <= 0) break;  // the child is gone and the pipe is drained
      buffer.append(chunk, n);
      if (!kill_at) kill_at = Clock::now() + run_for;
    }
    if (!killed && kill_at && Clock::now() >= *kill_at) {
      kill(pid, SIGKILL);
      killed = true;
    }
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "child exited on its own with status " << status;
  ChildRun run;
  // A partial last line was cut by the kill: not an acknowledgement.
  const size_t complete = buffer.rfind('\n');
  if (complete == std::string::npos) return run;
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(buffer.data(), complete), '\n')) {
    run.acks.emplace_back(line);
  }
  return run;
}

TEST(CrashTest, AcknowledgedWritesSurviveSigkill) {
  neardup::testing::TempDir temp;
  const std::string dir = temp.path() + "/db";
  std::mt19937 rng(20261125);
  std::set<std::string> live, deleted;
  uint64_t next_first = 0;
  for (int round = 0; round < 5; ++round) {
    const auto run_for = std::chrono::milliseconds(50 + rng() % 400);
    const ChildRun run = RunAndKill(dir, next_first, run_for);
    ASSERT_FALSE(run.acks.empty()) << "round " << round;
    for (const std::string& line : run.acks) {
      const std::string_view id = std::string_view(line).substr(4);
      if (line.starts_with("put ")) {
        live.emplace(id);
      } else {
        ASSERT_TRUE(line.starts_with("del ")) << line;
        live.erase(std::string(id));
        deleted.emplace(id);
      }
    }
    // The child deletes doc-(n-2) right after acknowledging "put doc-n" when
    // n % 7 == 3: if that put is the last ack, the delete may or may not
    // have landed before the kill, so that document is no longer checked.
    if (const std::string& last = run.acks.back(); last.starts_with("put ")) {
      uint64_t n = 0;
      if (absl::SimpleAtoi(AbslView(std::string_view(last).substr(8)), &n) &&
          n % 7 == 3 && n >= 2) {
        live.erase(absl::StrCat("doc-", n - 2));
      }
    }
    // Numbers never repeat, so an unacknowledged in-flight write of this
    // round cannot be confused with a later one.
    next_first += run.acks.size() + 1000;

    DatabaseOptions options;
    options.store.block_cache_bytes = size_t{8} << 20;
    options.store.write_buffer_bytes = size_t{4} << 20;
    auto db = Database::Open(dir, options);
    ASSERT_OK(db);
    auto collection = (*db)->GetCollection("crash");
    ASSERT_OK(collection);
    for (const std::string& id : live) {
      ASSERT_OK((*collection)->Get(id));
    }
    for (const std::string& id : deleted) {
      ASSERT_EQ((*collection)->Get(id).status().code(),
                absl::StatusCode::kNotFound)
          << "deleted " << id << " came back";
    }
    // The rebuilt indexes equal the store.
    uint64_t stored = 0;
    const MinHashLshIndex& minhash = (*collection)->minhash_index();
    const SimHashIndex& simhash = *(*collection)->simhash_index();
    ASSERT_TRUE((*db)
                    ->store()
                    .ForEachSignature(
                        (*collection)->record(),
                        [&](StoredSignatures s) -> absl::Status {
                          ++stored;
                          EXPECT_TRUE(minhash.Contains(s.internal_id));
                          EXPECT_EQ(simhash.Get(s.internal_id), s.simhash);
                          if (stored % 10 == 0) {
                            auto found = minhash.Query(s.minhash, 1.0);
                            EXPECT_TRUE(
                                std::any_of(found->begin(), found->end(),
                                            [&](const ScoredId& m) {
                                              return m.id == s.internal_id;
                                            }));
                          }
                          return absl::OkStatus();
                        })
                    .ok());
    std::printf("round %d: killed after %d ms, %zu acks, %llu documents\n",
                round, static_cast<int>(run_for.count()), run.acks.size(),
                static_cast<unsigned long long>(stored));
    EXPECT_EQ(minhash.size(), stored);
    EXPECT_EQ(simhash.size(), stored);
    EXPECT_GE(stored, live.size());
  }
}

}  // namespace
}  // namespace neardup::engine
