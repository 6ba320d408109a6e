// End-to-end `neardup dedup` runs, in process, on small made-up datasets
// with known clusters.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "dedup/dedup_fixtures.h"
#include "neardup/base/json.h"
#include "neardup/dedup/dedup.h"
#include "support/run_command.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace neardup::dedup {
namespace {

using ::neardup::testing::Join;
using ::neardup::testing::TempDir;
using ::neardup::testing::WithWordReplaced;
using ::neardup::testing::WordSource;
using ::testing::HasSubstr;

std::string ReadFile(const std::string& path) {
  return ::neardup::testing::FileContents(path);
}

std::string JsonLine(int id, const std::string& text) {
  return ToJsonText(nlohmann::ordered_json{{"id", id}, {"text", text}}) + "\n";
}

// Ten unrelated 200-word documents; 0-2 and 5-6 have near-copies
// (one word replaced, Jaccard 0.95) and exact copies later on.
struct Corpus {
  std::vector<std::string> texts;
  std::vector<bool> duplicate;  // expected to be removed
};

Corpus MakeCorpus() {
  Corpus c;
  std::vector<std::vector<std::string>> bases;
  for (int i = 0; i < 10; ++i) {
    WordSource source(100 + i);
    bases.push_back(source.Words(200));
    c.texts.push_back(Join(bases.back()));
    c.duplicate.push_back(false);
  }
  const int near_of[] = {0, 1, 2, 5, 6};
  for (int base : near_of) {
    c.texts.push_back(Join(WithWordReplaced(bases[base], 100)));
    c.duplicate.push_back(true);
  }
  c.texts.push_back(c.texts[3]);  // exact copy
  c.duplicate.push_back(true);
  return c;
}

class DedupRunTest : public ::testing::Test {
 protected:
  DedupOptions Options(std::vector<std::string> inputs) {
    DedupOptions o;
    o.input.inputs = std::move(inputs);
    o.output = dir_.path() + "/out";
    o.threads = 2;
    o.progress = false;
    return o;
  }
  std::string WriteJsonl(const Corpus& c, const std::string& name) {
    std::string data;
    for (size_t i = 0; i < c.texts.size(); ++i) data += JsonLine(i, c.texts[i]);
    return dir_.Write(name, data);
  }
  static std::string ExpectedJsonl(const Corpus& c) {
    std::string data;
    for (size_t i = 0; i < c.texts.size(); ++i) {
      if (!c.duplicate[i]) data += JsonLine(i, c.texts[i]);
    }
    return data;
  }

