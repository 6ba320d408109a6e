// Exact verification: the evidence column family and the decisions it
// makes at the threshold, and the recall floor.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/engine_test_util.h"
#include "neardup/core/shingle_set.h"
#include "neardup/engine/database.h"

namespace neardup::engine {
namespace {

using storage::DocumentWrite;

using ::neardup::testing::StatusIs;
using testing::EngineTest;
using ::testing::HasSubstr;
using ::testing::SizeIs;

std::vector<std::string> Words(int seed, int count) {
  std::mt19937 rng(seed);
  std::vector<std::string> words;
  for (int i = 0; i < count; ++i) {
    words.push_back(absl::StrCat("w", rng() % 5000));
  }
  return words;
}

// `base` with `edits` words replaced by fresh ones, positions from `seed`.
std::string Edited(std::vector<std::string> base, int edits, int seed) {
  std::mt19937 rng(seed);
  for (int i = 0; i < edits; ++i) {
    base[rng() % base.size()] = absl::StrCat("x", seed, "-", i);
  }
  return absl::StrJoin(base, " ");
}

class CollectionExactTest : public EngineTest {
 protected:
  // Shingle set of `id`'s stored evidence, nullopt when it has none.
  static std::optional<std::vector<uint64_t>> Evidence(const Database& db,
                                                       const Collection& c,
                                                       std::string_view id) {
    auto doc = c.Get(id);
    if (!doc.ok()) return std::nullopt;
    const uint32_t ids[] = {doc->internal_id};
    auto sets = db.store().GetShingleSets(c.record(), ids);
    EXPECT_OK(sets);
    return sets.ok() ? (*sets)[0] : std::nullopt;
  }
};

TEST_F(CollectionExactTest, EvidenceIsWrittenReplacedAndDeletedWithTheDoc) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("docs", {}));
  const std::string text = absl::StrJoin(Words(1, 80), " ");
  ASSERT_OK_AND_ASSIGN(DocumentWrite write, docs->PrepareText("a", text, {}));
  ASSERT_TRUE(write.shingles.has_value());
  std::vector<uint64_t> expected;
  ASSERT_OK(docs->fingerprinter().MinHash(text, &expected).status());
  EXPECT_EQ(*write.shingles, expected);
  ASSERT_OK(docs->Apply(write).status());
  EXPECT_EQ(Evidence(*db, *docs, "a"), expected);

  // Replaced by signatures only: the old text's evidence goes with it.
  DocumentWrite signatures_only = write;
  signatures_only.shingles.reset();
  ASSERT_OK(docs->Apply(signatures_only).status());
  EXPECT_EQ(Evidence(*db, *docs, "a"), std::nullopt);

  ASSERT_OK(docs->Apply(write).status());
  EXPECT_EQ(Evidence(*db, *docs, "a"), expected);
  const uint32_t internal_id = docs->Get("a")->internal_id;
  ASSERT_OK(docs->Delete("a"));
  const uint32_t ids[] = {internal_id};
  ASSERT_OK_AND_ASSIGN(auto sets,
                       db->store().GetShingleSets(docs->record(), ids));
  EXPECT_EQ(sets[0], std::nullopt);
}

TEST_F(CollectionExactTest, EstimateCollectionsKeepNoEvidence) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  CollectionConfig config;
  config.verification = Verification::kEstimate;
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("docs", config));
  ASSERT_OK_AND_ASSIGN(DocumentWrite write,
                       docs->PrepareText("a", "one two three four five", {}));
  EXPECT_FALSE(write.shingles.has_value());
  ASSERT_OK(docs->Apply(write).status());
  EXPECT_EQ(Evidence(*db, *docs, "a"), std::nullopt);
}

