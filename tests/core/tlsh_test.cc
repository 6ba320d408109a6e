#include "neardup/core/tlsh.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "support/status_matchers.h"

namespace neardup {
namespace {

using ::testing::HasSubstr;

// Deterministic English-like bytes: words from a small vocabulary.
std::string Prose(int seed, int words) {
  static const char* kWords[] = {"near",   "duplicate", "text",   "server",
                                 "index",  "signature", "bucket", "quartile",
                                 "length", "the",       "of",     "and",
                                 "rocks",  "column",    "family", "window"};
  std::mt19937 rng(seed);
  std::string out;
  for (int i = 0; i < words; ++i) {
    if (i > 0) out += (rng() % 9 == 0) ? ". " : " ";
    out += kWords[rng() % 16];
  }
  return out;
}

// Frozen outputs of this implementation (checked against the reference's
// data below when it is present): any change to them changes every stored
// TLSH.
TEST(Tlsh, GoldenVectors) {
  struct Case {
    std::string input;
    const char* hash;
  };
  const Case cases[] = {
      {Prose(1, 40),
       "T11BD05E27CC3013F7D1FA18A1AADE73C7FD0B84B8B49850872490B2427054683CC382F"
       "0"},
      {Prose(2, 400),
       "T15F51CD0ED63003F6E6F60071AB87A7D3FF5B44B890C895462494EB1A7169A5FC9BC2F"
       "1"},
      {std::string("The quick brown fox jumps over the lazy dog while the cat "
                   "watches from the warm windowsill, unimpressed."),

       "T158B012FD541C2366219524C8434E51FA81CAD57031730440A5795105945C023DCC84E"
       "2"},
  };
  for (const Case& c : cases) {
    ASSERT_OK_AND_ASSIGN(const TlshDigest digest, TlshOfBytes(c.input));
    EXPECT_EQ(FormatTlsh(digest), c.hash) << c.input.substr(0, 40);
  }
}

TEST(Tlsh, RefusesShortAndUniformInput) {
  auto short_input = TlshOfBytes(std::string(49, 'x'));
  EXPECT_EQ(short_input.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(short_input.status().message(), HasSubstr("at least 50 bytes"));
  auto uniform = TlshOfBytes(std::string(5000, 'a'));
  EXPECT_EQ(uniform.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(uniform.status().message(), HasSubstr("too uniform"));
  // 50 bytes is enough when they vary.
  std::string varied;
  for (int i = 0; i < 50; ++i) varied.push_back(static_cast<char>(i * 37));
  EXPECT_OK(TlshOfBytes(varied));
}

TEST(Tlsh, FormatAndParseRoundTrip) {
  ASSERT_OK_AND_ASSIGN(const TlshDigest digest, TlshOfBytes(Prose(3, 300)));
  const std::string hex = FormatTlsh(digest);
  ASSERT_EQ(hex.size(), 72u);
  EXPECT_EQ(hex.substr(0, 2), "T1");
  EXPECT_EQ(*ParseTlsh(hex), digest);
  EXPECT_EQ(*ParseTlsh(hex.substr(2)), digest);  // without the version
  std::string lower = hex;
  for (char& c : lower) c = static_cast<char>(std::tolower(c));
  lower[0] = 'T';
  EXPECT_EQ(*ParseTlsh(lower), digest);
  EXPECT_THAT(ParseTlsh("T1ABC").status().message(), HasSubstr("70 hex"));
  std::string bad = hex;
  bad[10] = 'G';
  EXPECT_THAT(ParseTlsh(bad).status().message(), HasSubstr("non-hex"));
}

TEST(Tlsh, DistanceProperties) {
  const std::string base = Prose(4, 500);
  std::string edited = base;
  for (int i = 0; i < 20; ++i) edited[i * 97 % edited.size()] = '#';
  const TlshDigest a = *TlshOfBytes(base);
  const TlshDigest b = *TlshOfBytes(edited);
  const TlshDigest c = *TlshOfBytes(Prose(5, 2000));
  EXPECT_EQ(TlshDistance(a, a), 0);
  EXPECT_EQ(TlshDistance(a, b), TlshDistance(b, a));
  EXPECT_LT(TlshDistance(a, b), TlshDistance(a, c));
  EXPECT_GE(TlshDistance(a, c), TlshDistance(a, c, false));
  // Same bytes, same hash: deterministic.
  EXPECT_EQ(*TlshOfBytes(base), a);
}

TEST(Tlsh, FingerprinterCanonicalizesFirst) {
  ASSERT_OK_AND_ASSIGN(const TlshFingerprinter fp, TlshFingerprinter::Create());
  const std::string text = Prose(6, 200);
  std::string shouted = text;
  for (char& c : shouted) c = static_cast<char>(std::toupper(c));
  EXPECT_EQ(*fp.Fingerprint(text), *fp.Fingerprint(shouted));
  EXPECT_NE(*TlshOfBytes(text), *TlshOfBytes(shouted));
  auto short_text = fp.Fingerprint("only a few words here");
  EXPECT_THAT(short_text.status().message(),
              HasSubstr("after canonicalization"));
  EXPECT_FALSE(fp.Fingerprint("\xff\xfe invalid").ok());
  EXPECT_NE(fp.config_hash(), TlshFingerprinter::RawConfigHash());
}

// The reference implementation's own test data (trendmicro/tlsh Testing/),
// when ../shared/data is present: every file's T1 hash, and its distance to
// one file with and without the length term.
TEST(Tlsh, MatchesTheReferenceImplementation) {
  const std::filesystem::path dir = NEARDUP_TLSH_REFERENCE_DIR;
  if (!std::filesystem::exists(dir / "example_data.128.1.len.out_EXP")) {
    GTEST_SKIP() << "no TLSH reference data at " << dir;
  }
  auto read = [](const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
  };
  auto digest_of = [&](const std::string& name) {
    return TlshOfBytes(read(dir / name));
  };
  std::ifstream hashes(dir / "example_data.128.1.len.out_EXP");
  std::string line;
  int checked = 0;
  while (std::getline(hashes, line)) {
    const size_t tab = line.find('\t');
    ASSERT_NE(tab, std::string::npos) << line;
    ASSERT_OK_AND_ASSIGN(const TlshDigest digest,
                         digest_of(line.substr(tab + 1)));
    EXPECT_EQ(FormatTlsh(digest), line.substr(0, tab)) << line;
    ++checked;
  }
  EXPECT_EQ(checked, 80);
  for (const bool with_length : {true, false}) {
    std::ifstream scores(dir / (with_length
                                    ? "example_data.128.1.len.scores_EXP"
                                    : "example_data.128.1.xlen.scores_EXP"));
    int pairs = 0;
    while (std::getline(scores, line)) {
      std::istringstream fields(line);
      std::string a, b;
      int expected = 0;
      fields >> a >> b >> expected;
      ASSERT_OK_AND_ASSIGN(const TlshDigest da, digest_of(a));
      ASSERT_OK_AND_ASSIGN(const TlshDigest db, digest_of(b));
      EXPECT_EQ(TlshDistance(da, db, with_length), expected) << line;
      ++pairs;
    }
    EXPECT_EQ(pairs, 80);
  }
}

}  // namespace
}  // namespace neardup
