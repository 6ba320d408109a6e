#ifndef NEARDUP_TESTS_DEDUP_STAGED_FIXTURES_H_
#define NEARDUP_TESTS_DEDUP_STAGED_FIXTURES_H_

// What staged dedup's tests share: a corpus of near-duplicates across
// files, running every task of a run in this process, and the stats two
// runs must agree on.

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "dedup/dedup_fixtures.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/json.h"
#include "neardup/dedup/staged.h"

namespace neardup::dedup {

using ::neardup::testing::Join;
using ::neardup::testing::WordSource;

// `files` JSONL files of documents: unrelated ones, and edited copies of
// earlier documents (copies of copies too, so that keep-first decisions
// depend on what was kept), exact copies and empty texts.
inline std::vector<std::string> WriteCorpus(const std::string& dir, int files,
                                            int docs_per_file) {
  WordSource words(42);
  WordSource dice(7);
  std::vector<std::vector<std::string>> docs;
  std::vector<std::string> paths;
  for (int f = 0; f < files; ++f) {
    const std::string path = absl::StrCat(dir, "/in-", f, ".jsonl");
    std::ofstream out(path);
    for (int i = 0; i < docs_per_file; ++i) {
      const int roll = static_cast<int>(dice.Word().size());  // 3..8
      std::vector<std::string> doc;
      if (roll <= 4 && !docs.empty()) {
        doc = docs[dice.Word().size() * 977 % docs.size()];
        const int edits = static_cast<int>(dice.Word().size()) - 3;  // 0..5
        for (int e = 0; e < edits && !doc.empty(); ++e) {
          doc[dice.Word().size() * 131 % doc.size()] = words.Word();
        }
      } else if (roll == 5 && i % 7 == 0) {
        doc = {};  // empty
      } else {
        doc = words.Words(40);
      }
      docs.push_back(doc);
      out << ToJsonText(nlohmann::ordered_json{{"id", docs.size()},
                                               {"text", Join(doc)}})
          << "\n";
    }
    paths.push_back(path);
  }
  return paths;
}

// The stats both runs must agree on: all but times, memory and sizes.
inline nlohmann::json Comparable(const std::string& stats_json) {
  nlohmann::json stats = nlohmann::json::parse(stats_json);
  for (const char* key : {"seconds", "docs_per_second", "mb_per_second",
                          "peak_rss_bytes", "index_bytes", "token_set_bytes",
                          "tasks", "candidate_pairs", "spilled_bytes"}) {
    stats.erase(key);
  }
  return stats;
}

inline absl::Status RunAllTasks(const DedupOptions& options,
                                const StagedRun& run) {
  for (Stage stage : kStages) {
    for (int task = 0; task < StageTasks(run, stage); ++task) {
      if (StageTaskDone(options, run, stage, task)) continue;
      absl::Status status = RunStageTask(options, run, stage, task);
      if (!status.ok()) {
        return absl::Status(status.code(),
                            absl::StrCat(AbslView(StageName(stage)), " task ",
                                         task, ": ", status.message()));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace neardup::dedup

#endif  // NEARDUP_TESTS_DEDUP_STAGED_FIXTURES_H_