// Finds, among deterministic edits of `base`, one whose exact Jaccard and
// MinHash estimate fall on opposite sides of `t` in the asked direction.
std::string Disagreeing(const CollectionFingerprinter& hasher,
                        const std::vector<std::string>& base, double t,
                        bool exact_above) {
  std::vector<uint64_t> base_set;
  const MinHashSignature base_sig =
      hasher.MinHash(absl::StrJoin(base, " "), &base_set).value();
  for (int seed = 0; seed < 5000; ++seed) {
    const std::string text = Edited(base, 1 + seed % 6, seed);
    std::vector<uint64_t> set;
    const MinHashSignature sig = hasher.MinHash(text, &set).value();
    const double exact = ExactJaccard64(base_set, set);
    const double estimate = *EstimateJaccard(base_sig, sig);
    if (exact_above ? (exact >= t && estimate < t)
                    : (exact < t && estimate >= t)) {
      return text;
    }
  }
  ADD_FAILURE() << "no disagreeing edit found";
  return "";
}

TEST_F(CollectionExactTest, ExactJaccardDecidesWhereTheEstimateDisagrees) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto exact, db->CreateCollection("exact", {}));
  CollectionConfig estimate_config;
  estimate_config.verification = Verification::kEstimate;
  ASSERT_OK_AND_ASSIGN(auto estimate,
                       db->CreateCollection("estimate", estimate_config));
  const std::vector<std::string> base = Words(7, 120);
  for (auto* c : {exact.get(), estimate.get()}) {
    ASSERT_OK_AND_ASSIGN(auto write,
                         c->PrepareText("base", absl::StrJoin(base, " "), {}));
    ASSERT_OK(c->Apply(write).status());
  }
  const CollectionFingerprinter& hasher = exact->fingerprinter();
  const std::string above = Disagreeing(hasher, base, 0.8, true);
  const std::string below = Disagreeing(hasher, base, 0.8, false);

  auto query = [&](const Collection& c, const std::string& text) {
    std::vector<uint64_t> shingles;
    const MinHashSignature sig = hasher.MinHash(text, &shingles).value();
    return c.QueryMinHash(sig, &shingles, 0.8).value();
  };
  // Exact: the shingle sets decide, whatever the estimate says.
  const std::vector<MinHashMatch> found = query(*exact, above);
  ASSERT_THAT(found, SizeIs(1));
  ASSERT_TRUE(found[0].exact.has_value());
  EXPECT_GE(*found[0].exact, 0.8);
  EXPECT_LT(found[0].estimate, 0.8);
  EXPECT_THAT(query(*exact, below), SizeIs(0));
  // Estimate: the other way round.
  EXPECT_THAT(query(*estimate, above), SizeIs(0));
  const std::vector<MinHashMatch> estimated = query(*estimate, below);
  ASSERT_THAT(estimated, SizeIs(1));
  EXPECT_FALSE(estimated[0].exact.has_value());

  // insert_only_below decides the same way.
  ASSERT_OK_AND_ASSIGN(auto copy, exact->PrepareText("copy", above, {}));
  ASSERT_OK_AND_ASSIGN(auto outcome, exact->Apply(copy, {{}, 0.8}));
  EXPECT_FALSE(outcome.written);
  ASSERT_OK_AND_ASSIGN(copy, exact->PrepareText("copy", below, {}));
  ASSERT_OK_AND_ASSIGN(outcome, exact->Apply(copy, {{}, 0.8}));
  EXPECT_TRUE(outcome.written);
}

TEST_F(CollectionExactTest, DocumentsWithoutEvidenceAreDecidedByTheEstimate) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("docs", {}));
  const std::string text = absl::StrJoin(Words(3, 60), " ");
  ASSERT_OK_AND_ASSIGN(DocumentWrite write, docs->PrepareText("s", text, {}));
  write.shingles.reset();  // as if upserted as signatures
  ASSERT_OK(docs->Apply(write).status());
  std::vector<uint64_t> shingles;
  const MinHashSignature sig =
      docs->fingerprinter().MinHash(text, &shingles).value();
  ASSERT_OK_AND_ASSIGN(auto found, docs->QueryMinHash(sig, &shingles, 0.8));
  ASSERT_THAT(found, SizeIs(1));
  EXPECT_FALSE(found[0].exact.has_value());
  EXPECT_EQ(found[0].estimate, 1.0);
}

