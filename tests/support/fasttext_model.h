#ifndef NEARDUP_TESTS_SUPPORT_FASTTEXT_MODEL_H_
#define NEARDUP_TESTS_SUPPORT_FASTTEXT_MODEL_H_

// A tiny fastText model trained at test time with Debian's `fasttext` tool on
// generated text: two topics of words that co-occur, so texts of one topic
// embed close together and texts of different topics apart. Nothing is
// downloaded.

#include <fstream>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "support/run_command.h"

namespace neardup::testing {

// Words of topic t: "t<t>w<i>", i < 40.
inline std::string TopicSentence(std::mt19937& rng, int topic, int words) {
  std::string out;
  for (int i = 0; i < words; ++i) {
    absl::StrAppend(&out, i ? " " : "", "t", topic, "w", rng() % 40);
  }
  return out;
}

// Trains `dir`/tiny.bin (dim 16, subwords 2-4) and returns its path, or ""
// with the tool's output in `*log` when training failed.
inline std::string TrainTinyFastTextModel(const std::string& dir,
                                          std::string* log, int seed = 42) {
  const std::string corpus = dir + "/corpus.txt";
  {
    std::ofstream out(corpus);
    std::mt19937 rng(seed);
    for (int line = 0; line < 3000; ++line) {
      out << TopicSentence(rng, line % 2, 12) << "\n";
    }
  }
  const CommandResult trained = RunCommand(absl::StrCat(
      "fasttext skipgram -input ", corpus, " -output ", dir,
      "/tiny -dim 16 -epoch 5 -minCount 1 -minn 2 -maxn 4 -bucket 10000 "
      "-thread 1 -seed ",
      seed,
      " "
      "-verbose 0"));
  if (trained.exit_code != 0) {
    *log = absl::StrCat("fasttext skipgram exited ", trained.exit_code, ": ",
                        trained.out,
                        " (scripts/install-deps.sh installs the fasttext "
                        "package)");
    return "";
  }
  return dir + "/tiny.bin";
}

}  // namespace neardup::testing

#endif  // NEARDUP_TESTS_SUPPORT_FASTTEXT_MODEL_H_