  TempDir dir_;
};

TEST_F(DedupRunTest, EachAlgorithmAndVerifyModeFindsTheKnownClusters) {
  const Corpus corpus = MakeCorpus();
  const std::string input = WriteJsonl(corpus, "in.jsonl");
  struct Case {
    Algorithm algorithm;
    Verify verify;
    SimHashVariant variant = SimHashVariant::kTxtfp;
  };
  const Case cases[] = {
      {Algorithm::kMinHashLsh, Verify::kNone},
      {Algorithm::kMinHashLsh, Verify::kEstimate},
      {Algorithm::kMinHashLsh, Verify::kExact},
      {Algorithm::kLshBloom, Verify::kEstimate},
      {Algorithm::kSimHash, Verify::kEstimate},
      {Algorithm::kSimHash, Verify::kExact},
      {Algorithm::kSimHash, Verify::kEstimate, SimHashVariant::kNewsbot},
      {Algorithm::kSimHash, Verify::kExact, SimHashVariant::kNewsbot},
      // (Not with --verification none: its banding trades recall for precision,
      // and a one-word edit leaves a winnowed Jaccard near 0.85.)
      {Algorithm::kPerceptual, Verify::kEstimate},
      {Algorithm::kPerceptual, Verify::kExact},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(static_cast<int>(c.algorithm) * 100 +
                 static_cast<int>(c.verify) * 10 + static_cast<int>(c.variant));
    DedupOptions o = Options({input});
    o.algorithm = c.algorithm;
    o.verify = c.verify;
    o.simhash_variant = c.variant;
    // A one-word edit moves a 200-word SimHash by a few bits.
    o.max_distance = 6;
    absl::StatusOr<RunStats> stats = RunDedup(o);
    ASSERT_OK(stats);
    EXPECT_EQ(stats->total, 16u);
    EXPECT_EQ(stats->duplicates, 6u);
    EXPECT_EQ(stats->unique, 10u);
    EXPECT_EQ(ReadFile(o.output), ExpectedJsonl(corpus));
    if (c.verify == Verify::kExact) {
      // Sets of 32-bit hashes decide alike (a collision is a 2^-32 event).
      o.evidence_bits = 32;
      stats = RunDedup(o);
      ASSERT_OK(stats);
      EXPECT_EQ(stats->duplicates, 6u);
      EXPECT_EQ(ReadFile(o.output), ExpectedJsonl(corpus));
    }
  }
}

TEST_F(DedupRunTest, VariantOptionsAreChecked) {
  DedupOptions o = Options({"in.jsonl"});
  o.simhash_variant = SimHashVariant::kNewsbot;
  EXPECT_THAT(ValidateOptions(o).message(),
              HasSubstr("--simhash-variant newsbot needs --method simhash"));
  o.algorithm = Algorithm::kSimHash;
  o.simhash_bits = 16;
  EXPECT_THAT(ValidateOptions(o).message(), HasSubstr("--bits must be 64"));
  o.simhash_bits = 64;
  EXPECT_OK(ValidateOptions(o));
  o = Options({"in.jsonl"});
  o.winnow_window = 8;
  EXPECT_THAT(ValidateOptions(o).message(),
              HasSubstr("--winnow-window applies to --method perceptual"));
  o.algorithm = Algorithm::kPerceptual;
  EXPECT_OK(ValidateOptions(o));
  o.winnow_window = 0;
  EXPECT_THAT(ValidateOptions(o).message(), HasSubstr("w must be"));
  EXPECT_EQ(*ParseAlgorithm("perceptual"), Algorithm::kPerceptual);
  EXPECT_EQ(AlgorithmName(Algorithm::kPerceptual), "perceptual");
  EXPECT_FALSE(ParseSimHashVariant("charikar").ok());
  o = Options({"in.jsonl"});
  o.evidence_bits = 16;
  EXPECT_THAT(ValidateOptions(o).message(),
              HasSubstr("--evidence-bits must be 32 or 64, got 16"));
  o.evidence_bits = 32;
  EXPECT_OK(ValidateOptions(o));
  o.verify = Verify::kEstimate;
  EXPECT_THAT(ValidateOptions(o).message(),
              HasSubstr("narrows the shingle sets of --verification exact"));
  o.verify = Verify::kExact;
  o.algorithm = Algorithm::kSuffixArray;
  EXPECT_THAT(ValidateOptions(o).message(),
              HasSubstr("suffix-array compares spans of text"));
}

// Each --method and --verification name parses to its value and back; the
// tables' first rows are DedupOptions' defaults.
TEST(DedupOptionNames, MethodsAndVerificationsRoundTrip) {
  for (const auto& row : kDedupMethods.rows) {
    ASSERT_OK_AND_ASSIGN(const Algorithm parsed, ParseAlgorithm(row.name));
    EXPECT_EQ(parsed, row.value);
    EXPECT_EQ(AlgorithmName(parsed), row.name);
  }
  for (const auto& row : kDedupVerifications.rows) {
    ASSERT_OK_AND_ASSIGN(const Verify parsed, ParseVerify(row.name));
    EXPECT_EQ(parsed, row.value);
    EXPECT_EQ(VerifyName(parsed), row.name);
  }
  // Every value has its own row (a value without one would be named as
  // the first row's, mislabelling --stats).
  for (const Algorithm value :
       {Algorithm::kMinHashLsh, Algorithm::kLshBloom, Algorithm::kSimHash,
        Algorithm::kSuffixArray, Algorithm::kPerceptual}) {
    EXPECT_EQ(kDedupMethods.Row(value).value, value);
  }
  for (const Verify value :
       {Verify::kNone, Verify::kEstimate, Verify::kExact}) {
    EXPECT_EQ(kDedupVerifications.Row(value).value, value);
  }
  EXPECT_EQ(*ParseAlgorithm("minhash"), Algorithm::kMinHashLsh);
  EXPECT_EQ(kDedupMethods.rows[0].value, DedupOptions().algorithm);
  EXPECT_EQ(kDedupVerifications.rows[0].value, DedupOptions().verify);
  EXPECT_EQ(ParseVerify("maybe").status().message(),
            "--verification must be exact, none or estimate, got \"maybe\"");
}

TEST_F(DedupRunTest, ClustersNameTheFirstOccurrence) {
  const Corpus corpus = MakeCorpus();
  DedupOptions o = Options({WriteJsonl(corpus, "in.jsonl")});
  o.verify = Verify::kExact;
  o.clusters_path = dir_.path() + "/clusters.jsonl";
  ASSERT_OK(RunDedup(o));
  EXPECT_EQ(ReadFile(o.clusters_path),
            "{\"representative\":0,\"members\":[0,10],\"size\":2,"
            "\"mean_similarity\":0.950249}\n"
            "{\"representative\":1,\"members\":[1,11],\"size\":2,"
            "\"mean_similarity\":0.950249}\n"
            "{\"representative\":2,\"members\":[2,12],\"size\":2,"
            "\"mean_similarity\":0.950249}\n"
            "{\"representative\":3,\"members\":[3,15],\"size\":2,"
            "\"mean_similarity\":1.0}\n"
            "{\"representative\":5,\"members\":[5,13],\"size\":2,"
            "\"mean_similarity\":0.950249}\n"
            "{\"representative\":6,\"members\":[6,14],\"size\":2,"
            "\"mean_similarity\":0.950249}\n");
}

// --explain: every removed member lists the passages it shares with its
// representative, as byte ranges of the two texts that hold equal words.
TEST_F(DedupRunTest, ExplainedClustersListPassagesOfEqualText) {
  const Corpus corpus = MakeCorpus();
  DedupOptions o = Options({WriteJsonl(corpus, "in.jsonl")});
  o.clusters_path = dir_.path() + "/clusters.jsonl";
  o.explain = true;
  o.batch_records = 3;  // representatives and members in different batches
  ASSERT_OK(RunDedup(o));
  std::istringstream lines(ReadFile(o.clusters_path));
  std::string line;
  int explained = 0;
  while (std::getline(lines, line)) {
    const nlohmann::json cluster = nlohmann::json::parse(line);
    const std::string& rep = corpus.texts[cluster["representative"].get<int>()];
    ASSERT_EQ(cluster["explain"].size(), cluster["members"].size() - 1);
    for (const nlohmann::json& member : cluster["explain"]) {
      const std::string& text = corpus.texts[member["member"].get<int>()];
      EXPECT_FALSE(member["truncated"].get<bool>());
      ASSERT_GE(member["passages"].size(), 1u);
      size_t words = 0;
      for (const nlohmann::json& p : member["passages"]) {
        const size_t rb = p["representative"][0], re = p["representative"][1];
        const size_t mb = p["member"][0], me = p["member"][1];
        EXPECT_EQ(rep.substr(rb, re - rb), text.substr(mb, me - mb));
        words += p["words"].get<size_t>();
      }
      // One replaced word of 200 leaves at least 190 of them shared.
      EXPECT_GE(words, 190u);
      ++explained;
    }
  }
  EXPECT_EQ(explained, 6);

  // Without --explain the clusters are as before: no "explain" key.
  o.explain = false;
  ASSERT_OK(RunDedup(o));
  EXPECT_THAT(ReadFile(o.clusters_path), ::testing::Not(HasSubstr("explain")));
}

TEST_F(DedupRunTest, ExplainNeedsClustersAndAFileInput) {
  DedupOptions o = Options({"in.jsonl"});
  o.explain = true;
  EXPECT_THAT(ValidateOptions(o).message(), HasSubstr("needs --clusters"));
  o.clusters_path = "c.jsonl";
  EXPECT_OK(ValidateOptions(o));
  o.input.inputs = {"-"};
  EXPECT_THAT(ValidateOptions(o).message(), HasSubstr("standard input"));
}

TEST_F(DedupRunTest, ExactVerifyNeverMergesBelowTheThreshold) {
  // Pairs at Jaccard 0.95 (one edit) and about 0.84 (four edits):
  // with --threshold 0.9 only the first kind may merge.
  WordSource source(7);
  const std::vector<std::string> base = source.Words(200);
  std::vector<std::string> far = base;
  for (size_t at : {20, 70, 120, 170}) far = WithWordReplaced(far, at);
  std::string data = JsonLine(0, Join(base)) + JsonLine(1, Join(far)) +
                     JsonLine(2, Join(WithWordReplaced(base, 100)));
  DedupOptions o = Options({dir_.Write("in.jsonl", data)});
  o.threshold = 0.9;
  o.verify = Verify::kExact;
  absl::StatusOr<RunStats> stats = RunDedup(o);
  ASSERT_OK(stats);
  EXPECT_EQ(stats->duplicates, 1u);
  EXPECT_EQ(ReadFile(o.output),
            JsonLine(0, Join(base)) + JsonLine(1, Join(far)));
}

TEST_F(DedupRunTest, SameBytesForOneAndTwoThreadsAndAcrossRuns) {
  // Many small batches, so the two workers really interleave.
  std::string data;
  for (int i = 0; i < 300; ++i) {
    WordSource source(1000 + i % 120);  // 180 repeats of 120 documents
    std::vector<std::string> words = source.Words(60);
    if (i >= 120) words = WithWordReplaced(words, i % 60);
    data += JsonLine(i, Join(words));
  }
  const std::string input = dir_.Write("in.jsonl", data);
  // The default (--verification exact, with its lazily sorted kept sets) and
  // the index alone.
  for (Verify verify : {Verify::kExact, Verify::kNone}) {
    std::string first;
    for (int threads : {1, 2, 2, 1, 3}) {
      DedupOptions o = Options({input});
      o.threads = threads;
      o.batch_records = 7;
      o.verify = verify;
      o.clusters_path = dir_.path() + "/clusters";
      ASSERT_OK(RunDedup(o));
      const std::string out = ReadFile(o.output) + ReadFile(o.clusters_path);
      if (first.empty()) first = out;
      EXPECT_EQ(out, first) << "threads=" << threads;
    }
  }
}

TEST_F(DedupRunTest, JsonEscapesAndNonAsciiAreCopiedByteForByte) {
  const std::string a =
      "{\"text\":\"Caf\\u00e9 \\\"quoted\\\" line\\nbreak "
      "\xE6\x97\xA5\xE6\x9C\xAC "
      "\xE8\xAA\x9E text with enough words to "
      "shingle\",\"x\":[1,{\"y\":null}]}\n";
  // Same text, written with raw UTF-8 instead of the escape: a duplicate.
  const std::string b =
      "{\"x\":2,  \"text\":\"Caf\xC3\xA9 \\\"quoted\\\" line\\nbreak "
      "\xE6\x97\xA5\xE6\x9C\xAC \xE8\xAA\x9E text with enough words to "
      "shingle\"}\r\n";
  const std::string c =
      "{\"text\":\"\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5"
      "\xD1\x82 \\ud83d\\ude00 other words entirely\"}";
  DedupOptions o = Options({dir_.Write("in.jsonl", a + b + c)});
  absl::StatusOr<RunStats> stats = RunDedup(o);
  ASSERT_OK(stats);
  EXPECT_EQ(stats->duplicates, 1u);
  EXPECT_EQ(ReadFile(o.output), a + c + "\n");
}

TEST_F(DedupRunTest, CsvWithQuotedNewlinesKeepsHeaderAndRows) {
  const Corpus corpus = MakeCorpus();
  std::string data = "id,text,note\r\n";
  std::string expected = data;
  for (size_t i = 0; i < corpus.texts.size(); ++i) {
    // Newlines and quotes inside the quoted text column.
    std::string text = corpus.texts[i];
    text.replace(text.find(' '), 1, "\n");
    std::string quoted = "\"" + text + " \"\"ok\"\"\"";
    const std::string row = std::to_string(i) + "," + quoted + ",\"n, " +
                            std::to_string(i) + "\"\r\n";
    data += row;
    if (!corpus.duplicate[i]) expected += row;
  }
  const std::string input = dir_.Write("in.csv", data);
  for (Algorithm algorithm :
       {Algorithm::kMinHashLsh, Algorithm::kSimHash, Algorithm::kLshBloom}) {
    SCOPED_TRACE(static_cast<int>(algorithm));
    DedupOptions o = Options({input});
    o.algorithm = algorithm;
    if (algorithm == Algorithm::kLshBloom) o.verify = Verify::kEstimate;
    o.max_distance = 6;
    absl::StatusOr<RunStats> stats = RunDedup(o);
    ASSERT_OK(stats);
    EXPECT_EQ(stats->duplicates, 6u);
    EXPECT_EQ(ReadFile(o.output), expected);
  }
}

TEST_F(DedupRunTest, TsvPicksTheColumnByName) {
  std::string data = "body\tid\n";
  data += "alpha beta gamma delta epsilon\t1\n";
  data += "Alpha Beta Gamma Delta Epsilon\t2\n";  // same after case folding
  data += "zeta eta theta iota kappa\t3\n";
  DedupOptions o = Options({dir_.Write("in.tsv", data)});
  o.input.field = "body";
  ASSERT_OK(RunDedup(o));
  EXPECT_EQ(ReadFile(o.output),
            "body\tid\nalpha beta gamma delta epsilon\t1\n"
            "zeta eta theta iota kappa\t3\n");

  o.input.field = "missing";
  absl::StatusOr<RunStats> bad = RunDedup(o);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("no column \"missing\""));
}