// Exact collections keep 8 bits a slot in memory, where an unequal slot
// reads as equal 1 time in 256: where no shingle set decides, the stored
// signature does. Here every slot's low byte agrees with the probe's, and
// 28 slots differ above it.
TEST_F(CollectionExactTest, WithoutEvidenceTheStoredSignatureDecides) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("docs", {}));
  ASSERT_EQ(docs->record().config.slot_bits, 8);
  const std::string text = absl::StrJoin(Words(4, 60), " ");
  std::vector<uint64_t> shingles;
  const MinHashSignature probe =
      docs->fingerprinter().MinHash(text, &shingles).value();
  ASSERT_OK_AND_ASSIGN(DocumentWrite write, docs->PrepareText("s", text, {}));
  write.shingles.reset();  // as if upserted as signatures
  for (int i = 100; i < 128; ++i) {
    write.minhash.slots[i] = probe.slots[i] ^ (uint64_t{1} << 20);
  }
  ASSERT_OK(docs->Apply(write).status());
  // 100 of 128 slots equal: 0.78125, below 0.8 (the index's bits say 1.0).
  const std::vector<uint64_t>* const probes[] = {&shingles, nullptr};
  for (const std::vector<uint64_t>* probe_shingles : probes) {
    ASSERT_OK_AND_ASSIGN(auto none,
                         docs->QueryMinHash(probe, probe_shingles, 0.8));
    EXPECT_THAT(none, SizeIs(0));
    ASSERT_OK_AND_ASSIGN(auto found,
                         docs->QueryMinHash(probe, probe_shingles, 0.75));
    ASSERT_THAT(found, SizeIs(1));
    EXPECT_FALSE(found[0].exact.has_value());
    EXPECT_EQ(found[0].estimate, 100 / 128.0);
  }
}

TEST_F(CollectionExactTest, ThresholdBelowTheFloorIsRefusedWithTheWayOut) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("docs", {}));
  ASSERT_OK_AND_ASSIGN(DocumentWrite write,
                       docs->PrepareText("a", "alpha beta gamma delta", {}));
  const absl::Status refused =
      docs->QueryMinHash(write.minhash, nullptr, 0.6).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr("min_threshold 0.7"));
  EXPECT_THAT(refused.message(), HasSubstr("config.min_threshold <= 0.6"));
  EXPECT_OK(docs->QueryMinHash(write.minhash, nullptr, 0.7).status());
  const absl::Status blocked = docs->Apply(write, {{}, 0.5}).status();
  EXPECT_EQ(blocked.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(blocked.message(), HasSubstr("insert_only_below 0.5"));
}

TEST_F(CollectionExactTest, EvidenceSurvivesAReopen) {
  const std::string text = absl::StrJoin(Words(5, 90), " ");
  {
    ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
    ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("docs", {}));
    ASSERT_OK_AND_ASSIGN(auto write, docs->PrepareText("a", text, {}));
    ASSERT_OK(docs->Apply(write).status());
  }
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto docs, db->GetCollection("docs"));
  std::vector<uint64_t> shingles;
  const MinHashSignature sig =
      docs->fingerprinter().MinHash(text, &shingles).value();
  ASSERT_OK_AND_ASSIGN(auto found, docs->QueryMinHash(sig, &shingles, 0.9));
  ASSERT_THAT(found, SizeIs(1));
  EXPECT_EQ(found[0].exact, 1.0);
}

