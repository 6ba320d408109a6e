// The engine's query steps without the API: CheckQuery, PlanQuery,
// ProbeQuery and
// ResolveMatches over a real store.

#include "neardup/engine/query.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/engine_test_util.h"
#include "neardup/base/status_macros.h"

namespace neardup::engine {
namespace {

using ::testing::ElementsAre;
using testing::EngineTest;
using ::testing::HasSubstr;

std::string Text(int seed, int words = 150) {
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  for (int i = 0; i < words; ++i) out.push_back(absl::StrCat("w", rng() % 900));
  return absl::StrJoin(out, " ");
}

// `text` with its last word changed: a near-copy.
std::string NearCopy(std::string text) {
  text += " changed";
  return text;
}

class QueryTest : public EngineTest {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(db_, OpenDatabase());
    CollectionConfig config;
    config.store_text = true;
    config.simhash_enabled = true;
    config.kept_families = {"tlsh"};
    ASSERT_OK_AND_ASSIGN(docs_, db_->CreateCollection("c", config));
    for (int i = 0; i < 6; ++i) Put(absl::StrCat("d", i), Text(i));
    Put("copy0", NearCopy(Text(0)));
    Put("copy0b", NearCopy(NearCopy(Text(0))));
  }

  void Put(const std::string& id, const std::string& text) {
    ASSERT_OK_AND_ASSIGN(const PreparedDocument doc,
                         docs_->PrepareText(id, text, {{"k", id}}));
    ASSERT_OK(docs_->Apply(doc).status());
  }

  // The ids ResolveMatches emits, in order.
  std::vector<std::string> Resolve(const QuerySpec& spec,
                                   const ResolveOptions& options = {},
                                   size_t room = SIZE_MAX) {
    IndexQueryStats stats;
    auto plan = PlanQuery(*docs_, spec);
    EXPECT_OK(plan.status());
    if (!plan.ok()) return {};
    auto probe = ProbeQuery(*docs_, spec, *plan, nullptr, &stats);
    EXPECT_OK(probe.status());
    std::vector<std::string> ids;
    if (!probe.ok()) return ids;
    EXPECT_OK(ResolveMatches(*docs_, spec, *probe, options, {},
                             [&](const ResolvedMatch& match) {
                               if (ids.size() >= room) return false;
                               ids.push_back(match.external_id);
                               return true;
                             }));
    return ids;
  }

  // PlanQuery, then ProbeQuery.
  absl::StatusOr<ProbeResult> Probe(const QuerySpec& spec,
                                    IndexQueryStats* stats) {
    ASSIGN_OR_RETURN(const QueryPlan plan, PlanQuery(*docs_, spec));
    return ProbeQuery(*docs_, spec, plan, nullptr, stats);
  }

