#ifndef NEARDUP_TESTS_SUPPORT_CORPUS_H_
#define NEARDUP_TESTS_SUPPORT_CORPUS_H_

// Generated English-like documents with known near-copies, for tests that
// must not depend on any external corpus.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace neardup::testing {

// `words` words drawn from a seeded stream: unrelated seeds share almost no
// 5-word shingles.
inline std::string GeneratedText(uint64_t seed, int words = 80) {
  static const char* const kWords[] = {
      "river",   "stone",  "market", "quiet",  "signal",  "harbor", "winter",
      "ledger",  "copper", "garden", "engine", "lantern", "meadow", "orbit",
      "parcel",  "velvet", "tunnel", "anchor", "bridge",  "cobalt", "falcon",
      "glacier", "island", "jungle", "kettle", "lemon",   "mirror", "nectar"};
  std::string text;
  uint64_t state = seed * 0x9E3779B97F4A7C15ULL + 1;
  for (int i = 0; i < words; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    if (i > 0) text += ' ';
    absl::StrAppend(&text, kWords[(state >> 33) % 28], (state >> 40) % 50);
  }
  return text;
}

// `text` with one word replaced every `every` words. With every = 40 and
// 5-word shingles, Jaccard with the original stays around 0.8.
inline std::string NearCopy(const std::string& text, int every = 40) {
  std::vector<std::string> words = absl::StrSplit(text, ' ');
  for (size_t i = every / 2; i < words.size(); i += every) words[i] = "edited";
  return absl::StrJoin(words, " ");
}

}  // namespace neardup::testing

#endif  // NEARDUP_TESTS_SUPPORT_CORPUS_H_