// 32-bit evidence (the default) and 64-bit evidence decide the same pairs,
// with exact Jaccards that differ only where two shingles share a top half
// (about once in 70,000 pairs of this size); both survive a reopen.
TEST_F(CollectionExactTest, EvidenceOfEitherWidthDecidesAlike) {
  const std::vector<std::string> base = Words(8, 150);
  std::vector<std::string> probes;
  for (int seed = 0; seed < 120; ++seed) {
    probes.push_back(Edited(base, 1 + seed % 12, seed));
  }
  {
    ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
    CollectionConfig wide_config;
    wide_config.evidence_bits = 64;
    ASSERT_OK_AND_ASSIGN(auto narrow, db->CreateCollection("narrow", {}));
    ASSERT_OK_AND_ASSIGN(auto wide, db->CreateCollection("wide", wide_config));
    EXPECT_EQ(narrow->record().config.evidence_bits, 32);
    EXPECT_EQ(wide->record().config.evidence_bits, 64);
    for (auto* c : {narrow.get(), wide.get()}) {
      ASSERT_OK_AND_ASSIGN(
          auto write, c->PrepareText("base", absl::StrJoin(base, " "), {}));
      ASSERT_OK(c->Apply(write).status());
    }
    std::vector<uint64_t> narrow_set, wide_set;
    ASSERT_OK(narrow->fingerprinter().MinHash(probes[0], &narrow_set));
    ASSERT_OK(wide->fingerprinter().MinHash(probes[0], &wide_set));
    ASSERT_EQ(narrow_set.size(), wide_set.size());
    EXPECT_LT(narrow_set.back(), uint64_t{1} << 32);
    EXPECT_GE(wide_set.back(), uint64_t{1} << 32);
  }
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto narrow, db->GetCollection("narrow"));
  ASSERT_OK_AND_ASSIGN(auto wide, db->GetCollection("wide"));
  int found = 0, missed = 0;
  for (const std::string& probe : probes) {
    std::vector<std::optional<double>> exact;
    for (auto* c : {narrow.get(), wide.get()}) {
      std::vector<uint64_t> shingles;
      const MinHashSignature sig =
          c->fingerprinter().MinHash(probe, &shingles).value();
      ASSERT_OK_AND_ASSIGN(auto matches, c->QueryMinHash(sig, &shingles, 0.7));
      exact.push_back(matches.empty() ? std::nullopt : matches[0].exact);
    }
    ASSERT_EQ(exact[0].has_value(), exact[1].has_value()) << probe;
    if (!exact[0]) {
      ++missed;
      continue;
    }
    ++found;
    EXPECT_NEAR(*exact[0], *exact[1], 0.005) << probe;
  }
  // Both outcomes occur, so the comparison is not vacuous.
  EXPECT_GT(found, 10);
  EXPECT_GT(missed, 10);
}

// Evidence of another width (a peer's log entry, say) is refused by the
// store's checks before anything encodes it: 64-bit hashes would size a
// 32-bit coding by their values.
TEST_F(CollectionExactTest, EvidenceOfAnotherWidthIsRefusedNotEncoded) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto narrow, db->CreateCollection("narrow", {}));
  const std::string text = absl::StrJoin(Words(9, 200), " ");
  ASSERT_OK_AND_ASSIGN(DocumentWrite write, narrow->PrepareText("a", text, {}));
  EXPECT_EQ(write.evidence_bits, 32);
  CollectionConfig wide_config;
  wide_config.evidence_bits = 64;
  ASSERT_OK_AND_ASSIGN(auto wide, db->CreateCollection("wide", wide_config));
  ASSERT_OK_AND_ASSIGN(DocumentWrite wide_write,
                       wide->PrepareText("a", text, {}));
  EXPECT_EQ(wide_write.evidence_bits, 64);

  DocumentWrite unsaid = wide_write;  // 64-bit hashes, width not said
  unsaid.evidence_bits = 0;
  EXPECT_THAT(
      narrow->Apply(unsaid).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("wider than")));
  EXPECT_THAT(narrow->Apply(wide_write).status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("64-bit hashes")));
  // Narrow hashes said to be 32-bit fit any values check of a wide
  // collection, and are still refused.
  EXPECT_THAT(wide->Apply(write).status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("32-bit hashes")));
  EXPECT_OK(narrow->Apply(write).status());
  EXPECT_EQ(narrow->num_documents(), 1u);
  EXPECT_EQ(wide->num_documents(), 0u);
}