  std::unique_ptr<Database> db_;
  std::shared_ptr<Collection> docs_;
};

TEST_F(QueryTest, CheckQueryRefusesWhatTheCollectionCannotAnswer) {
  QuerySpec spec;
  spec.algorithm = QueryAlgorithm::kSemantic;
  EXPECT_EQ(CheckQuery(*docs_, spec).code(),
            absl::StatusCode::kFailedPrecondition);
  spec.algorithm = QueryAlgorithm::kMinHash;
  spec.min_cosine = 0.5;
  EXPECT_THAT(CheckQuery(*docs_, spec).message(),
              HasSubstr("apply to ALGORITHM_SEMANTIC"));
  spec.min_cosine.reset();
  EXPECT_OK(CheckQuery(*docs_, spec));
}

TEST_F(QueryTest, PlanQueryAppliesTheCollectionsDefaults) {
  QuerySpec spec;
  spec.top_k = 5;
  ASSERT_OK_AND_ASSIGN(QueryPlan plan, PlanQuery(*docs_, spec));
  EXPECT_EQ(plan.threshold, docs_->record().config.threshold);
  EXPECT_EQ(plan.max_distance, docs_->record().config.simhash_max_distance);
  EXPECT_EQ(plan.wanted, 5u);
  EXPECT_EQ(plan.minhash_take, 5u);
  spec.threshold = 0.6;
  spec.max_distance = 1000;  // at most 64 bits apart
  spec.exclude_id = "d0";    // one more, to skip it
  ASSERT_OK_AND_ASSIGN(plan, PlanQuery(*docs_, spec));
  EXPECT_EQ(plan.threshold, 0.6);
  EXPECT_EQ(plan.max_distance, 64);
  EXPECT_EQ(plan.wanted, 6u);
  spec.algorithm = QueryAlgorithm::kSemantic;  // no vectors here
  EXPECT_EQ(PlanQuery(*docs_, spec).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(QueryTest, AVectorOfTheWrongSizeIsRefused) {
  CollectionConfig config;
  config.embedding.model_id = "m@1";
  config.embedding.dim = 8;
  ASSERT_OK_AND_ASSIGN(auto vectors, db_->CreateCollection("v", config));
  QuerySpec spec;
  spec.algorithm = QueryAlgorithm::kHybridAll;
  spec.embedding = std::vector<float>(3, 0.5f);
  EXPECT_THAT(CheckQuery(*vectors, spec).message(), HasSubstr("has 3 values"));
  spec.embedding = std::vector<float>(8, 0.0f);
  (*spec.embedding)[0] = 1;
  EXPECT_OK(CheckQuery(*vectors, spec));
}

TEST_F(QueryTest, MinHashFindsTheNearCopiesBestFirstAndVerifiesExactly) {
  const std::string probe = Text(0);
  QuerySpec spec;
  spec.text = probe;
  spec.threshold = 0.8;
  EXPECT_THAT(Resolve(spec), ElementsAre("d0", "copy0", "copy0b"));
  IndexQueryStats stats;
  ASSERT_OK_AND_ASSIGN(const ProbeResult result, Probe(spec, &stats));
  ASSERT_EQ(result.hits.size(), 3u);
  ASSERT_TRUE(result.hits[0].minhash.has_value());
  EXPECT_EQ(result.hits[0].minhash->exact, 1.0);
  EXPECT_THAT(result.hits[0].kept_distances,  // the same text
              ::testing::ElementsAre(KeptDistance{"tlsh", 0}));
  ASSERT_EQ(result.hits[1].kept_distances.size(), 1u);
  EXPECT_GT(result.hits[1].kept_distances[0].distance, 0);
  EXPECT_FALSE(result.truncated);
}

TEST_F(QueryTest, ExcludeIdTopKAndAFullAnswerStopTheMatches) {
  const std::string probe = Text(0);
  QuerySpec spec;
  spec.text = probe;
  spec.threshold = 0.8;
  spec.exclude_id = "d0";
  EXPECT_THAT(Resolve(spec), ElementsAre("copy0", "copy0b"));
  spec.top_k = 1;
  EXPECT_THAT(Resolve(spec), ElementsAre("copy0"));
  spec.top_k = 10;
  spec.exclude_id.clear();
  EXPECT_THAT(Resolve(spec, {}, /*room=*/2), ElementsAre("d0", "copy0"));
}

TEST_F(QueryTest, SimHashAnswersByHammingDistance) {
  const std::string probe = Text(3);
  QuerySpec spec;
  spec.algorithm = QueryAlgorithm::kSimHash;
  spec.text = probe;
  spec.max_distance = 0;
  EXPECT_THAT(Resolve(spec), ElementsAre("d3"));
  QuerySpec signatures = spec;
  signatures.text.reset();
  signatures.signatures.emplace();  // no SimHash in it
  EXPECT_THAT(Probe(signatures, nullptr).status().message(),
              HasSubstr("needs signatures.simhash"));
}

// A flood of identical texts is one twin class in the SimHash index: a
// query lists its first top_k members, scored once.
TEST_F(QueryTest, ASimHashFloodAnswersItsFirstTopK) {
  const std::string flood = Text(42);
  for (int i = 0; i < 50; ++i) Put(absl::StrCat("f", i), flood);
  QuerySpec spec;
  spec.algorithm = QueryAlgorithm::kSimHash;
  spec.text = flood;
  spec.max_distance = 0;
  spec.top_k = 3;
  EXPECT_THAT(Resolve(spec), ElementsAre("f0", "f1", "f2"));
  IndexQueryStats stats;
  ASSERT_OK_AND_ASSIGN(const ProbeResult result, Probe(spec, &stats));
  EXPECT_EQ(result.hits.size(), 3u);
  EXPECT_EQ(stats.candidates, 50u);
  EXPECT_EQ(stats.scored, 1u);
}

TEST_F(QueryTest, ExplainGivesPassagesOrSaysWhyNot) {
  const std::string probe = Text(1);
  QuerySpec spec;
  spec.text = probe;
  spec.threshold = 0.9;
  IndexQueryStats stats;
  ASSERT_OK_AND_ASSIGN(const ProbeResult result, Probe(spec, &stats));
  std::vector<ResolvedMatch> matches;
  ResolveOptions options;
  options.probe_text = &probe;
  options.explain = true;
  options.include_metadata = true;
  ASSERT_OK(ResolveMatches(*docs_, spec, result, options, {},
                           [&](const ResolvedMatch& m) {
                             matches.push_back(m);
                             return true;
                           }));
  ASSERT_EQ(matches.size(), 1u);
  ASSERT_TRUE(matches[0].passages.has_value());
  EXPECT_FALSE(matches[0].passages->passages.empty());
  EXPECT_EQ(matches[0].metadata, (storage::Metadata{{"k", "d1"}}));
  // Without the probe's text there is nothing to explain against.
  options.probe_text = nullptr;
  matches.clear();
  ASSERT_OK(ResolveMatches(*docs_, spec, result, options, {},
                           [&](const ResolvedMatch& m) {
                             matches.push_back(m);
                             return true;
                           }));
  ASSERT_EQ(matches.size(), 1u);
  EXPECT_THAT(matches[0].explain_unavailable, HasSubstr("signatures"));
}

TEST_F(QueryTest, APassedDeadlineStopsExplaining) {
  const std::string probe = Text(0);
  QuerySpec spec;
  spec.text = probe;
  spec.threshold = 0.8;
  IndexQueryStats stats;
  ASSERT_OK_AND_ASSIGN(const ProbeResult result, Probe(spec, &stats));
  ResolveOptions options;
  options.probe_text = &probe;
  options.explain = true;
  CallBudget call;
  call.deadline = absl::InfinitePast();
  EXPECT_EQ(ResolveMatches(*docs_, spec, result, options, call,
                           [](const ResolvedMatch&) { return true; })
                .code(),
            absl::StatusCode::kDeadlineExceeded);
}

}  // namespace
}  // namespace neardup::engine