TEST_F(DedupRunTest, TxtLinesAndDocPerFile) {
  const std::string lines =
      "one two three four five six\nOne two three four five six!\n\n"
      "seven eight nine ten eleven\n";
  DedupOptions o = Options({dir_.Write("in.txt", lines)});
  absl::StatusOr<RunStats> stats = RunDedup(o);
  ASSERT_OK(stats);
  EXPECT_EQ(stats->empty, 1u);  // the blank line, kept
  EXPECT_EQ(ReadFile(o.output),
            "one two three four five six\n\nseven eight nine ten eleven\n");

  std::filesystem::create_directories(dir_.path() + "/docs/sub");
  dir_.Write("docs/a.txt", "the same document body in a file");
  dir_.Write("docs/sub/b.txt", "The same document body in a file.\n");
  dir_.Write("docs/c.txt", "a different one");
  DedupOptions files = Options({dir_.path() + "/docs"});
  files.input.doc_per_file = true;
  files.output = dir_.path() + "/kept";
  ASSERT_OK(RunDedup(files));
  EXPECT_EQ(ReadFile(files.output + "/a.txt"),
            "the same document body in a file");
  EXPECT_EQ(ReadFile(files.output + "/c.txt"), "a different one");
  EXPECT_FALSE(std::filesystem::exists(files.output + "/sub/b.txt"));
}

