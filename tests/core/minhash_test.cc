#include "neardup/core/minhash.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "support/status_matchers.h"

namespace neardup {
namespace {

using ::testing::HasSubstr;

MinHasher Make(int num_perm = 128,
               std::string tokenizer = "shingle-k=5/word-uax29") {
  MinHashConfig config;
  config.num_perm = num_perm;
  config.tokenizer = std::move(tokenizer);
  auto hasher = MinHasher::Create(config);
  EXPECT_OK(hasher);
  return *std::move(hasher);
}

// Token hashes folded in two batches, in any order, give MinHasher's
// signature of the same tokens: the Python MinHash.update_batch relies on it.
TEST(FoldTokenHashes, BatchesGiveTheSignatureOfTheirUnion) {
  ASSERT_OK_AND_ASSIGN(const MinHasher hasher,
                       MinHasher::Create({.tokenizer = "word-uax29"}));
  const std::string text = "one two three four five six seven eight nine";
  ASSERT_OK_AND_ASSIGN(const MinHashSignature expected,
                       hasher.Fingerprint(text));
  std::vector<Hash128> hashes;
  for (std::string_view word : {"one", "two", "three", "four", "five", "six",
                                "seven", "eight", "nine"}) {
    hashes.push_back(HashToken(HashFamily::kXxh3, word, kDefaultSeed));
  }
  for (const int num_perm : {128, 100}) {  // a kernel width and the scalar
    std::vector<uint64_t> slots(num_perm, ~uint64_t{0});
    FoldTokenHashes(std::span(hashes).subspan(5), slots);
    FoldTokenHashes(std::span(hashes).first(5), slots);
    if (num_perm == 128) {
      EXPECT_EQ(slots, expected.slots);
    } else {  // slot i depends on i only: a prefix of the wider signature
      EXPECT_TRUE(
          std::equal(slots.begin(), slots.end(), expected.slots.begin()));
    }
  }
  std::vector<uint64_t> untouched(8, 5);
  FoldTokenHashes({}, untouched);
  EXPECT_EQ(untouched, std::vector<uint64_t>(8, 5));
}

TEST(MinHasher, EmptyDocumentIsAnError) {
  const MinHasher hasher = Make();
  for (std::string_view text : {"", "   \n\t", "!!! ... ---", "\u200B\uFEFF"}) {
    auto sig = hasher.Fingerprint(text);
    ASSERT_FALSE(sig.ok()) << text;
    EXPECT_EQ(sig.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(sig.status().message(), HasSubstr("empty document"));
  }
}

TEST(MinHasher, InvalidUtf8IsAnError) {
  auto sig = Make().Fingerprint("good text \xFF bad");
  ASSERT_FALSE(sig.ok());
  EXPECT_EQ(sig.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(sig.status().message(), HasSubstr("byte 10"));
}

TEST(MinHasher, RejectsBadConfig) {
  MinHashConfig config;
  config.num_perm = 100;
  EXPECT_EQ(MinHasher::Create(config).status().code(),
            absl::StatusCode::kInvalidArgument);
  config.num_perm = 128;
  config.tokenizer = "shingle-k=5/nonsense";
  EXPECT_EQ(MinHasher::Create(config).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(MinHasher, WidthsShareSlotPrefix) {
  // Slot i depends only on i, so H=64 is a prefix of H=256.
  const std::string text = "one two three four five six seven eight nine";
  auto s64 = Make(64).Fingerprint(text);
  auto s256 = Make(256).Fingerprint(text);
  ASSERT_OK(s64);
  ASSERT_OK(s256);
  ASSERT_EQ(s64->num_perm(), 64);
  ASSERT_EQ(s256->num_perm(), 256);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(s64->slots[i], s256->slots[i]);
}

TEST(MinHasher, DeterministicAcrossInstancesAndCalls) {
  const std::string text = "Deterministic: same input and config, same bytes.";
  auto a = Make().Fingerprint(text);
  auto b = Make().Fingerprint(text);
  auto c = Make().Fingerprint(text);
  ASSERT_OK(a);
  ASSERT_OK(b);
  ASSERT_OK(c);
  EXPECT_EQ(a->Serialize(), b->Serialize());
  EXPECT_EQ(b->Serialize(), c->Serialize());
}

TEST(MinHasher, CanonicalizationMakesVariantsEqual) {
  const MinHasher hasher = Make();
  auto a = hasher.Fingerprint("The Quick Brown Fox Jumps Over");
  auto b = hasher.Fingerprint("the quick\u200B brown fox jumps over");
  ASSERT_OK(a);
  ASSERT_OK(b);
  EXPECT_EQ(*a, *b);
}

TEST(Signature, SerializeParseRoundTrip) {
  auto sig = Make(64).Fingerprint("round trip of a signature through bytes");
  ASSERT_OK(sig);
  const std::string bytes = sig->Serialize();
  ASSERT_EQ(bytes.size(), 8u + 8 * 64);
  EXPECT_EQ(bytes[0], 1);
  EXPECT_EQ(bytes[1], 0);
  auto parsed = MinHashSignature::Parse(bytes);
  ASSERT_OK(parsed);
  EXPECT_EQ(*parsed, *sig);
}

TEST(Signature, ParseRejectsMalformedBytes) {
  auto sig = Make().Fingerprint("a signature to corrupt in several ways");
  ASSERT_OK(sig);
  const std::string good = sig->Serialize();

  EXPECT_THAT(MinHashSignature::Parse(good.substr(0, 1031)).status().message(),
              HasSubstr("1031 bytes"));
  EXPECT_FALSE(MinHashSignature::Parse(good + std::string(8, '\0')).ok());
  EXPECT_FALSE(MinHashSignature::Parse("").ok());

  std::string bad_schema = good;
  bad_schema[0] = 2;
  EXPECT_THAT(MinHashSignature::Parse(bad_schema).status().message(),
              HasSubstr("schema 2"));
  std::string bad_pad = good;
  bad_pad[5] = 1;
  EXPECT_THAT(MinHashSignature::Parse(bad_pad).status().message(),
              HasSubstr("padding"));
}

TEST(Jaccard, EstimateCountsEqualSlots) {
  MinHashSignature a, b;
  a.slots.assign(64, 7);
  b.slots.assign(64, 7);
  for (int i = 0; i < 16; ++i) b.slots[i] = 8;
  EXPECT_DOUBLE_EQ(*EstimateJaccard(a, b), 48.0 / 64.0);
  EXPECT_DOUBLE_EQ(*EstimateJaccard(a, a), 1.0);
  MinHashSignature c;
  c.slots.assign(128, 7);
  EXPECT_EQ(EstimateJaccard(a, c).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(Jaccard, ExactOverTokenSets) {
  const MinHasher hasher = Make(128, "word-uax29");
  auto a = hasher.TokenSet("a b c d");
  auto b = hasher.TokenSet("c d e f f f");
  ASSERT_OK(a);
  ASSERT_OK(b);
  EXPECT_EQ(a->size(), 4u);
  EXPECT_EQ(b->size(), 4u);  // duplicates removed
  EXPECT_DOUBLE_EQ(ExactJaccard(*a, *b), 2.0 / 6.0);
  EXPECT_DOUBLE_EQ(ExactJaccard(*a, *a), 1.0);
  EXPECT_DOUBLE_EQ(ExactJaccard({}, *a), 0.0);
  EXPECT_DOUBLE_EQ(ExactJaccard({}, {}), 1.0);
}

TEST(Jaccard, NearDuplicatesScoreHigherThanUnrelated) {
  const MinHasher hasher = Make();
  const std::string base =
      "Reuters reported that the central bank left interest rates unchanged "
      "on Tuesday, citing steady inflation and a resilient labour market, "
      "while analysts expect a cut later in the year as growth slows.";
  std::string edited = base;
  edited.replace(edited.find("Tuesday"), 7, "Wednesday");
  const std::string other =
      "The recipe calls for two cups of flour, a pinch of salt, three eggs "
      "and enough milk to make a smooth batter for thin pancakes.";
  auto s_base = hasher.Fingerprint(base);
  auto s_edit = hasher.Fingerprint(edited);
  auto s_other = hasher.Fingerprint(other);
  ASSERT_OK(s_base);
  ASSERT_OK(s_edit);
  ASSERT_OK(s_other);
  EXPECT_GT(*EstimateJaccard(*s_base, *s_edit), 0.6);
  EXPECT_LT(*EstimateJaccard(*s_base, *s_other), 0.1);
}

}  // namespace
}  // namespace neardup

namespace neardup {
namespace {

// MinHasher fuses shingling with hashing; its token set must equal hashing
// what the ShingleTokenizer yields.
TEST(MinHasher, FusedShinglingMatchesTheTokenizer) {
  const std::string texts[] = {
      "one two three four five six seven",
      "one, two;  three\n\nfour -- five six... seven",
      "a b",
      "single",
      "naïve café ünïcode wörds, and more wörds here",
      "",
      "  leading and trailing  ",
  };
  // Long generated texts: runs of single-space gaps broken by punctuation
  // and newlines, crossing the word scanner's 64-byte chunks.
  std::vector<std::string> all(std::begin(texts), std::end(texts));
  std::mt19937 rng(31);
  constexpr std::string_view kGaps[] = {" ", " ", " ", ", ", "\n", "  ", ". "};
  for (int t = 0; t < 20; ++t) {
    std::string text;
    const int words = std::uniform_int_distribution<int>(1, 120)(rng);
    for (int w = 0; w < words; ++w) {
      text +=
          "w" + std::to_string(std::uniform_int_distribution<int>(0, 30)(rng));
      text += kGaps[std::uniform_int_distribution<size_t>(0, 6)(rng)];
    }
    all.push_back(text);
  }
  for (int k : {1, 2, 3, 5}) {
    MinHashConfig config;
    config.tokenizer = "shingle-k=" + std::to_string(k) + "/word-uax29";
    auto hasher = MinHasher::Create(config);
    ASSERT_OK(hasher);
    for (const std::string& text : all) {
      auto canonical = hasher->canonicalizer().Canonicalize(text);
      ASSERT_OK(canonical);
      std::vector<Hash128> expected;
      hasher->tokenizer().ForEachToken(*canonical, [&](std::string_view t) {
        expected.push_back(Xxh3Hash128(t, kDefaultSeed));
      });
      std::sort(expected.begin(), expected.end(),
                [](const Hash128& a, const Hash128& b) {
                  return a.lo != b.lo ? a.lo < b.lo : a.hi < b.hi;
                });
      expected.erase(std::unique(expected.begin(), expected.end()),
                     expected.end());
      auto set = hasher->TokenSet(text);
      ASSERT_OK(set);
      EXPECT_EQ(*set, expected) << "k=" << k << " text=" << text;
    }
  }
}

}  // namespace
}  // namespace neardup
