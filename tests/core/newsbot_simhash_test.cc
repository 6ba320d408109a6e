#include "neardup/core/newsbot_simhash.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/status_matchers.h"

namespace neardup {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string Hex(std::string_view text, int bits) {
  return FormatNewsbot(NewsbotSimHash(text, bits).value());
}

TEST(NewsbotSimHash, TokenizesLikeNewsbot) {
  EXPECT_THAT(NewsbotTokenize("Hello, World! How are you?"),
              ElementsAre("hello", "world", "how", "are", "you"));
  EXPECT_THAT(NewsbotTokenize("Testing-with_punctuation@marks"),
              ElementsAre("testing", "with", "punctuation", "marks"));
  EXPECT_THAT(NewsbotTokenize("  ,;  "), IsEmpty());
  // Python's str.lower() maps two non-ASCII letters to ASCII ones; the
  // other non-ASCII letters separate tokens.
  EXPECT_THAT(NewsbotTokenize("\u0130stanbul \u212Aelvin caf\u00e9 na\u00efve"),
              ElementsAre("i", "stanbul", "kelvin", "caf", "na", "ve"));
}

// Expected values computed independently with Python (hashlib.md5, the bit
// order of the header), not with this code.
TEST(NewsbotSimHash, GoldenVectors) {
  struct Case {
    const char* text;
    const char* b16;
    const char* b32;
    const char* b64;
    const char* b128;
  };
  const Case cases[] = {
      {"The quick brown fox", "8212", "01828212", "2c02008001828212",
       "0fd470685f8966c02c02008001828212"},
      {"Breaking news about technology", "4800", "d8d94800", "800ccc05d8d94800",
       "0284051208000825800ccc05d8d94800"},
      {"Sports update today", "23c8", "36d223c8", "dd59f05236d223c8",
       "08c7d5a32f09401ddd59f05236d223c8"},
      {"Hello, World! How are you?", "7f87", "123d7f87", "5d6b8296123d7f87",
       "5919a02ee46329a65d6b8296123d7f87"},
      {"\u0130stanbul \u212Aelvin caf\u00e9 na\u00efve", "9700", "78139700",
       "d64203b078139700", "a2420c104ca05414d64203b078139700"},
      {"", "0000", "00000000", "0000000000000000",
       "00000000000000000000000000000000"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Hex(c.text, 16), c.b16) << c.text;
    EXPECT_EQ(Hex(c.text, 32), c.b32) << c.text;
    EXPECT_EQ(Hex(c.text, 64), c.b64) << c.text;
    EXPECT_EQ(Hex(c.text, 128), c.b128) << c.text;
  }
}

TEST(NewsbotSimHash, WidthsAndErrors) {
  EXPECT_EQ(NewsbotSimHash("x", 48).status().code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_OK_AND_ASSIGN(const NewsbotFingerprint f,
                       NewsbotSimHash("The quick brown fox", 128));
  EXPECT_EQ(*ParseNewsbot(FormatNewsbot(f)), f);
  EXPECT_EQ(ParseNewsbot("2C02008001828212")->low, 0x2c02008001828212u);
  EXPECT_THAT(ParseNewsbot("abc").status().message(),
              HasSubstr("4, 8, 16 or 32 hex digits"));
  EXPECT_THAT(ParseNewsbot("zz00").status().message(),
              HasSubstr("invalid hex digit 'z'"));
  // Order and repetition count (votes per occurrence); case does not.
  EXPECT_EQ(Hex("fox brown quick the", 64), Hex("The quick brown fox", 64));
  EXPECT_NE(Hex("fox fox fox brown", 64), Hex("fox brown", 64));
}

TEST(NewsbotSimHash, HammingOnHexLikeNewsbot) {
  EXPECT_EQ(*NewsbotHamming("ff", "ff"), 0);
  EXPECT_EQ(*NewsbotHamming("f", "e"), 1);
  EXPECT_EQ(*NewsbotHamming("ff", "00"), 8);
  EXPECT_EQ(*NewsbotHamming("FF", "0f"), 4);
  EXPECT_THAT(NewsbotHamming("xyz", "00").status().message(),
              HasSubstr("invalid hex digit 'x'"));
  EXPECT_FALSE(NewsbotHamming("", "00").ok());
  EXPECT_FALSE(NewsbotHamming(std::string(33, 'f'), "00").ok());
  // Near texts are nearer than unrelated ones.
  const int near = *NewsbotHamming(Hex("Breaking news about technology", 64),
                                   Hex("Breaking news about tech", 64));
  const int same = *NewsbotHamming(Hex("Breaking news about technology", 64),
                                   Hex("Breaking news about technology", 64));
  EXPECT_EQ(same, 0);
  EXPECT_GT(near, 0);
  EXPECT_THAT(NewsbotHamming(*NewsbotSimHash("a", 64), *NewsbotSimHash("a", 32))
                  .status()
                  .message(),
              HasSubstr("cannot compare a 64-bit and a 32-bit"));
}

TEST(NewsbotSimHash, ConfigHashesDifferByWidth) {
  EXPECT_EQ(NewsbotAlgorithm(64), "simhash-newsbot-b64");
  EXPECT_NE(NewsbotConfigHash(64), NewsbotConfigHash(128));
  EXPECT_EQ(NewsbotConfigHash(64), NewsbotConfigHash(64));
}

}  // namespace
}  // namespace neardup