// Markup files by extension with --doc-per-file, and a JSON field of HTML
// with --content-type: duplicates by their visible text; the output keeps
// the records as they were.
TEST_F(DedupRunTest, MarkupByExtensionOrContentType) {
  WordSource source(11);
  const std::string text = Join(source.Words(120));
  const std::string html =
      "<p>" + text + "</p><script>" + Join(source.Words(200)) + "</script>";
  dir_.Write("site/a.html", html);
  dir_.Write("site/b.md", "# " + text + "\n");
  dir_.Write("site/c.txt", Join(source.Words(120)));
  DedupOptions files = Options({dir_.path() + "/site"});
  files.input.doc_per_file = true;
  files.output = dir_.path() + "/kept";
  ASSERT_OK_AND_ASSIGN(RunStats stats, RunDedup(files));
  EXPECT_EQ(stats.duplicates, 1u);
  EXPECT_EQ(ReadFile(files.output + "/a.html"), html);
  EXPECT_FALSE(std::filesystem::exists(files.output + "/b.md"));

  // The same visible text under different scripts.
  const std::string other =
      "<p>" + text + "</p><script>" + Join(source.Words(200)) + "</script>";
  DedupOptions fields = Options(
      {dir_.Write("html.jsonl", JsonLine(0, html) + JsonLine(1, other))});
  ASSERT_OK_AND_ASSIGN(stats, RunDedup(fields));
  EXPECT_EQ(stats.duplicates, 0u);  // as text, the scripts differ
  fields.content_type = "text/html";
  ASSERT_OK_AND_ASSIGN(stats, RunDedup(fields));
  EXPECT_EQ(stats.duplicates, 1u);
  fields.content_type = "image/png";
  EXPECT_THAT(ValidateOptions(fields).message(), HasSubstr("--content-type"));
}

