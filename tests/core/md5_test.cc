#include "neardup/core/internal/md5.h"

#include <gtest/gtest.h>

#include <string>

namespace neardup::internal {
namespace {

std::string Hex(const std::array<uint8_t, 16>& digest) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (uint8_t b : digest) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

// RFC 1321, appendix A.5, plus lengths around the padding boundaries.
TEST(Md5, RfcTestSuite) {
  EXPECT_EQ(Hex(Md5("")), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(Hex(Md5("a")), "0cc175b9c0f1b6a831c399e269772661");
  EXPECT_EQ(Hex(Md5("abc")), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(Hex(Md5("message digest")), "f96b697d7cb7938d525a2f31aaf161d0");
  EXPECT_EQ(Hex(Md5("abcdefghijklmnopqrstuvwxyz")),
            "c3fcd3d76192e4007dfb496cca67e13b");
  EXPECT_EQ(Hex(Md5("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                    "0123456789")),
            "d174ab98d277d9f5a5611c2c9f419d9f");
  EXPECT_EQ(Hex(Md5("1234567890123456789012345678901234567890123456789012345"
                    "6789012345678901234567890")),
            "57edf4a22be3c955ac49da2e2107b67a");
}

TEST(Md5, PaddingBoundaries) {
  // From Python's hashlib: 55, 56, 63, 64 and 65 bytes of 'x'.
  EXPECT_EQ(Hex(Md5(std::string(55, 'x'))), "04364420e25c512fd958a70738aa8f72");
  EXPECT_EQ(Hex(Md5(std::string(56, 'x'))), "668a72d5ba17f08e62dabcafad6db14b");
  EXPECT_EQ(Hex(Md5(std::string(63, 'x'))), "7dc2ca208106a2f703567bdff99d8981");
  EXPECT_EQ(Hex(Md5(std::string(64, 'x'))), "c1bb4f81d892b2d57947682aeb252456");
  EXPECT_EQ(Hex(Md5(std::string(65, 'x'))), "1bc932052302d074bdec39795fe00cf6");
}

}  // namespace
}  // namespace neardup::internal
