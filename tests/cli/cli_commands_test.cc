#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "neardup/cli/commands.h"
#include "neardup/core/perceptual.h"
#include "neardup/core/tlsh.h"
#include "support/sha256.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace neardup::cli {
namespace {

using ::neardup::testing::Sha256Hex;
using ::neardup::testing::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;

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
  EXPECT_THAT(RunFingerprint(cmd, out).message(), HasSubstr("--output-format"));
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
      {{"--hash", "sha1"}, "hash family must be"},
      {{"--weighting", "idf2"}, "SimHash weighting must be"},
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

// 300 bytes of varied prose, enough for TLSH.
std::string TlshText() {
  std::string text;
  for (int i = 0; text.size() < 300; ++i) {
    text += "line " + std::to_string(i * 7919 % 1000) + " of the sample, ";
  }
  return text;
}

TEST_F(CliTest, FingerprintTlshCanonicalAndRaw) {
  FingerprintCommand cmd;
  cmd.algorithm = "tlsh";
  const std::string text = TlshText();
  std::string shouted = text;
  for (char& c : shouted) c = static_cast<char>(std::toupper(c));
  cmd.input = dir_.Write("a.txt", text);
  std::ostringstream lower_hex;
  ASSERT_OK(RunFingerprint(cmd, lower_hex));
  EXPECT_EQ(lower_hex.str(), FormatTlsh(*TlshOfBytes(text)) + "\n");
  cmd.input = dir_.Write("b.txt", shouted);
  std::ostringstream upper_hex;
  ASSERT_OK(RunFingerprint(cmd, upper_hex));
  EXPECT_EQ(upper_hex.str(), lower_hex.str()) << "canonicalized first";

  cmd.raw_bytes = true;  // bytes as they are: case counts, UTF-8 need not
  std::ostringstream raw_hex;
  ASSERT_OK(RunFingerprint(cmd, raw_hex));
  EXPECT_EQ(raw_hex.str(), FormatTlsh(*TlshOfBytes(shouted)) + "\n");
  std::string binary = shouted;
  binary[7] = '\xff';
  cmd.input = dir_.Write("c.bin", binary);
  std::ostringstream binary_hex;
  ASSERT_OK(RunFingerprint(cmd, binary_hex));
  cmd.raw_bytes = false;
  std::ostringstream refused;
  EXPECT_FALSE(RunFingerprint(cmd, refused).ok());

  cmd.raw_bytes = true;
  cmd.format = "json";
  std::ostringstream json;
  ASSERT_OK(RunFingerprint(cmd, json));
  EXPECT_THAT(json.str(), HasSubstr("\"algorithm\":\"tlsh-128-1\""));
  EXPECT_THAT(json.str(), HasSubstr("\"canonicalizer\":\"raw\""));
  cmd.format = "raw";
  std::ostringstream bytes;
  ASSERT_OK(RunFingerprint(cmd, bytes));
  EXPECT_EQ(bytes.str().size(), 35u);

  cmd.format = "hex";
  cmd.input = dir_.Write("short.txt", "too short for tlsh");
  std::ostringstream short_out;
  EXPECT_THAT(RunFingerprint(cmd, short_out).message(),
              HasSubstr("short.txt: TLSH needs at least 50 bytes"));
  cmd.algorithm = "minhash";
  EXPECT_THAT(RunFingerprint(cmd, short_out).message(),
              HasSubstr("--raw applies to --kind tlsh only"));
}

TEST_F(CliTest, CompareTlsh) {
  CompareCommand cmd;
  const std::string text = TlshText();
  cmd.input_a = dir_.Write("a.txt", text);
  cmd.input_b = dir_.Write("b.txt", text + " and a few more words at the end");
  cmd.algorithm = "tlsh";
  std::ostringstream distance;
  ASSERT_OK(RunCompare(cmd, distance));
  const int expected =
      TlshDistance(*TlshOfBytes(text),
                   *TlshOfBytes(text + " and a few more words at the end"));
  EXPECT_EQ(distance.str(), std::to_string(expected) + "\n");
  EXPECT_GT(expected, 0);
  cmd.json = true;
  cmd.raw_bytes = true;
  std::ostringstream json;
  ASSERT_OK(RunCompare(cmd, json));
  EXPECT_THAT(json.str(), HasSubstr("\"tlsh_distance_without_length\":"));
  EXPECT_THAT(json.str(), HasSubstr("\"tlsh_a\":\"T1"));

  // "all" adds TLSH when it can, and says why when it cannot.
  cmd = CompareCommand();
  cmd.input_a = dir_.Write("c.txt", text);
  cmd.input_b = dir_.Write("d.txt", text);
  std::ostringstream all;
  ASSERT_OK(RunCompare(cmd, all));
  EXPECT_THAT(all.str(), HasSubstr("tlsh distance      0 "));
  cmd.input_b = dir_.Write("e.txt", "a short note");
  std::ostringstream short_all;
  ASSERT_OK(RunCompare(cmd, short_all));
  EXPECT_THAT(short_all.str(), HasSubstr("tlsh distance      n/a"));
  EXPECT_THAT(short_all.str(), HasSubstr("e.txt: TLSH needs at least 50"));
}

TEST_F(CliTest, NewsbotFingerprintAndCompare) {
  FingerprintCommand cmd;
  cmd.algorithm = "newsbot";
  cmd.input = dir_.Write("fox.txt", "The quick brown fox");
  std::ostringstream hex;
  ASSERT_OK(RunFingerprint(cmd, hex));
  EXPECT_EQ(hex.str(), "2c02008001828212\n");  // see newsbot_simhash_test
  cmd.bits = 128;
  cmd.format = "json";
  std::ostringstream json;
  ASSERT_OK(RunFingerprint(cmd, json));
  EXPECT_THAT(json.str(),
              HasSubstr("\"simhash\":\"0fd470685f8966c02c02008001828212\""));
  EXPECT_THAT(json.str(), HasSubstr("\"algorithm\":\"simhash-newsbot-b128\""));
  cmd.bits = 16;
  cmd.format = "raw";
  std::ostringstream raw;
  ASSERT_OK(RunFingerprint(cmd, raw));
  EXPECT_EQ(raw.str(), std::string("\x82\x12", 2));

  CompareCommand compare;
  compare.algorithm = "newsbot";
  compare.input_a = dir_.Write("a.txt", "Breaking news about technology");
  compare.input_b = dir_.Write("b.txt", "Breaking news about technology");
  std::ostringstream same;
  ASSERT_OK(RunCompare(compare, same));
  EXPECT_EQ(same.str(), "0\n");
  compare.input_b = dir_.Write("c.txt", "Sports update today");
  compare.json = true;
  std::ostringstream differ;
  ASSERT_OK(RunCompare(compare, differ));
  EXPECT_THAT(differ.str(), HasSubstr("\"simhash_b\":\"dd59f05236d223c8\""));
  EXPECT_THAT(differ.str(), Not(HasSubstr("\"hamming\":0,")));
}

TEST_F(CliTest, PerceptualFingerprintAndCompare) {
  const std::string text = TlshText();  // 50-odd words
  FingerprintCommand cmd;
  cmd.algorithm = "perceptual";
  cmd.input = dir_.Write("a.txt", text);
  cmd.format = "json";
  std::ostringstream json;
  ASSERT_OK(RunFingerprint(cmd, json));
  EXPECT_THAT(json.str(), HasSubstr("\"algorithm\":\"rolling+minq+minhash_v1-"
                                    "k9-w4-h128\""));
  EXPECT_THAT(json.str(), HasSubstr("\"w\":4"));
  cmd.format = "hex";
  cmd.winnow_window = 1;
  cmd.fingerprint.shingle_k = 3;
  std::ostringstream hex;
  ASSERT_OK(RunFingerprint(cmd, hex));
  PerceptualConfig config;
  config.k = 3;
  config.w = 1;
  const PerceptualHasher hasher = *PerceptualHasher::Create(config);
  std::string expected;
  for (unsigned char c : hasher.Fingerprint(text)->minhash.Serialize()) {
    absl::StrAppendFormat(&expected, "%02x", c);
  }
  EXPECT_EQ(hex.str(), expected + "\n");
  cmd.input = dir_.Write("short.txt", "too few words");
  cmd.fingerprint.shingle_k = 0;
  std::ostringstream refused;
  EXPECT_THAT(RunFingerprint(cmd, refused).message(),
              HasSubstr("short.txt: not enough tokens"));

  CompareCommand compare;
  compare.algorithm = "perceptual";
  compare.input_a = dir_.Write("c.txt", text);
  compare.input_b = dir_.Write("d.txt", text);
  compare.json = true;
  std::ostringstream same;
  ASSERT_OK(RunCompare(compare, same));
  EXPECT_THAT(same.str(), HasSubstr("\"estimated_jaccard\":1.0"));
  EXPECT_THAT(same.str(), HasSubstr("\"winnowed_jaccard\":1.0"));
  compare.input_b =
      dir_.Write("e.txt", "completely different words " + text.substr(0, 40));
  std::ostringstream differ;
  ASSERT_OK(RunCompare(compare, differ));
  EXPECT_THAT(differ.str(), Not(HasSubstr("\"winnowed_jaccard\":1.0")));
}

TEST_F(CliTest, CompareExplainMarksSharedPassages) {
  CompareCommand cmd;
  cmd.input_a = dir_.Write(
      "a.txt", "Minutes: the quick brown fox jumps over the lazy dog. End.");
  cmd.input_b = dir_.Write(
      "b.txt", "Yesterday THE QUICK BROWN FOX jumps over the lazy cat.");
  cmd.explain = true;
  std::ostringstream text;
  ASSERT_OK(RunCompare(cmd, text));
  EXPECT_THAT(text.str(), HasSubstr("estimated jaccard"));
  EXPECT_THAT(text.str(), HasSubstr("shared passages    1 "));
  EXPECT_THAT(text.str(), HasSubstr("8 words  \"the quick brown fox jumps "
                                    "over the lazy\""));
  EXPECT_THAT(text.str(), HasSubstr("Minutes: [[the quick brown fox jumps over "
                                    "the lazy]] dog. End."));
  cmd.json = true;
  std::ostringstream json;
  ASSERT_OK(RunCompare(cmd, json));
  EXPECT_THAT(json.str(), HasSubstr("\"estimated_jaccard\":"));
  EXPECT_THAT(json.str(), HasSubstr("\"passages\":[{\"a_begin\":9,"));
  EXPECT_THAT(json.str(), HasSubstr("\"passages_truncated\":false"));
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
