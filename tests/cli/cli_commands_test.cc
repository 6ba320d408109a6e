#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "neardup/cli/commands.h"
#include "support/sha256.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace neardup::cli {
namespace {

using ::neardup::testing::Sha256Hex;
using ::neardup::testing::TempDir;
using ::testing::HasSubstr;

constexpr char kFox[] = "the quick brown fox jumps over the lazy dog";

class CliTest : public ::testing::Test {
 protected:
  TempDir dir_;
};

TEST_F(CliTest, CanonicalizePrintsCanonicalText) {
  CanonicalizeCommand cmd;
  cmd.input = dir_.Write("in.txt", "Hello\u200BWorld \uFF21\uFF22\uFF23");
  std::ostringstream out;
  ASSERT_OK(RunCanonicalize(cmd, out));
  EXPECT_EQ(out.str(), "helloworld abc");

  cmd.canonicalizer.case_fold = CaseFold::kNone;
  cmd.canonicalizer.strip_format = false;
  cmd.canonicalizer.normalization = Normalization::kNone;
  std::ostringstream raw;
  ASSERT_OK(RunCanonicalize(cmd, raw));
  EXPECT_EQ(raw.str(), "Hello\u200BWorld \uFF21\uFF22\uFF23");
}

TEST_F(CliTest, FingerprintRawIsTheWireFormat) {
  FingerprintCommand cmd;
  cmd.input = dir_.Write("fox.txt", kFox);
  cmd.format = "raw";
  std::ostringstream out;
  ASSERT_OK(RunFingerprint(cmd, out));
  EXPECT_EQ(out.str().size(), 1032u);
  EXPECT_EQ(Sha256Hex(out.str()),
            "78da2fa41a0534f191035e663b8a9f2a364421208a73c0165b3ba4d9adae8ca2");
}

TEST_F(CliTest, FingerprintHexAndOptions) {
  FingerprintCommand cmd;
  cmd.input = dir_.Write("fox.txt", kFox);
  std::ostringstream hex;
  ASSERT_OK(RunFingerprint(cmd, hex));
  EXPECT_EQ(hex.str().size(), 2 * 1032u + 1);
  EXPECT_EQ(hex.str().substr(0, 16), "0100000000000000");  // schema + padding

  cmd.fingerprint.shingle_k = 3;
  cmd.format = "raw";
  std::ostringstream k3;
  ASSERT_OK(RunFingerprint(cmd, k3));
  EXPECT_EQ(Sha256Hex(k3.str()),
            "1502bd9e733e6c96336d6f9f1b9239b24abdddae7e62e2aaffd3fa11f3d1b4d1");

  cmd.fingerprint.shingle_k = 5;
  cmd.fingerprint.family = HashFamily::kMurmur3;
  std::ostringstream mmh3;
  ASSERT_OK(RunFingerprint(cmd, mmh3));
  EXPECT_EQ(Sha256Hex(mmh3.str()),
            "9f96c3f9cde0e5f69989dbac21c2c2f65abf30b2f871c08ea3ded0c5b21f705b");
}

TEST_F(CliTest, FingerprintSimHashDefaultsToPlainWords) {
  FingerprintCommand cmd;
  cmd.input = dir_.Write("fox.txt", kFox);
  cmd.algorithm = "simhash";
  std::ostringstream out;
  ASSERT_OK(RunFingerprint(cmd, out));
  EXPECT_EQ(out.str(), "ce0e315a6cc6f940\n");

  cmd.format = "json";
  std::ostringstream json;
  ASSERT_OK(RunFingerprint(cmd, json));
  EXPECT_THAT(json.str(), HasSubstr("\"config_hash\":\"cd2b56b620c8dd97\""));
  EXPECT_THAT(json.str(), HasSubstr("\"simhash\":\"ce0e315a6cc6f940\""));
}

TEST_F(CliTest, FingerprintJsonCarriesSlotsAndConfigHash) {
  FingerprintCommand cmd;
  cmd.input = dir_.Write("hw.txt", "Hello, World!");
  cmd.format = "json";
  std::ostringstream out;
  ASSERT_OK(RunFingerprint(cmd, out));
  EXPECT_THAT(out.str(), HasSubstr("\"config_hash\":\"1ffc8214c1e9e9db\""));
  EXPECT_THAT(
      out.str(),
      HasSubstr("\"slots\":[\"e7f3ff70136144b7\",\"bbbf417066df11ff\","));
}

TEST_F(CliTest, FingerprintErrorsNameTheProblem) {
  FingerprintCommand cmd;
  cmd.input = dir_.Write("empty.txt", "  \n ");
  std::ostringstream out;
  absl::Status s = RunFingerprint(cmd, out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("empty.txt: empty document"));

  cmd.input = dir_.Write("bad.txt", "abc\xC0\x80");
  s = RunFingerprint(cmd, out);
  EXPECT_THAT(s.message(), HasSubstr("invalid UTF-8 at byte 3"));

  cmd.input = dir_.path() + "/missing.txt";
  EXPECT_EQ(RunFingerprint(cmd, out).code(), absl::StatusCode::kNotFound);

  cmd.input = dir_.Write("ok.txt", kFox);
  cmd.format = "yaml";
  EXPECT_THAT(RunFingerprint(cmd, out).message(), HasSubstr("--format"));
  cmd.format = "hex";
  cmd.fingerprint.num_perm = 100;
  EXPECT_THAT(RunFingerprint(cmd, out).message(), HasSubstr("num_perm"));
  cmd.fingerprint.num_perm = 128;
  cmd.fingerprint.tokenizer = "sentence";
  EXPECT_THAT(RunFingerprint(cmd, out).message(),
              HasSubstr("unknown tokenizer \"sentence\""));
  EXPECT_TRUE(out.str().empty());  // nothing written on any error
}

// Flag values are parsed by core's parsers while the command line is read:
// a bad one stops there, naming the flag.
TEST_F(CliTest, BadFlagValuesNameTheFlag) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--seed", "12x"}, "--seed"},
      {{"--seed", "99999999999999999999"}, "not a 64-bit"},
      {{"--hash", "sha1"}, "unknown hash family"},
      {{"--weighting", "idf2"}, "unknown SimHash weighting"},
      {{"--normalization", "nfd"}, "normalization must be"},
      {{"--case-fold", "upper"}, "case folding must be"},
      {{"--ngram", "65"}, "--ngram"},
  };
  for (const Case& c : cases) {
    CLI::App app;
    FingerprintCommand cmd;
    AddFingerprintCommand(&app, &cmd);
    std::vector<std::string> args = {"fingerprint"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    std::reverse(args.begin(), args.end());  // CLI11 parses a reversed list
    try {
      app.parse(args);
      ADD_FAILURE() << c.args[0] << " " << c.args[1] << " was accepted";
    } catch (const CLI::ParseError& e) {
      EXPECT_THAT(e.what(), HasSubstr(c.message)) << c.args[1];
    }
  }
}

