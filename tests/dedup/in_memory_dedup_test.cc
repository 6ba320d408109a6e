// InMemoryDedup keeps what RunDedup keeps over the same records, and makes
// the same clusters, for every method; threads and batch cuts change
// nothing; file options and malformed documents are refused.

#include "neardup/dedup/in_memory_dedup.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "dedup/dedup_fixtures.h"
#include "neardup/base/json.h"
#include "neardup/dedup/dedup.h"
#include "neardup/extract/extract.h"
#include "support/run_command.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace neardup::dedup {
namespace {

using ::neardup::testing::Join;
using ::neardup::testing::TempDir;
using ::neardup::testing::WordSource;
using ::testing::HasSubstr;

// 300 documents of 120 words; every third replaces 1 to 12 words of an
// earlier one (Jaccard from about 0.96 down to 0.6), so thresholds cut
// through the copies.
std::vector<std::string> Texts() {
  std::vector<std::vector<std::string>> docs;
  WordSource source(42);
  for (int i = 0; i < 300; ++i) {
    if (i % 3 == 2) {
      std::vector<std::string> copy = docs[(i * 7919) % docs.size()];
      for (int k = 0; k <= i % 12; ++k) copy[(k * 37 + i) % copy.size()] = "zq";
      docs.push_back(copy);
    } else {
      docs.push_back(source.Words(120));
    }
  }
  std::vector<std::string> texts;
  for (const auto& words : docs) texts.push_back(Join(words));
  texts[20].clear();  // an empty document
  return texts;
}

struct Result {
  std::vector<int> kept;
  std::string clusters;
};

Result OverFiles(const std::vector<std::string>& texts, DedupOptions options,
                 TempDir& dir) {
  std::string data;
  for (size_t i = 0; i < texts.size(); ++i) {
    data += ToJsonText(nlohmann::ordered_json{{"id", i}, {"text", texts[i]}});
    data += "\n";
  }
  options.input.inputs = {dir.Write("in.jsonl", data)};
  options.output = dir.path() + "/out.jsonl";
  if (options.algorithm != Algorithm::kLshBloom) {
    options.clusters_path = dir.path() + "/clusters.jsonl";
  }
  options.progress = false;
  const absl::StatusOr<RunStats> stats = RunDedup(options);
  EXPECT_OK(stats.status());
  Result result;
  std::istringstream out(::neardup::testing::FileContents(options.output));
  for (std::string line; std::getline(out, line);) {
    result.kept.push_back(nlohmann::json::parse(line)["id"].get<int>());
  }
  if (!options.clusters_path.empty()) {
    result.clusters = ::neardup::testing::FileContents(options.clusters_path);
  }
  return result;
}

Result InMemory(const std::vector<std::string>& texts,
                const DedupOptions& options, size_t batch,
                InMemoryDedup::TextExtraction extract_text = nullptr) {
  absl::StatusOr<std::unique_ptr<InMemoryDedup>> dedup =
      InMemoryDedup::Create(options, texts.size(), extract_text);
  Result result;
  if (!dedup.ok()) {
    ADD_FAILURE() << dedup.status();
    return result;
  }
  std::vector<Decision> decisions;
  for (size_t begin = 0; begin < texts.size(); begin += batch) {
    std::vector<InMemoryDedup::Document> documents;
    for (size_t i = begin; i < std::min(texts.size(), begin + batch); ++i) {
      documents.push_back({texts[i], ""});
    }
    EXPECT_OK((*dedup)->Decide(documents, &decisions));
    EXPECT_EQ(decisions.size(), documents.size());
    for (size_t i = 0; i < decisions.size(); ++i) {
      if (decisions[i].outcome == Outcome::kKept) {
        result.kept.push_back(static_cast<int>(begin + i));
      }
    }
  }
  if (options.algorithm != Algorithm::kLshBloom) {
    result.clusters = *(*dedup)->ClustersJsonLines();
  }
  return result;
}

struct Setting {
  Algorithm algorithm;
  Verify verify;
  double threshold;
};

class InMemoryDedupParityTest : public ::testing::TestWithParam<Setting> {};

TEST_P(InMemoryDedupParityTest, KeepsAndClustersAsRunDedupDoes) {
  const std::vector<std::string> texts = Texts();
  DedupOptions options;
  options.algorithm = GetParam().algorithm;
  options.verify = GetParam().verify;
  options.threshold = GetParam().threshold;
  options.expected_docs = 1000;  // lshbloom's filters, as big on both sides
  options.threads = 2;
  TempDir dir;
  const Result files = OverFiles(texts, options, dir);
  ASSERT_GT(files.kept.size(), 200u);
  ASSERT_LT(files.kept.size(), texts.size());
  for (size_t batch : {size_t{1}, size_t{7}, size_t{4096}}) {
    const Result memory = InMemory(texts, options, batch);
    EXPECT_EQ(memory.kept, files.kept) << "batch " << batch;
    EXPECT_EQ(memory.clusters, files.clusters) << "batch " << batch;
  }
  options.threads = 1;
  EXPECT_EQ(InMemory(texts, options, 64).kept, files.kept);
}

INSTANTIATE_TEST_SUITE_P(
    Methods, InMemoryDedupParityTest,
    ::testing::Values(Setting{Algorithm::kMinHashLsh, Verify::kExact, 0.8},
                      Setting{Algorithm::kMinHashLsh, Verify::kEstimate, 0.7},
                      Setting{Algorithm::kMinHashLsh, Verify::kNone, 0.9},
                      Setting{Algorithm::kSimHash, Verify::kExact, 0.8},
                      Setting{Algorithm::kPerceptual, Verify::kExact, 0.7},
                      Setting{Algorithm::kLshBloom, Verify::kEstimate, 0.8}));

// HTML whose markup differs from document to document around the same
// visible text: only extraction makes the copies copies. One document nests
// too deep to parse, which makes it malformed on both sides.
TEST(InMemoryDedupTest, ExtractsAContentTypeAsRunDedupDoes) {
  std::vector<std::string> pages;
  for (const std::string& text : Texts()) {
    const size_t n = pages.size();
    pages.push_back(absl::StrCat("<html><head><title>page ", n,
                                 "</title><script>var seen = ", n * 7919,
                                 ";</script></head><body><p class=\"c", n,
                                 "\">", text, "</p></body></html>"));
  }
  std::string deep;
  for (int i = 0; i < 1100; ++i) deep += "<div>";
  pages[40] = deep;
  DedupOptions options;
  options.content_type = "text/html";
  options.threshold = 0.8;
  options.skip_invalid = true;
  options.threads = 2;
  TempDir dir;
  const Result files = OverFiles(pages, options, dir);
  ASSERT_GT(files.kept.size(), 200u);
  ASSERT_LT(files.kept.size(), 280u);  // the copies are found through markup
  EXPECT_THAT(files.kept, ::testing::Not(::testing::Contains(40)));
  const InMemoryDedup::TextExtraction extract_text =
      [](std::string_view content, extract::ContentType type) {
        return extract::ExtractText(content, type);
      };
  for (size_t batch : {size_t{1}, size_t{64}}) {
    const Result memory = InMemory(pages, options, batch, extract_text);
    EXPECT_EQ(memory.kept, files.kept) << "batch " << batch;
    EXPECT_EQ(memory.clusters, files.clusters) << "batch " << batch;
  }
  // Without skip_invalid the page that cannot be parsed stops the dedup,
  // saying why.
  options.skip_invalid = false;
  auto dedup = InMemoryDedup::Create(options, 0, extract_text);
  ASSERT_OK(dedup.status());
  std::vector<InMemoryDedup::Document> documents;
  for (int i = 0; i <= 40; ++i) documents.push_back({pages[i], ""});
  std::vector<Decision> decisions;
  const absl::Status stopped = (*dedup)->Decide(documents, &decisions);
  EXPECT_EQ(stopped.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(stopped.message(), HasSubstr("record 40: text/html:"));
  EXPECT_EQ(decisions.size(), 40u);
  // Plain text needs no extractor.
  options.content_type = "text/plain";
  EXPECT_OK(InMemoryDedup::Create(options, 0).status());
}

TEST(InMemoryDedupTest, RefusesWhatOnlyARunOverFilesHas) {
  auto refused = [](auto change, const std::string& why) {
    DedupOptions options;
    change(options);
    const auto dedup = InMemoryDedup::Create(options, 0);
    EXPECT_EQ(dedup.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(dedup.status().message(), HasSubstr(why));
  };
  refused([](DedupOptions& o) { o.output = "x"; }, "no output");
  refused([](DedupOptions& o) { o.input.inputs = {"a"}; }, "no inputs");
  refused([](DedupOptions& o) { o.clusters_path = "c"; }, "clusters file");
  refused([](DedupOptions& o) { o.content_type = "text/html"; },
          "no extractor for text/html");
  refused([](DedupOptions& o) { o.content_type = "image/png"; },
          "text/markdown");  // the accepted types are listed
  refused([](DedupOptions& o) { o.algorithm = Algorithm::kSuffixArray; },
          "suffix-array");
  refused([](DedupOptions& o) { o.threshold = 1; }, "--threshold");
  refused(
      [](DedupOptions& o) {
        o.algorithm = Algorithm::kLshBloom;
        o.verify = Verify::kExact;
      },
      "cannot verify exactly");
}

TEST(InMemoryDedupTest, AMalformedDocumentStopsAfterTheOnesBeforeIt) {
  DedupOptions options;
  auto dedup = InMemoryDedup::Create(options, 0);
  ASSERT_OK(dedup.status());
  const std::string bad_utf8 = "caf\xC3 au lait";
  const std::vector<InMemoryDedup::Document> documents = {
      {"one two three four five six", ""},
      {"", "no field \"text\""},
      {"seven eight nine ten eleven", ""}};
  std::vector<Decision> decisions;
  const absl::Status status = (*dedup)->Decide(documents, &decisions);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("record 1: no field \"text\""));
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].outcome, Outcome::kKept);
  EXPECT_EQ((*dedup)->Decide(documents, &decisions).code(),
            absl::StatusCode::kFailedPrecondition);