TEST_F(DedupRunTest, EmptyAndWhitespaceDocumentsAreCountedKeptOrDropped) {
  const std::string data = JsonLine(0, "") + JsonLine(1, " \t\n ") +
                           JsonLine(2, "...") + JsonLine(3, "real words here") +
                           JsonLine(4, "");
  DedupOptions o = Options({dir_.Write("in.jsonl", data)});
  absl::StatusOr<RunStats> stats = RunDedup(o);
  ASSERT_OK(stats);
  EXPECT_EQ(stats->empty, 4u);
  EXPECT_EQ(stats->unique, 5u);
  EXPECT_EQ(ReadFile(o.output), data);

  o.drop_empty = true;
  stats = RunDedup(o);
  ASSERT_OK(stats);
  EXPECT_EQ(ReadFile(o.output), JsonLine(3, "real words here"));
}

TEST_F(DedupRunTest, InvalidRecordsStopWithFileAndLineOrAreSkipped) {
  const std::string txt =
      dir_.Write("bad.txt", "fine line\nbad \xFF byte\nok\n");
  DedupOptions o = Options({txt});
  dir_.Write("out", "previous output\n");
  absl::StatusOr<RunStats> stats = RunDedup(o);
  ASSERT_FALSE(stats.ok());
  EXPECT_THAT(stats.status().message(), HasSubstr(txt + ":2: invalid UTF-8"));
  // The old output is untouched and no temporary file is left behind.
  EXPECT_EQ(ReadFile(o.output), "previous output\n");
  int entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_.path())) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 2);

  o.skip_invalid = true;
  stats = RunDedup(o);
  ASSERT_OK(stats);
  EXPECT_EQ(stats->invalid, 1u);
  EXPECT_EQ(ReadFile(o.output), "fine line\nok\n");

  const std::string json = dir_.Write(
      "bad.jsonl", "{\"text\":\"a b c\"}\n{\"text\": oops}\n{\"txt\":\"x\"}\n");
  DedupOptions j = Options({json});
  stats = RunDedup(j);
  ASSERT_FALSE(stats.ok());
  EXPECT_THAT(stats.status().message(), HasSubstr(json + ":2: malformed JSON"));
  j.skip_invalid = true;
  stats = RunDedup(j);
  ASSERT_OK(stats);
  EXPECT_EQ(stats->invalid, 2u);  // line 3 has no "text" field

  const std::string csv =
      dir_.Write("bad.csv", "id,text\n1,fine\n2,\"unterminated\n3,x\n");
  DedupOptions c = Options({csv});
  stats = RunDedup(c);
  ASSERT_FALSE(stats.ok());
  EXPECT_THAT(stats.status().message(),
              HasSubstr(csv + ":3: unterminated quoted field 2"));
}