TEST_F(CliTest, CompareReportsAllMeasures) {
  CompareCommand cmd;
  cmd.input_a = dir_.Write("a.txt", "a b c d e f g h i j");
  cmd.input_b = dir_.Write("b.txt", "a b c d e f g h i j");
  cmd.json = true;
  cmd.fingerprint.shingle_k = 1;  // plain words
  std::ostringstream same;
  ASSERT_OK(RunCompare(cmd, same));
  EXPECT_THAT(same.str(), HasSubstr("\"estimated_jaccard\":1.0,"));
  EXPECT_THAT(same.str(), HasSubstr("\"exact_jaccard\":1.0,"));
  EXPECT_THAT(same.str(), HasSubstr("\"hamming\":0"));

  cmd.input_b = dir_.Write("c.txt", "a b c d e k l m n o");  // 5 of 15 shared
  std::ostringstream half;
  ASSERT_OK(RunCompare(cmd, half));
  EXPECT_THAT(half.str(), HasSubstr("\"exact_jaccard\":0.333333"));

  cmd.json = false;
  std::ostringstream text;
  ASSERT_OK(RunCompare(cmd, text));
  EXPECT_THAT(text.str(), HasSubstr("exact jaccard      0.3333"));
  EXPECT_THAT(text.str(), HasSubstr("cosine estimate"));
}

TEST_F(CliTest, CompareNamesTheEmptyFile) {
  CompareCommand cmd;
  cmd.input_a = dir_.Write("a.txt", "some words here");
  cmd.input_b = dir_.Write("b.txt", "...");
  std::ostringstream out;
  EXPECT_THAT(RunCompare(cmd, out).message(),
              HasSubstr("b.txt: empty document"));
}

}  // namespace
}  // namespace neardup::cli
