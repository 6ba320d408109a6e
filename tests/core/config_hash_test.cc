#include "neardup/core/config_hash.h"

#include <gtest/gtest.h>

#include "neardup/core/minhash.h"
#include "neardup/core/simhash.h"
#include "support/status_matchers.h"

namespace neardup {
namespace {

TEST(ConfigHash, IsXxh3OfTheDocumentedKey) {
  EXPECT_EQ(ConfigHash("nfkc-cf-simple-bidi-fmt", "shingle-k=5/word-uax29",
                       "minhash-h128", HashFamily::kXxh3, kDefaultSeed),
            Xxh3Hash64("nfkc-cf-simple-bidi-fmt|shingle-k=5/word-uax29|"
                       "minhash-h128|xxh3-64|000000c0ffee5eed"));
}

TEST(ConfigHash, EveryComponentMatters) {
  const uint64_t base = ConfigHash("a", "b", "c", HashFamily::kXxh3, 1);
  EXPECT_NE(base, ConfigHash("x", "b", "c", HashFamily::kXxh3, 1));
  EXPECT_NE(base, ConfigHash("a", "x", "c", HashFamily::kXxh3, 1));
  EXPECT_NE(base, ConfigHash("a", "b", "x", HashFamily::kXxh3, 1));
  EXPECT_NE(base, ConfigHash("a", "b", "c", HashFamily::kMurmur3, 1));
  EXPECT_NE(base, ConfigHash("a", "b", "c", HashFamily::kXxh3, 2));
}

TEST(ConfigHash, HashersReportTheirConfig) {
  MinHashConfig m;
  m.num_perm = 64;
  m.tokenizer = "shingle-k=3/word-uax29";
  m.family = HashFamily::kMurmur3;
  m.seed = 42;
  auto minhash = MinHasher::Create(m);
  ASSERT_OK(minhash);
  EXPECT_EQ(minhash->algorithm(), "minhash-h64");
  EXPECT_EQ(minhash->config_hash(),
            ConfigHash("nfkc-cf-simple-bidi-fmt", "shingle-k=3/word-uax29",
                       "minhash-h64", HashFamily::kMurmur3, 42));

  SimHashConfig s;
  s.weighting = SimHashWeighting::kUniform;
  auto simhash = SimHasher::Create(s);
  ASSERT_OK(simhash);
  EXPECT_EQ(simhash->algorithm(), "simhash-b64-uniform");
  EXPECT_EQ(simhash->config_hash(),
            ConfigHash("nfkc-cf-simple-bidi-fmt", "word-uax29",
                       "simhash-b64-uniform", HashFamily::kXxh3, kDefaultSeed));
}

TEST(Hex64, FormatAndParse) {
  EXPECT_EQ(FormatHex64(0), "0000000000000000");
  EXPECT_EQ(FormatHex64(kDefaultSeed), "000000c0ffee5eed");
  EXPECT_EQ(*ParseHex64("0x00C0FFEE5EED"), kDefaultSeed);
  EXPECT_EQ(*ParseHex64("ffffffffffffffff"), ~uint64_t{0});
  EXPECT_FALSE(ParseHex64("").ok());
  EXPECT_FALSE(ParseHex64("0x").ok());
  EXPECT_FALSE(ParseHex64("12345678901234567").ok());
  EXPECT_FALSE(ParseHex64("xyz").ok());
}

}  // namespace
}  // namespace neardup