// A flood of identical texts is one index entry: queries cut to top_k list
// its lowest ids, and documents with the same signature but other evidence
// (or none) keep their own answers, before and after a rebuild.
// Three shards: a flood's twins spread over several of them.
TEST_F(CollectionExactTest, FloodsAnswerTopKAndKeepOtherEvidenceApart) {
  const std::vector<std::string> words = Words(6, 300);
  const std::string text = absl::StrJoin(words, " ");
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase(1, /*index_shards=*/3));
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("docs", {}));
  std::vector<uint64_t> shingles;
  const MinHashSignature sig =
      docs->fingerprinter().MinHash(text, &shingles).value();
  // One more word adds one shingle; most such texts keep every minimum.
  std::string twin_text;
  for (int i = 0; i < 50 && twin_text.empty(); ++i) {
    const std::string candidate = absl::StrCat(text, " extra", i);
    if (docs->fingerprinter().MinHash(candidate).value() == sig) {
      twin_text = candidate;
    }
  }
  ASSERT_FALSE(twin_text.empty()) << "no same-signature edit found";

  constexpr int kFlood = 200;
  for (int i = 0; i < kFlood; ++i) {
    ASSERT_OK_AND_ASSIGN(auto write,
                         docs->PrepareText(absl::StrCat("c", i), text, {}));
    ASSERT_OK(docs->Apply(write).status());
    if (i == 50) {
      ASSERT_OK_AND_ASSIGN(auto other,
                           docs->PrepareText("other", twin_text, {}));
      ASSERT_OK(docs->Apply(other).status());
      ASSERT_OK_AND_ASSIGN(auto bare, docs->PrepareText("bare", text, {}));
      bare.shingles.reset();  // as if upserted by signatures
      ASSERT_OK(docs->Apply(bare).status());
    }
  }
  auto internal = [&](std::string_view id) {
    return docs->Get(id).value().internal_id;
  };
  auto check = [&](const Collection& c, int first_copy) {
    // Score 1: the copies (exactly) and "bare" (by its estimate).
    std::vector<uint32_t> best = {internal("bare")};
    for (int i = first_copy; i < kFlood; ++i) {
      best.push_back(internal(absl::StrCat("c", i)));
    }
    std::sort(best.begin(), best.end());
    ASSERT_OK_AND_ASSIGN(auto top, c.QueryMinHash(sig, &shingles, 0.9, 3));
    ASSERT_THAT(top, SizeIs(3));
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(top[i].internal_id, best[i]);
      EXPECT_EQ(top[i].score(), 1.0);
    }
    IndexQueryStats stats;
    ASSERT_OK_AND_ASSIGN(auto all,
                         c.QueryMinHash(sig, &shingles, 0.9, 0, &stats));
    ASSERT_THAT(all, SizeIs(kFlood - first_copy + 2));
    EXPECT_EQ(stats.candidates, all.size());
    size_t copies = 0;
    for (const MinHashMatch& m : all) {
      if (m.internal_id == internal("other")) {
        ASSERT_TRUE(m.exact.has_value());
        EXPECT_LT(*m.exact, 1.0);
        EXPECT_GT(*m.exact, 0.99);
      } else if (m.internal_id == internal("bare")) {
        EXPECT_EQ(m.exact, std::nullopt);
        EXPECT_EQ(m.estimate, 1.0);
      } else {
        EXPECT_EQ(m.exact, 1.0);
        ++copies;
      }
    }
    EXPECT_EQ(copies, static_cast<size_t>(kFlood - first_copy));
  };
  check(*docs, 0);
  for (int i = 0; i < 100; ++i) ASSERT_OK(docs->Delete(absl::StrCat("c", i)));
  check(*docs, 100);

  docs.reset();
  db.reset();
  ASSERT_OK_AND_ASSIGN(db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(docs, db->GetCollection("docs"));
  check(*docs, 100);
}

