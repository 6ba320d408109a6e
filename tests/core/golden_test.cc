// Golden vectors: our signatures must be byte-identical to txtfp 0.2.x/0.3.x.
// Default canonicalizer, word tokenizer, seed 0x00C0FFEE5EED, xxh3 unless
// stated otherwise.

#include <gtest/gtest.h>

#include "neardup/core/config_hash.h"
#include "neardup/core/minhash.h"
#include "neardup/core/simhash.h"
#include "support/sha256.h"
#include "support/status_matchers.h"

namespace neardup {
namespace {

using ::neardup::testing::Sha256Hex;

constexpr char kFox[] = "the quick brown fox jumps over the lazy dog";

MinHashSignature MinHashOf(std::string_view text, int k,
                           HashFamily family = HashFamily::kXxh3) {
  MinHashConfig config;
  config.tokenizer = "shingle-k=" + std::to_string(k) + "/word-uax29";
  config.family = family;
  auto hasher = MinHasher::Create(config);
  EXPECT_OK(hasher);
  auto sig = hasher->Fingerprint(text);
  EXPECT_OK(sig);
  return *sig;
}

uint64_t SimHashOf(std::string_view text,
                   HashFamily family = HashFamily::kXxh3) {
  SimHashConfig config;
  config.family = family;
  auto hasher = SimHasher::Create(config);
  EXPECT_OK(hasher);
  auto sig = hasher->Fingerprint(text);
  EXPECT_OK(sig);
  return *sig;
}

TEST(GoldenMinHash, FoxK5Xxh3) {
  const MinHashSignature sig = MinHashOf(kFox, 5);
  ASSERT_EQ(sig.num_perm(), 128);
  EXPECT_EQ(FormatHex64(sig.slots[0]), "06818a8cc8cc6aa2");
  EXPECT_EQ(FormatHex64(sig.slots[1]), "615c2f08a44058e1");
  EXPECT_EQ(FormatHex64(sig.slots[2]), "3a63f861597dff1e");
  EXPECT_EQ(FormatHex64(sig.slots[3]), "38d45f4851e03d9b");
  EXPECT_EQ(FormatHex64(sig.slots[127]), "031ce8415c42a15b");
  const std::string bytes = sig.Serialize();
  EXPECT_EQ(bytes.size(), 1032u);
  EXPECT_EQ(Sha256Hex(bytes),
            "78da2fa41a0534f191035e663b8a9f2a364421208a73c0165b3ba4d9adae8ca2");
}

TEST(GoldenMinHash, FoxK3Xxh3) {
  EXPECT_EQ(Sha256Hex(MinHashOf(kFox, 3).Serialize()),
            "1502bd9e733e6c96336d6f9f1b9239b24abdddae7e62e2aaffd3fa11f3d1b4d1");
}

TEST(GoldenMinHash, FoxK5Murmur3) {
  EXPECT_EQ(Sha256Hex(MinHashOf(kFox, 5, HashFamily::kMurmur3).Serialize()),
            "9f96c3f9cde0e5f69989dbac21c2c2f65abf30b2f871c08ea3ded0c5b21f705b");
}

TEST(GoldenMinHash, HelloWorldIsOneShingle) {
  const MinHashSignature sig = MinHashOf("Hello, World!", 5);
  EXPECT_EQ(FormatHex64(sig.slots[0]), "e7f3ff70136144b7");
  EXPECT_EQ(FormatHex64(sig.slots[1]), "bbbf417066df11ff");
  // The single shingle is "hello world": same as fingerprinting it directly.
  EXPECT_EQ(sig, MinHashOf("hello world", 5));
}

TEST(GoldenSimHash, Fox) {
  EXPECT_EQ(FormatHex64(SimHashOf(kFox)), "ce0e315a6cc6f940");
  EXPECT_EQ(FormatHex64(SimHashOf(kFox, HashFamily::kMurmur3)),
            "7b4dd140e45ae07f");
}

TEST(GoldenSimHash, HelloWorld) {
  EXPECT_EQ(FormatHex64(SimHashOf("Hello World")), "18064d31b1181001");
}

TEST(GoldenConfigHash, Defaults) {
  auto minhash = MinHasher::Create();
  ASSERT_OK(minhash);
  EXPECT_EQ(FormatHex64(minhash->config_hash()), "1ffc8214c1e9e9db");
  auto simhash = SimHasher::Create();
  ASSERT_OK(simhash);
  EXPECT_EQ(FormatHex64(simhash->config_hash()), "cd2b56b620c8dd97");
}

}  // namespace
}  // namespace neardup
