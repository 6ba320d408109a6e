#ifndef NEARDUP_TESTS_DEDUP_DEDUP_FIXTURES_H_
#define NEARDUP_TESTS_DEDUP_DEDUP_FIXTURES_H_

// Small made-up corpora with known near-duplicates: deterministic
// pseudo-random "words", so documents that do not derive from each other
// share (almost) no 5-word shingles.

#include <cstdint>
#include <string>
#include <vector>

namespace neardup::testing {

class WordSource {
 public:
  explicit WordSource(uint64_t seed) : state_(seed * 2654435761u + 1) {}

  std::string Word() {
    const int length = 3 + static_cast<int>(Next() % 6);
    std::string w;
    for (int i = 0; i < length; ++i) w.push_back('a' + Next() % 26);
    return w;
  }
  std::vector<std::string> Words(int n) {
    std::vector<std::string> words;
    for (int i = 0; i < n; ++i) words.push_back(Word());
    return words;
  }

 private:
  uint64_t Next() {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return state_ >> 33;
  }
  uint64_t state_;
};

inline std::string Join(const std::vector<std::string>& words) {
  std::string s;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i) s.push_back(' ');
    s += words[i];
  }
  return s;
}

// `words` with word `at` replaced: with 5-word shingles over 200 words the
// Jaccard similarity to the original is 191/201 = 0.95.
inline std::vector<std::string> WithWordReplaced(std::vector<std::string> words,
                                                 size_t at) {
  words[at] = "zzzedited";
  return words;
}

}  // namespace neardup::testing

#endif  // NEARDUP_TESTS_DEDUP_DEDUP_FIXTURES_H_