TEST_F(DedupRunTest, ParquetAndMixedFormatsAreRefusedClearly) {
  DedupOptions o = Options({dir_.Write("data.parquet", "PAR1")});
  absl::StatusOr<RunStats> stats = RunDedup(o);
  ASSERT_FALSE(stats.ok());
  EXPECT_THAT(stats.status().message(), HasSubstr("Parquet is not supported"));
  EXPECT_THAT(stats.status().message(), HasSubstr("to_json"));

  o.input.inputs = {dir_.Write("a.jsonl", "{}\n"),
                    dir_.Write("b.csv", "text\n")};
  stats = RunDedup(o);
  ASSERT_FALSE(stats.ok());
  EXPECT_THAT(stats.status().message(), HasSubstr("one run writes one format"));
}

TEST_F(DedupRunTest, StatsFileHasTheCounters) {
  const Corpus corpus = MakeCorpus();
  DedupOptions o = Options({WriteJsonl(corpus, "in.jsonl")});
  o.stats_path = dir_.path() + "/stats.json";
  ASSERT_OK(RunDedup(o));
  const std::string stats = ReadFile(o.stats_path);
  for (const char* key :
       {"\"method\":\"minhash-lsh\"", "\"verification\":\"exact\"",
        // The old names, until the release after next.
        "\"algorithm\":\"minhash-lsh\"", "\"verify\":\"exact\"", "\"total\":16",
        "\"unique\":10", "\"duplicates\":6", "\"duplicate_ratio\":0.375,",
        "\"empty\":0", "\"invalid\":0", "\"seconds\":", "\"docs_per_second\":",
        "\"mb_per_second\":", "\"peak_rss_bytes\":", "\"bands\":14",
        "\"rows\":7"}) {
    EXPECT_THAT(stats, HasSubstr(key));
  }
}