  options.skip_invalid = true;
  options.drop_empty = true;
  dedup = InMemoryDedup::Create(options, 0);
  ASSERT_OK(dedup.status());
  const std::vector<InMemoryDedup::Document> mixed = {
      {"one two three four five six", ""},
      {"", "no field \"text\""},
      {bad_utf8, ""},
      {"", ""},
      {"one two three four five six", ""}};
  ASSERT_OK((*dedup)->Decide(mixed, &decisions));
  ASSERT_EQ(decisions.size(), 5u);
  EXPECT_EQ(decisions[1].outcome, Outcome::kSkipped);
  EXPECT_EQ(decisions[2].outcome, Outcome::kSkipped);
  EXPECT_EQ(decisions[3].outcome, Outcome::kDropped);
  EXPECT_EQ(decisions[4].outcome, Outcome::kDuplicate);
  EXPECT_EQ(decisions[4].representative, 0u);
  const RunStats stats = (*dedup)->stats();
  EXPECT_EQ(stats.total, 5u);
  EXPECT_EQ(stats.invalid, 2u);
  EXPECT_EQ(stats.empty, 1u);
  EXPECT_EQ(stats.unique, 1u);
  EXPECT_EQ(stats.duplicates, 1u);
}

// A malformed document early in a batch of many parts, on 4 threads: the
// call returns only after every part's task ended (ASan and TSan watch
// the texts and promises the tasks use), and the next call is refused.
TEST(InMemoryDedupTest, AnErrorWhilePartsAreInFlightWaitsForThem) {
  const std::vector<std::string> texts = Texts();
  DedupOptions options;
  options.threads = 4;
  for (int round = 0; round < 5; ++round) {
    auto dedup = InMemoryDedup::Create(options, 0);
    ASSERT_OK(dedup.status());
    std::vector<InMemoryDedup::Document> documents;
    for (int copy = 0; copy < 4; ++copy) {
      for (const std::string& text : texts) documents.push_back({text, ""});
    }
    documents[3 + round].error = "no field \"text\"";
    std::vector<Decision> decisions;
    const absl::Status status = (*dedup)->Decide(documents, &decisions);
    EXPECT_THAT(status.message(),
                HasSubstr(absl::StrCat("record ", 3 + round, ":")));
    EXPECT_EQ(decisions.size(), static_cast<size_t>(3 + round));
    EXPECT_EQ((*dedup)->Decide(documents, &decisions).code(),
              absl::StatusCode::kFailedPrecondition);
  }
}

TEST(InMemoryDedupTest, LshBloomHasNoClusters) {
  DedupOptions options;
  options.algorithm = Algorithm::kLshBloom;
  options.verify = Verify::kEstimate;
  const auto dedup = InMemoryDedup::Create(options, 100);
  ASSERT_OK(dedup.status());
  EXPECT_EQ((*dedup)->ClustersJsonLines().status().code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace neardup::dedup
