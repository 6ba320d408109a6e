#include "neardup/core/hash.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <string>

#include "neardup/core/config_hash.h"
#include "support/status_matchers.h"

namespace neardup {
namespace {

// Reference values of MurmurHash3_x64_128 with seed 0 from the canonical
// C++ implementation (h1 and h2 printed as hex).
TEST(Murmur3, KnownVectors) {
  const Hash128 empty = Murmur3Hash128("", 0);
  EXPECT_EQ(empty.lo, 0u);
  EXPECT_EQ(empty.hi, 0u);
  const Hash128 fox =
      Murmur3Hash128("The quick brown fox jumps over the lazy dog", 0);
  EXPECT_EQ(FormatHex64(fox.lo), "e34bbc7bbc071b6c");
  EXPECT_EQ(FormatHex64(fox.hi), "7a433ca9c49a9347");
}

TEST(Murmur3, EveryTailLengthIsDistinct) {
  const std::string text = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::vector<Hash128> seen;
  for (size_t n = 0; n <= text.size(); ++n) {
    const Hash128 h = Murmur3Hash128(std::string_view(text).substr(0, n), 7);
    for (const Hash128& other : seen) EXPECT_FALSE(h == other) << n;
    seen.push_back(h);
  }
}

TEST(Murmur3, SeedUsesAll64Bits) {
  EXPECT_FALSE(Murmur3Hash128("x", 1) == Murmur3Hash128("x", 1ull << 40));
}

TEST(Xxh3, SeedChangesHash) {
  EXPECT_FALSE(Xxh3Hash128("token", 1) == Xxh3Hash128("token", 2));
  EXPECT_TRUE(Xxh3Hash128("token", 1) ==
              HashToken(HashFamily::kXxh3, "token", 1));
  EXPECT_TRUE(Murmur3Hash128("token", 1) ==
              HashToken(HashFamily::kMurmur3, "token", 1));
}

TEST(Xxh3, Hash64SeedZeroKnownValue) {
  // XXH3_64bits("") with seed 0, from the xxHash test suite.
  EXPECT_EQ(FormatHex64(Xxh3Hash64("")), "2d06800538d394c2");
}

// Our inlined XXH3 (its own length dispatch) against the system library's
// entry point, at every length up to past the 128- and 240-byte cut-overs.
TEST(Xxh3, MatchesTheLibraryAtEveryLength) {
  std::string bytes(300, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<char>((i * 131 + 7) & 0xFF);
  }
  for (uint64_t seed : {uint64_t{0}, uint64_t{0x00C0FFEE5EED}, ~uint64_t{0}}) {
    for (size_t len = 0; len <= bytes.size(); ++len) {
      const XXH128_hash_t want = XXH3_128bits_withSeed(bytes.data(), len, seed);
      const Hash128 got =
          Xxh3Hash128(std::string_view(bytes.data(), len), seed);
      ASSERT_EQ(got.lo, want.low64) << "len " << len << " seed " << seed;
      ASSERT_EQ(got.hi, want.high64) << "len " << len << " seed " << seed;
    }
  }
}

TEST(HashFamily, NamesRoundTrip) {
  for (HashFamily f : {HashFamily::kXxh3, HashFamily::kMurmur3}) {
    auto parsed = ParseHashFamily(HashFamilyName(f));
    ASSERT_OK(parsed);
    EXPECT_EQ(*parsed, f);
  }
  EXPECT_EQ(ParseHashFamily("md5").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace neardup