TEST_F(DedupRunTest, LshBloomReportsItsSize) {
  const Corpus corpus = MakeCorpus();
  DedupOptions o = Options({WriteJsonl(corpus, "in.jsonl")});
  o.algorithm = Algorithm::kLshBloom;
  o.verify = Verify::kEstimate;
  o.expected_docs = 1000;
  o.stats_path = dir_.path() + "/stats.json";
  ASSERT_OK(RunDedup(o));
  // 0.85 -> 8 bands; per band p = 1.25e-4 -> 18.7 bits per document.
  EXPECT_THAT(ReadFile(o.stats_path),
              HasSubstr("\"bands\":8,\"rows\":16,\"expected_docs\":1000,"
                        "\"bloom_bytes\":18752"));
  o.verify = Verify::kExact;
  EXPECT_THAT(RunDedup(o).status().message(), HasSubstr("cannot verify"));
}

TEST_F(DedupRunTest, SuffixArrayCutsLaterRepeatsAndListsThem) {
  const std::string shared =
      "This paragraph was copied verbatim into a second record, \"quoted\".";
  // The copies share " " + shared + " " (the spaces around it too).
  const std::string data = JsonLine(0, "1 " + shared + " x") +
                           JsonLine(1, "unrelated text") +
                           JsonLine(2, "2 " + shared + " y");
  DedupOptions o = Options({dir_.Write("in.jsonl", data)});
  o.algorithm = Algorithm::kSuffixArray;
  o.min_length = 30;
  o.spans_path = dir_.path() + "/spans.jsonl";
  absl::StatusOr<RunStats> stats = RunDedup(o);
  ASSERT_OK(stats);
  EXPECT_EQ(stats->duplicates, 1u);
  EXPECT_EQ(ReadFile(o.output), JsonLine(0, "1 " + shared + " x") +
                                    JsonLine(1, "unrelated text") +
                                    JsonLine(2, "2y"));
  EXPECT_EQ(ReadFile(o.spans_path),
            "{\"doc\":2,\"begin\":1,\"end\":" +
                std::to_string(1 + shared.size() + 2) +
                ",\"first_doc\":0,\"first_begin\":1}\n");
}

TEST_F(DedupRunTest, SuffixArrayRewritesCsvFields) {
  const std::string shared =
      "a long sentence, with a comma, shared by both rows";
  const std::string data =
      "id,text\n1,\"x " + shared + "\"\n2,\"y " + shared + " tail\"\n";
  DedupOptions o = Options({dir_.Write("in.csv", data)});
  o.algorithm = Algorithm::kSuffixArray;
  o.min_length = 20;
  ASSERT_OK(RunDedup(o));
  EXPECT_EQ(ReadFile(o.output), "id,text\n1,\"x " + shared + "\"\n2,y tail\n");
}

}  // namespace
}  // namespace neardup::dedup
