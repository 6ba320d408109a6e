#ifndef NEARDUP_BENCH_SAMPLE_TEXT_H_
#define NEARDUP_BENCH_SAMPLE_TEXT_H_

// Deterministic English-like documents for micro-benchmarks (no corpus
// needed): sentences drawn from a fixed vocabulary with a fixed PRNG.

#include <cstdint>
#include <string>

namespace neardup::bench {

inline std::string EnglishDocument(size_t bytes, uint64_t seed = 1) {
  static const char* kWords[] = {
      "the", "market", "said", "on", "Tuesday", "shares", "of", "company",
      "rose", "percent", "after", "quarterly", "earnings", "beat", "analysts",
      "expectations", "and", "the", "board", "approved", "a", "dividend",
      "increase", "while", "trading", "volume", "remained", "light", "in",
      "New", "York", "where", "investors", "weighed", "comments", "from",
      "central", "bank", "officials", "about", "inflation", "interest",
      "rates", "growth", "outlook", "for", "next", "year", "government",
      "bonds", "fell", "as", "oil", "prices", "climbed", "to", "their",
      "highest", "level", "since", "March", "reported", "by", "Reuters"};
  constexpr size_t kCount = sizeof(kWords) / sizeof(kWords[0]);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  std::string out;
  int in_sentence = 0;
  while (out.size() < bytes) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    std::string word = kWords[x % kCount];
    if (in_sentence == 0 && word[0] >= 'a') word[0] = static_cast<char>(word[0] - 32);
    if (!out.empty()) out += ' ';
    out += word;
    if (++in_sentence > 8 + static_cast<int>(x % 12)) {
      out += (x & 64) ? "," : ".";
      if (out.back() == '.') in_sentence = 0;
    }
  }
  out.resize(bytes);
  return out;
}

}  // namespace neardup::bench

#endif  // NEARDUP_BENCH_SAMPLE_TEXT_H_
