// `neardup dedup --reference` with a live collection's corpus: a dump
// of `neardup export --with-signatures` from a real neardupd removes the
// same records as the staged run over the texts that collection holds (the
// server's signatures and shingle sets are the offline dedup's).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "server/server_process.h"
#include "support/corpus.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

namespace neardup {
namespace {

using testing::GeneratedText;
using testing::NearCopy;

std::string Jsonl(int first, int count, bool near_copies) {
  std::string out;
  for (int i = first; i < first + count; ++i) {
    // Near copies (Jaccard about 0.9) of every other document of the
    // corpus, and new ones.
    const std::string text = near_copies && i % 2 == 0
                                 ? NearCopy(GeneratedText(i - first, 200), 100)
                                 : GeneratedText(i, 200);
    out += nlohmann::json{{"id", absl::StrCat("d", i)}, {"text", text}}.dump();
    out += "\n";
  }
  return out;
}

// The members of every cluster of a --clusters file.
std::multiset<uint64_t> Removed(const std::string& clusters) {
  std::multiset<uint64_t> out;
  std::istringstream in(clusters);
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json cluster = nlohmann::json::parse(line);
    EXPECT_TRUE(cluster.contains("reference")) << line;
    for (const auto& member : cluster["members"])
      out.insert(member.get<uint64_t>());
  }
  return out;
}

TEST(DedupReferenceE2e, ADumpOfACollectionIsTheSameReferenceAsItsTexts) {
  testing::TempDir temp;
  testing::ServerProcess server(temp.path() + "/data",
                                temp.path() + "/neardupd.log");
  server.Start();
  ASSERT_TRUE(server.WaitServing());
  const std::string corpus = temp.Write("corpus.jsonl", Jsonl(0, 60, false));
  const std::string batch = temp.Write("batch.jsonl", Jsonl(1000, 40, true));
  const auto cli = [&](const std::string& args) {
    return testing::RunCommand(absl::StrCat(NEARDUP_BIN, " ", args));
  };
  const std::string on_server = absl::StrCat(" --server ", server.Address());
  // Dedup compares 64-bit shingle hashes by default: a collection of the
  // default 32 is refused as an exact reference, with the way out.
  ASSERT_EQ(cli("collections create narrow" + on_server).exit_code, 0);
  testing::CommandResult r =
      cli("ingest " + corpus + " -c narrow --id-field id" + on_server);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string narrow_dump = temp.path() + "/narrow.jsonl";
  r = cli("export -c narrow --with-signatures -o " + narrow_dump + on_server);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  r = cli("dedup " + batch + " -o " + temp.path() + "/narrow.out --tasks 2 " +
          "--work-dir " + temp.path() + "/narrow-work --reference " +
          narrow_dump + " --no-progress");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.out, ::testing::HasSubstr("dedup with --evidence-bits 32"));

  ASSERT_EQ(
      cli("collections create corpus --evidence-bits 64" + on_server).exit_code,
      0);
  r = cli("ingest " + corpus + " -c corpus --id-field id" + on_server);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string dump = temp.path() + "/dump.jsonl";
  r = cli("export -c corpus --with-signatures -o " + dump + on_server);
  ASSERT_EQ(r.exit_code, 0) << r.out;

  // The texts of the collection as a staged run of their own.
  const std::string dir = temp.path();
  r = cli("dedup " + corpus + " -o " + dir + "/corpus.out --tasks 2 " +
          "--work-dir " + dir + "/corpus-work --no-progress");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  ASSERT_EQ(testing::FileContents(dir + "/corpus.out"),
            testing::FileContents(corpus))
      << "the corpus has no near-duplicates of its own";

  for (const std::string& reference : {dir + "/corpus-work", dump}) {
    const std::string name = reference == dump ? "by-dump" : "by-run";
    r = cli("dedup " + batch + " -o " + dir + "/" + name + ".out --tasks 3 " +
            "--work-dir " + dir + "/" + name + "-work --reference " +
            reference + " --clusters " + dir + "/" + name +
            ".clusters --stats " + dir + "/" + name + ".stats --no-progress");
    ASSERT_EQ(r.exit_code, 0) << r.out;
  }
  const std::string kept = testing::FileContents(dir + "/by-dump.out");
  EXPECT_EQ(kept, testing::FileContents(dir + "/by-run.out"));
  // The 20 near copies are gone; the 20 new documents stay.
  EXPECT_EQ(std::count(kept.begin(), kept.end(), '\n'), 20);
  const std::multiset<uint64_t> removed =
      Removed(testing::FileContents(dir + "/by-dump.clusters"));
  EXPECT_EQ(removed.size(), 20u);
  EXPECT_EQ(removed, Removed(testing::FileContents(dir + "/by-run.clusters")));
  const nlohmann::json stats =
      nlohmann::json::parse(testing::FileContents(dir + "/by-dump.stats"));
  EXPECT_EQ(stats["reference_docs"], 60);
  EXPECT_EQ(stats["duplicates"], 20);

  // With --evidence-bits 32 the 32-bit dump is the same reference (the
  // batch's sets are narrowed as the collection's were: unnarrowed, they
  // would share no hash with the dump's).
  r = cli("dedup " + batch + " -o " + dir + "/by-narrow.out --tasks 3 " +
          "--work-dir " + dir + "/by-narrow-work --reference " + narrow_dump +
          " --evidence-bits 32 --clusters " + dir +
          "/by-narrow.clusters --no-progress");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(testing::FileContents(dir + "/by-narrow.out"), kept);
  EXPECT_EQ(Removed(testing::FileContents(dir + "/by-narrow.clusters")),
            removed);
  // A run of 64-bit sets is no reference of a 32-bit one.
  r = cli("dedup " + batch + " -o " + dir + "/mixed.out --tasks 2 " +
          "--work-dir " + dir + "/mixed-work --reference " + dir +
          "/corpus-work --evidence-bits 32 --no-progress");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.out, ::testing::HasSubstr("give the same --evidence-bits"));
}

}  // namespace
}  // namespace neardup
