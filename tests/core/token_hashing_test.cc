// The fused hashing paths (batched views, shingles hashed in a joined
// buffer) give exactly what hashing the tokenizer's own tokens gives, also
// for custom inner tokenizers with overlapping or transient tokens.

#include "neardup/core/internal/token_hashing.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/base/scratch.h"
#include "neardup/core/hash.h"
#include "neardup/core/minhash.h"
#include "neardup/core/tokenizer.h"

namespace neardup::internal {
namespace {

// Every 3-byte window, as views into the text: tokens overlap, so their
// total size is about three times the text's.
class OverlappingTrigrams final : public Tokenizer {
 public:
  std::string Name() const override { return "test-trigrams"; }
  void ForEachToken(std::string_view text, TokenSink sink) const override {
    for (size_t i = 0; i + 3 <= text.size(); ++i) sink(text.substr(i, 3));
  }
};

// Upper-cased copies: not views into the text.
class TransientUpper final : public Tokenizer {
 public:
  std::string Name() const override { return "test-upper"; }
  void ForEachToken(std::string_view text, TokenSink sink) const override {
    std::string word;
    for (char c : std::string(text) + " ") {
      if (c == ' ') {
        if (!word.empty()) sink(word);
        word.clear();
      } else {
        word.push_back(static_cast<char>(c & ~0x20));
      }
    }
  }
};

std::vector<Hash128> Reference(const Tokenizer& tokenizer,
                               std::string_view text) {
  std::vector<Hash128> out;
  tokenizer.ForEachToken(text, [&](std::string_view token) {
    out.push_back(Xxh3Hash128(token, kDefaultSeed));
  });
  return out;
}

std::vector<Hash128> Fused(const Tokenizer& tokenizer, std::string_view text) {
  std::vector<Hash128> out = {{1, 2}};  // appended to, not replaced
  HashTokens(tokenizer, HashFamily::kXxh3, kDefaultSeed, text, &out);
  out.erase(out.begin());
  return out;
}

TEST(TokenHashing, ShinglesOverOverlappingViews) {
  const std::string text = "abcdefghijklmnopqrstuvwxyz";
  for (int k : {1, 2, 3, 5, 40}) {
    const auto shingles =
        MakeShingleTokenizer(k, std::make_unique<OverlappingTrigrams>());
    const std::vector<Hash128> want = Reference(*shingles, text);
    ASSERT_FALSE(want.empty());
    EXPECT_EQ(Fused(*shingles, text), want) << "k=" << k;
  }
}

TEST(TokenHashing, ShinglesOverTransientTokens) {
  const auto shingles =
      MakeShingleTokenizer(2, std::make_unique<TransientUpper>());
  const std::string text = "one two  three four";
  EXPECT_EQ(Fused(*shingles, text), Reference(*shingles, text));
}

TEST(TokenHashing, PlainTokensBatchedOrNot) {
  const std::string text = "Some words, and some more words: a.b 1,000!";
  const auto words = MakeWordTokenizer();
  EXPECT_EQ(Fused(*words, text), Reference(*words, text));
  const OverlappingTrigrams trigrams;
  EXPECT_EQ(Fused(trigrams, text), Reference(trigrams, text));
  const TransientUpper upper;
  EXPECT_EQ(Fused(upper, text), Reference(upper, text));
}

// A large document grows this thread's scratch; the next, smaller one gives
// the memory back instead of keeping it for the life of the thread.
TEST(ThreadScratch, ShrinksAfterALargeDocument) {
  auto hasher = MinHasher::Create();  // 5-word shingles: every scratch buffer
  ASSERT_TRUE(hasher.ok());
  std::string large;
  for (int i = 0; large.size() < (size_t{4} << 20); ++i) {
    large += "word" + std::to_string(i) + " ";
  }
  ASSERT_TRUE(hasher->Fingerprint(large).ok());
  EXPECT_GT(ThreadScratchBytes(), 4 * kScratchKeepBytes);
  ASSERT_TRUE(hasher->Fingerprint("a short text of a few words here").ok());
  EXPECT_LE(ThreadScratchBytes(), kScratchKeepBytes);
  // Steady small documents keep (and reuse) their small buffers.
  const size_t small = ThreadScratchBytes();
  ASSERT_TRUE(hasher->Fingerprint("another short text of words").ok());
  EXPECT_EQ(ThreadScratchBytes(), small);
}

}  // namespace
}  // namespace neardup::internal