// A text and a near copy (exact Jaccard >= 0.8, sharing a band) whose
// estimate, as the index scores it (the low 8 bits of each slot), is below
// EstimateFloorForExact(0.8): this hash's slots are not independent, and
// such pairs are far likelier than the binomial floor assumes.
struct PairBelowTheFloor {
  std::string source, copy;
  double exact = 0, estimate = 1;
};

PairBelowTheFloor FindPairBelowTheFloor(const Collection& docs) {
  const double floor = EstimateFloorForExact(0.8, 128);
  const LshParams lsh = docs.record().config.lsh;
  PairBelowTheFloor pair;
  // (Searched from 0 once: the first such pair is at 20318.)
  for (int i = 20000; i < 21000; ++i) {
    const std::vector<std::string> words = Words(5000 + i, 250);
    const std::string a = absl::StrJoin(words, " ");
    const std::string b = Edited(words, 5, i);
    std::vector<uint64_t> set_a, set_b;
    const MinHashSignature sig_a = *docs.fingerprinter().MinHash(a, &set_a);
    const MinHashSignature sig_b = *docs.fingerprinter().MinHash(b, &set_b);
    int kept_equal = 0;
    for (size_t s = 0; s < sig_a.slots.size(); ++s) {
      kept_equal += (sig_a.slots[s] & 0xFF) == (sig_b.slots[s] & 0xFF);
    }
    bool shares_a_band = false;
    for (int band = 0; band < lsh.bands && !shares_a_band; ++band) {
      shares_a_band = std::equal(sig_a.slots.begin() + band * lsh.rows,
                                 sig_a.slots.begin() + (band + 1) * lsh.rows,
                                 sig_b.slots.begin() + band * lsh.rows);
    }
    const double exact = ExactJaccard64(set_a, set_b);
    if (exact >= 0.8 && kept_equal / 128.0 < floor && shares_a_band) {
      return {a, b, exact, kept_equal / 128.0};
    }
  }
  return pair;
}

// With few candidates every one is verified exactly, whatever its estimate.
TEST_F(CollectionExactTest, APairWhoseEstimateFallsBelowTheFloorIsFound) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("docs", {}));
  ASSERT_EQ(docs->record().config.slot_bits, 8);
  const PairBelowTheFloor pair = FindPairBelowTheFloor(*docs);
  ASSERT_FALSE(pair.source.empty()) << "no pair below the floor";
  ASSERT_OK_AND_ASSIGN(auto write,
                       docs->PrepareText("source", pair.source, {}));
  ASSERT_OK(docs->Apply(write).status());
  std::vector<uint64_t> shingles;
  ASSERT_OK_AND_ASSIGN(const MinHashSignature sig,
                       docs->fingerprinter().MinHash(pair.copy, &shingles));
  IndexQueryStats stats;
  ASSERT_OK_AND_ASSIGN(auto found,
                       docs->QueryMinHash(sig, &shingles, 0.8, 10, &stats));
  ASSERT_THAT(found, SizeIs(1))
      << "exact " << pair.exact << ", estimate " << pair.estimate;
  EXPECT_EQ(found[0].exact, pair.exact);
}

// Whether the filter applies is decided by candidate documents, not index
// rows: a flood is one row per index shard, so a count of rows would let
// replicas with different --shards decide insert_only_below differently.
TEST_F(CollectionExactTest, DedupOnWriteDecidesAlikeWhateverTheIndexShards) {
  std::vector<std::set<std::string>> blocked_by;
  for (const int shards : {1, 8}) {
    DatabaseOptions options;
    options.store = SmallOptions();
    options.index_shards = shards;
    ASSERT_OK_AND_ASSIGN(
        auto db,
        Database::Open(absl::StrCat(StoreDir(), "-", shards), options));
    ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("docs", {}));
    const PairBelowTheFloor pair = FindPairBelowTheFloor(*docs);
    ASSERT_FALSE(pair.source.empty());
    // 100 twins of the source (one index row per shard) and 60 variants of
    // it (each apart: another word, so other evidence): 160 candidates,
    // 61 rows with one shard and 68 with eight.
    for (int i = 0; i < 100; ++i) {
      ASSERT_OK_AND_ASSIGN(
          auto write,
          docs->PrepareText(absl::StrCat("twin", i), pair.source, {}));
      ASSERT_OK(docs->Apply(write).status());
    }
    for (int i = 0; i < 60; ++i) {
      ASSERT_OK_AND_ASSIGN(
          auto write,
          docs->PrepareText(absl::StrCat("variant", i),
                            absl::StrCat(pair.source, " extra", i), {}));
      ASSERT_OK(docs->Apply(write).status());
    }
    ASSERT_OK_AND_ASSIGN(auto copy, docs->PrepareText("copy", pair.copy, {}));
    ASSERT_OK_AND_ASSIGN(auto blocking, docs->Blocking(copy, 0.8));
    std::set<std::string> ids;
    for (const MinHashMatch& match : blocking) {
      ASSERT_OK_AND_ASSIGN(auto doc, docs->GetByInternalId(match.internal_id));
      ids.insert(doc.external_id);
    }
    blocked_by.push_back(ids);
  }
  EXPECT_EQ(blocked_by[0], blocked_by[1]);
}

// Boilerplate: documents that begin with the same paragraph share the band
// keys it decides, chains longer than the hot limit (1,024 here).
// A query at the threshold leaves those out and still finds its source; at
// the floor the banding needs every band and walks them.
TEST_F(CollectionExactTest, BoilerplateHotBandKeysAreLeftOutAtTheThreshold) {
  DatabaseOptions options;
  options.store = SmallOptions();
  options.hot_band_rows = 1024;  // --hot-band-rows
  ASSERT_OK_AND_ASSIGN(auto db, Database::Open(StoreDir(), options));
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("docs", {}));
  const std::string paragraph = absl::StrJoin(Words(7, 150), " ");
  constexpr int kDocs = 20000;  // ~2,500 on each hot key
  std::vector<std::vector<std::string>> own;
  for (int i = 0; i < kDocs; ++i) {
    own.push_back(Words(1000 + i, 100));
    ASSERT_OK_AND_ASSIGN(
        auto write,
        docs->PrepareText(
            absl::StrCat("d", i),
            absl::StrCat(paragraph, " ", absl::StrJoin(own[i], " ")), {}));
    ASSERT_OK(docs->Apply(write).status());
  }
  int with_hot_keys = 0;
  for (int i = 0; i < 20; ++i) {
    const std::string probe =
        absl::StrCat(paragraph, " ", Edited(own[i], 2, i));
    std::vector<uint64_t> shingles;
    ASSERT_OK_AND_ASSIGN(const MinHashSignature sig,
                         docs->fingerprinter().MinHash(probe, &shingles));
    IndexQueryStats stats;
    ASSERT_OK_AND_ASSIGN(auto found,
                         docs->QueryMinHash(sig, &shingles, 0.8, 10, &stats));
    ASSERT_THAT(found, SizeIs(1)) << i;
    EXPECT_EQ(found[0].internal_id,
              docs->Get(absl::StrCat("d", i))->internal_id);
    if (stats.hot_bands_skipped == 0) continue;
    ++with_hot_keys;

    IndexQueryStats floor_stats;
    ASSERT_OK_AND_ASSIGN(auto at_floor, docs->QueryMinHash(sig, &shingles, 0.7,
                                                           10, &floor_stats));
    ASSERT_THAT(at_floor, SizeIs(1)) << i;
    EXPECT_EQ(floor_stats.hot_bands_skipped, 0u);
    EXPECT_GT(floor_stats.candidates, 1024u) << i;
    EXPECT_LT(stats.candidates + 1024, floor_stats.candidates) << i;
  }
  // Each document has a hot band with probability ~0.93.
  EXPECT_GE(with_hot_keys, 10);
}

}  // namespace
}  // namespace neardup::engine
