#include "neardup/engine/database.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "engine/engine_test_util.h"
#include "neardup/base/absl_compat.h"

namespace neardup::engine {
namespace {

using storage::DocumentWrite;
using storage::WriteOptions;

using testing::EngineTest;
using ::testing::HasSubstr;
using ::testing::SizeIs;

// A generated English-like document: `words` words from a seeded stream.
std::string Text(int seed, int words = 60) {
  static const char* const kWords[] = {
      "river",  "stone",  "market", "quiet",  "signal",  "harbor", "winter",
      "ledger", "copper", "garden", "engine", "lantern", "meadow", "orbit",
      "parcel", "velvet", "tunnel", "anchor", "bridge",  "cobalt"};
  std::string text;
  uint32_t state = static_cast<uint32_t>(seed) * 2654435761u + 1;
  for (int i = 0; i < words; ++i) {
    state = state * 1664525u + 1013904223u;
    absl::StrAppend(&text, kWords[(state >> 16) % 20], (state >> 8) % 97, " ");
  }
  return text;
}

// `text` with its middle word replaced: Jaccard ~0.84 over 5-word shingles.
std::string NearCopy(std::string_view text) {
  std::vector<std::string> words = absl::StrSplit(AbslView(text), ' ');
  words[words.size() / 2] = "changed";
  return absl::StrJoin(words, " ");
}

class DatabaseTest : public EngineTest {
 protected:
  // Tests whose answers must not depend on sharding (or whose threads
  // should meet on several shards) ask for more than the default one.
  absl::StatusOr<std::unique_ptr<Database>> OpenDatabase(
      RebuildListener listener = nullptr,
      int index_shards = DatabaseOptions{}.index_shards) {
    DatabaseOptions options;
    options.store = SmallOptions();
    options.rebuild_threads = 2;
    options.index_shards = index_shards;
    return Database::Open(StoreDir(), options, std::move(listener));
  }
};

TEST_F(DatabaseTest, PersistReopenGivesIdenticalAnswers) {
  std::vector<std::vector<MinHashMatch>> before;
  std::vector<std::vector<IdDistance>> before_simhash;
  std::vector<MinHashSignature> probes;
  std::vector<uint64_t> simhash_probes;
  {
    ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase(nullptr, /*index_shards=*/3));
    CollectionConfig config;
    config.simhash_enabled = true;
    config.min_threshold = 0.3;
    ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("docs", config));
    ASSERT_OK_AND_ASSIGN(auto other, db->CreateCollection("other", {}));
    for (int i = 0; i < 300; ++i) {
      const std::string text = i % 3 == 0 ? NearCopy(Text(i - 1)) : Text(i);
      ASSERT_OK_AND_ASSIGN(auto write,
                           docs->PrepareText(absl::StrCat("d", i), text, {}));
      ASSERT_OK(docs->Apply(write).status());
      ASSERT_OK_AND_ASSIGN(write,
                           other->PrepareText(absl::StrCat("o", i), text, {}));
      ASSERT_OK(other->Apply(write).status());
    }
    ASSERT_OK(docs->Delete("d7"));
    for (int i = 0; i < 300; i += 5) {
      ASSERT_OK_AND_ASSIGN(auto sig, docs->fingerprinter().MinHash(Text(i)));
      ASSERT_OK_AND_ASSIGN(auto matches, docs->QueryMinHash(sig, nullptr, 0.3));
      ASSERT_OK_AND_ASSIGN(uint64_t h, docs->fingerprinter().SimHash(Text(i)));
      ASSERT_OK_AND_ASSIGN(auto near, docs->QuerySimHash(h));
      probes.push_back(sig);
      simhash_probes.push_back(h);
      before.push_back(matches);
      before_simhash.push_back(near);
    }
    EXPECT_EQ(docs->num_documents(), 299u);
  }
  std::vector<RebuildReport> reports;
  // Rebuilt into one shard: the same answers.
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase([&](const RebuildReport& r) {
                         reports.push_back(r);
                       }));
  ASSERT_THAT(reports, SizeIs(2));
  ASSERT_OK_AND_ASSIGN(auto docs, db->GetCollection("docs"));
  EXPECT_EQ(docs->num_documents(), 299u);
  EXPECT_FALSE(docs->Get("d7").ok());
  size_t nonempty = 0;
  for (size_t i = 0; i < probes.size(); ++i) {
    EXPECT_EQ(*docs->QueryMinHash(probes[i], nullptr, 0.3), before[i]);
    EXPECT_EQ(*docs->QuerySimHash(simhash_probes[i]), before_simhash[i]);
    nonempty += !before[i].empty();
  }
  EXPECT_GT(nonempty, probes.size() / 2);  // the probes do find documents
}

// #17 point 8: memory follows the live documents. Upsert+delete cycles
// reuse internal ids, so the id bound (which sizes the index's rows) stays
// at the peak of live documents, before and after a restart.
TEST_F(DatabaseTest, InternalIdsAreReusedSoMemoryFollowsLiveDocuments) {
  size_t index_bytes_live_only = 0;
  {
    ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
    ASSERT_OK_AND_ASSIGN(auto reference, db->CreateCollection("ref", {}));
    ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("docs", {}));
    for (int i = 0; i < 20; ++i) {
      for (auto* c : {reference.get(), docs.get()}) {
        ASSERT_OK_AND_ASSIGN(
            auto write, c->PrepareText(absl::StrCat("live", i), Text(i), {}));
        ASSERT_OK(c->Apply(write).status());
      }
    }
    for (int i = 0; i < 3000; ++i) {  // churn: each document lives briefly
      ASSERT_OK_AND_ASSIGN(auto write, docs->PrepareText(absl::StrCat("tmp", i),
                                                         Text(1000 + i), {}));
      ASSERT_OK(docs->Apply(write).status());
      ASSERT_OK(docs->Delete(absl::StrCat("tmp", i)));
    }
    ASSERT_OK_AND_ASSIGN(uint32_t bound,
                         db->store().InternalIdBound(docs->record()));
    EXPECT_LE(bound, 21u);
    index_bytes_live_only = reference->index_bytes();
  }
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto docs, db->GetCollection("docs"));
  ASSERT_OK_AND_ASSIGN(auto reference, db->GetCollection("ref"));
  EXPECT_EQ(docs->num_documents(), 20u);
  // Sized for the live ids (the bound may be one above the reference's:
  // ~5 % of 20 rows), not for the 3,020 ever used.
  EXPECT_LE(docs->index_bytes(), reference->index_bytes() * 21 / 20);
  EXPECT_LE(docs->index_bytes(), index_bytes_live_only * 2);
  // Every live document is still found, by its own text.
  for (int i = 0; i < 20; ++i) {
    ASSERT_OK_AND_ASSIGN(auto sig, docs->fingerprinter().MinHash(Text(i)));
    ASSERT_OK_AND_ASSIGN(auto found, docs->QueryMinHash(sig, nullptr, 1.0));
    ASSERT_THAT(found, SizeIs(1)) << i;
    EXPECT_EQ(docs->GetByInternalId(found[0].internal_id)->external_id,
              absl::StrCat("live", i));
  }
  // Gaps found by the rebuild are reused too.
  ASSERT_OK(docs->Delete("live3"));
  ASSERT_OK(docs->Delete("live7"));
  for (int i = 0; i < 2; ++i) {
    ASSERT_OK_AND_ASSIGN(auto write, docs->PrepareText(absl::StrCat("new", i),
                                                       Text(500 + i), {}));
    ASSERT_OK(docs->Apply(write).status());
  }
  ASSERT_OK_AND_ASSIGN(uint32_t bound,
                       db->store().InternalIdBound(docs->record()));
  EXPECT_LE(bound, 21u);
  ASSERT_OK_AND_ASSIGN(auto sig, docs->fingerprinter().MinHash(Text(501)));
  ASSERT_OK_AND_ASSIGN(auto found, docs->QueryMinHash(sig, nullptr, 1.0));
  ASSERT_THAT(found, SizeIs(1));
  EXPECT_EQ(docs->GetByInternalId(found[0].internal_id)->external_id, "new1");
}

TEST_F(DatabaseTest, CollectionsCreateGetListDrop) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK(db->CreateCollection("a", {}).status());
  EXPECT_EQ(db->CreateCollection("a", {}).status().code(),
            absl::StatusCode::kAlreadyExists);
  ASSERT_OK(db->CreateCollection("b", {}).status());
  EXPECT_THAT(db->ListCollections(), SizeIs(2));
  ASSERT_OK(db->DropCollection("a"));
  EXPECT_EQ(db->GetCollection("a").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(db->DropCollection("a").code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(db->ListCollections(), SizeIs(1));
}

TEST_F(DatabaseTest, ConfigHashMismatchIsRefusedAndNotIndexed) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("docs", {}));
  ASSERT_OK_AND_ASSIGN(auto write, docs->PrepareText("x", Text(1), {}));
  write.minhash_config_hash ^= 1;
  const auto outcome = docs->Apply(write);
  EXPECT_EQ(outcome.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(docs->num_documents(), 0u);
  EXPECT_EQ(docs->Get("x").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(DatabaseTest, DedupOnWriteReturnsMatchesInsteadOfInserting) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  CollectionConfig config;
  config.min_threshold = 0.5;
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("docs", config));
  const UpsertOptions dedup{{}, 0.5};
  ASSERT_OK_AND_ASSIGN(auto first, docs->PrepareText("a", Text(1), {}));
  ASSERT_OK_AND_ASSIGN(auto outcome, docs->Apply(first, dedup));
  EXPECT_TRUE(outcome.written);
  // Re-upserting the same id is not blocked by itself.
  ASSERT_OK_AND_ASSIGN(outcome, docs->Apply(first, dedup));
  EXPECT_TRUE(outcome.written);
  EXPECT_TRUE(outcome.put.replaced);
  ASSERT_OK_AND_ASSIGN(auto copy, docs->PrepareText("b", Text(1), {}));
  ASSERT_OK_AND_ASSIGN(outcome, docs->Apply(copy, dedup));
  EXPECT_FALSE(outcome.written);
  ASSERT_THAT(outcome.blocking, SizeIs(1));
  EXPECT_EQ(outcome.blocking[0].score(), 1.0);
  EXPECT_EQ(outcome.blocking[0].exact, 1.0);  // decided on the shingle sets
  EXPECT_EQ(docs->Get("b").status().code(), absl::StatusCode::kNotFound);
  ASSERT_OK_AND_ASSIGN(auto unrelated, docs->PrepareText("c", Text(2), {}));
  ASSERT_OK_AND_ASSIGN(outcome, docs->Apply(unrelated, dedup));
  EXPECT_TRUE(outcome.written);
}

TEST_F(DatabaseTest, ConcurrentNearDuplicateUpsertsAdmitExactlyOne) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  // Banded for 0.5 (32 x 4): the near copies (J ~0.84) always collide.
  CollectionConfig config;
  config.threshold = 0.5;
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("docs", config));
  for (int round = 0; round < 20; ++round) {
    const std::string text = Text(1000 + round);
    std::atomic<int> written{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        auto write = docs->PrepareText(absl::StrCat(round, "-", t),
                                       t % 2 ? text : NearCopy(text), {});
        auto outcome = docs->Apply(*write, {{}, 0.5});
        if (outcome.ok() && outcome->written) ++written;
      });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(written.load(), 1) << "round " << round;
  }
}

// Plain upserts are group-committed: many writers, overlapping ids.
TEST_F(DatabaseTest, ConcurrentUpsertsAllLandOnceEach) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("docs", {}));
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 150; ++i) {
        // Ids 0..299: every id is written by two threads.
        const int n = (t % 2) * 150 + i;
        auto write = docs->PrepareText(absl::StrCat("d", n), Text(n), {});
        if (!write.ok() || !docs->Apply(*write).ok()) ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(docs->num_documents(), 300u);
  ASSERT_OK_AND_ASSIGN(uint64_t stored,
                       db->store().CountDocuments(docs->record()));
  EXPECT_EQ(stored, 300u);
  for (int n = 0; n < 300; n += 37) {
    ASSERT_OK_AND_ASSIGN(auto sig, docs->fingerprinter().MinHash(Text(n)));
    ASSERT_OK_AND_ASSIGN(auto found, docs->QueryMinHash(sig, nullptr, 1.0));
    ASSERT_THAT(found, SizeIs(1)) << n;
    EXPECT_EQ(docs->GetByInternalId(found[0].internal_id)->external_id,
              absl::StrCat("d", n));
  }
}

TEST_F(DatabaseTest, UpsertManyAppliesInOrderAcrossGroupCommitRounds) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("docs", {}));
  // 600 writes (more than one group-commit round) of 400 ids: ids 0..199
  // are written twice, the second time with another text.
  std::vector<DocumentWrite> writes;
  for (int i = 0; i < 600; ++i) {
    ASSERT_OK_AND_ASSIGN(
        auto write, docs->PrepareText(absl::StrCat("d", i % 400), Text(i), {}));
    writes.push_back(std::move(write));
  }
  std::vector<const DocumentWrite*> batch;
  for (const DocumentWrite& w : writes) batch.push_back(&w);
  const auto results = docs->ApplyMany(batch, WriteOptions{});
  ASSERT_THAT(results, SizeIs(600));
  for (int i = 0; i < 600; ++i) {
    ASSERT_OK(results[i]);
    EXPECT_EQ(results[i]->replaced, i >= 400) << i;
    if (i >= 400) {
      EXPECT_EQ(results[i]->internal_id, results[i - 400]->internal_id);
    }
  }
  EXPECT_EQ(docs->num_documents(), 400u);
  for (int i : {0, 199, 200, 399}) {
    const int last = i < 200 ? i + 400 : i;  // the text written last
    ASSERT_OK_AND_ASSIGN(auto sig, docs->fingerprinter().MinHash(Text(last)));
    ASSERT_OK_AND_ASSIGN(auto found, docs->QueryMinHash(sig, nullptr, 1.0));
    ASSERT_THAT(found, SizeIs(1)) << i;
    EXPECT_EQ(docs->GetByInternalId(found[0].internal_id)->external_id,
              absl::StrCat("d", i));
  }
  EXPECT_THAT(docs->ApplyMany({}, WriteOptions{}), SizeIs(0));
}

// A round is indexed while the next one is written (a two-stage pipeline).
// Replaces, deletes and dedup-on-write racing with it must leave the index
// holding exactly the stored documents, each under its current signature.
TEST_F(DatabaseTest, PipelinedRoundsLeaveIndexAndStoreInStep) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase(nullptr, /*index_shards=*/3));
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("docs", {}));
  // Few ids and small batches: many rounds replace what the round before
  // wrote, so a round indexed out of order leaves a stale signature.
  constexpr int kIds = 12;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 150; ++round) {
        std::vector<DocumentWrite> writes;
        for (int i = 0; i < 1 + round % 3; ++i) {
          const int n = (t * 5 + round * 7 + i) % kIds;
          auto write = docs->PrepareText(absl::StrCat("d", n),
                                         Text(n * 1000 + round * 10 + t), {});
          if (!write.ok()) ++failures;
          writes.push_back(*std::move(write));
        }
        std::vector<const DocumentWrite*> batch;
        for (const DocumentWrite& w : writes) batch.push_back(&w);
        for (const auto& result : docs->ApplyMany(batch, WriteOptions{})) {
          if (!result.ok()) ++failures;
        }
      }
    });
  }
  threads.emplace_back([&] {
    for (int i = 0; i < 300; ++i) {
      const absl::Status deleted =
          docs->Delete(absl::StrCat("d", (i * 7) % kIds), WriteOptions{});
      if (!deleted.ok() && !absl::IsNotFound(deleted)) ++failures;
    }
  });
  threads.emplace_back([&] {
    for (int i = 0; i < 60; ++i) {
      auto write = docs->PrepareText(absl::StrCat("d", (i * 11) % kIds),
                                     Text(900000 + i), {});
      if (!write.ok() || !docs->Apply(*write, {{}, 0.8}).ok()) ++failures;
    }
  });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);

  size_t live = 0;
  for (int n = 0; n < kIds; ++n) {
    auto stored = docs->Get(absl::StrCat("d", n));
    if (absl::IsNotFound(stored.status())) continue;
    ASSERT_OK(stored);
    ++live;
    ASSERT_OK_AND_ASSIGN(auto found,
                         docs->QueryMinHash(stored->minhash, nullptr, 1.0));
    EXPECT_TRUE(std::any_of(found.begin(), found.end(),
                            [&](const MinHashMatch& m) {
                              return m.internal_id == stored->internal_id;
                            }))
        << "d" << n << " is stored but not indexed under its signature";
  }
  EXPECT_EQ(docs->num_documents(), live);
  ASSERT_OK_AND_ASSIGN(uint64_t counted,
                       db->store().CountDocuments(docs->record()));
  EXPECT_EQ(counted, live);
}

// A group-commit leader writes others' puts too, but returns once its own
// are written: under a steady stream of writers it would otherwise never
// return. Every put lands exactly once.
TEST_F(DatabaseTest, GroupCommitLeaderReturnsUnderSteadyLoad) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("docs", {}));
  std::vector<DocumentWrite> mine;
  for (int i = 0; i < 600; ++i) {  // several rounds of its own
    ASSERT_OK_AND_ASSIGN(auto w,
                         docs->PrepareText(absl::StrCat("a", i), Text(i), {}));
    mine.push_back(std::move(w));
  }
  std::atomic<bool> a_done{false};
  std::atomic<int> others_written{0};
  // Started first, so that it usually leads while the others pile on.
  auto leader = std::async(std::launch::async, [&] {
    std::vector<const DocumentWrite*> batch;
    for (const DocumentWrite& w : mine) batch.push_back(&w);
    auto results = docs->ApplyMany(batch, WriteOptions{});
    a_done = true;
    return results;
  });
  std::vector<std::thread> others;
  for (int t = 0; t < 3; ++t) {
    others.emplace_back([&, t] {
      for (int n = 0; !a_done; ++n) {
        auto w = docs->PrepareText(absl::StrCat("b", t, "-", n),
                                   Text(1000 + n % 50), {});
        if (!w.ok()) return;
        const DocumentWrite* one = &*w;
        auto results = docs->ApplyMany({&one, 1}, WriteOptions{});
        if (results.size() == 1 && results[0].ok()) ++others_written;
      }
    });
  }
  const bool returned =
      leader.wait_for(std::chrono::seconds(60)) == std::future_status::ready;
  a_done = true;  // let the others stop either way
  for (std::thread& t : others) t.join();
  ASSERT_TRUE(returned) << "the leader kept leading while others wrote";
  const auto results = leader.get();
  ASSERT_THAT(results, SizeIs(600));
  for (const auto& result : results) ASSERT_OK(result);
  EXPECT_EQ(docs->num_documents(), 600u + others_written.load());
}

TEST_F(DatabaseTest, PutDocumentsGivesEachDocumentItsOwnResult) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("docs", {}));
  ASSERT_OK_AND_ASSIGN(auto a, docs->PrepareText("a", Text(1), {}));
  ASSERT_OK_AND_ASSIGN(auto a_again, docs->PrepareText("a", Text(2), {}));
  ASSERT_OK_AND_ASSIGN(auto bad, docs->PrepareText("bad", Text(3), {}));
  bad.minhash_config_hash ^= 1;
  ASSERT_OK_AND_ASSIGN(auto b, docs->PrepareText("b", Text(4), {}));
  const DocumentWrite* batch[] = {&a, &bad, &a_again, &b};
  ASSERT_OK_AND_ASSIGN(auto results,
                       db->store().PutDocuments(docs->record(), batch));
  ASSERT_THAT(results, SizeIs(4));
  ASSERT_OK(results[0]);
  EXPECT_EQ(results[1].status().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_OK(results[2]);
  EXPECT_TRUE(results[2]->replaced);  // the same id earlier in the batch
  EXPECT_EQ(results[2]->internal_id, results[0]->internal_id);
  ASSERT_OK(results[3]);
  EXPECT_NE(results[3]->internal_id, results[0]->internal_id);
  ASSERT_OK_AND_ASSIGN(auto stored, docs->Get("a"));
  EXPECT_EQ(stored.minhash, a_again.minhash);  // the later put wins
  EXPECT_EQ(docs->Get("bad").status().code(), absl::StatusCode::kNotFound);
  ASSERT_OK_AND_ASSIGN(uint32_t bound,
                       db->store().InternalIdBound(docs->record()));
  EXPECT_EQ(bound, 2u);
}

// Collections encode evidence before taking the write lock and hand it to
// PutDocuments; what gets stored is the same as the store's own encoding.
TEST_F(DatabaseTest, PutDocumentsTakesEvidenceEncodedByTheCaller) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("docs", {}));
  ASSERT_OK_AND_ASSIGN(auto a, docs->PrepareText("a", Text(1), {}));
  ASSERT_OK_AND_ASSIGN(auto b, docs->PrepareText("b", Text(2), {}));
  ASSERT_TRUE(a.shingles && b.shingles);
  const DocumentWrite* batch[] = {&a, &b};
  const std::string one_value[] = {"x"};
  EXPECT_EQ(db->store()
                .PutDocuments(docs->record(), batch, WriteOptions{}, one_value)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  // b's is left to the store (empty).
  const std::string values[] = {
      storage::Store::EncodeEvidence(docs->record(), *a.shingles), ""};
  ASSERT_OK_AND_ASSIGN(
      auto results,
      db->store().PutDocuments(docs->record(), batch, WriteOptions{}, values));
  ASSERT_OK(results[0]);
  ASSERT_OK(results[1]);
  const uint32_t ids[] = {results[0]->internal_id, results[1]->internal_id};
  ASSERT_OK_AND_ASSIGN(auto sets,
                       db->store().GetShingleSets(docs->record(), ids));
  ASSERT_THAT(sets, SizeIs(2));
  ASSERT_TRUE(sets[0].has_value() && sets[1].has_value());
  EXPECT_EQ(*sets[0], *a.shingles);
  EXPECT_EQ(*sets[1], *b.shingles);
}

TEST_F(DatabaseTest, CheckpointRestoresIntoAWorkingDatabase) {
  const std::string backup = temp_.path() + "/backup";
  {
    ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
    ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("docs", {}));
    for (int i = 0; i < 50; ++i) {
      ASSERT_OK_AND_ASSIGN(auto w,
                           docs->PrepareText(absl::StrCat(i), Text(i), {}));
      ASSERT_OK(docs->Apply(w).status());
    }
    ASSERT_OK(db->store().Checkpoint(backup));
    ASSERT_OK_AND_ASSIGN(auto late, docs->PrepareText("late", Text(99), {}));
    ASSERT_OK(docs->Apply(late).status());
  }
  DatabaseOptions options;
  options.store = SmallOptions();
  ASSERT_OK_AND_ASSIGN(auto restored, Database::Open(backup, options));
  ASSERT_OK_AND_ASSIGN(auto docs, restored->GetCollection("docs"));
  EXPECT_EQ(docs->num_documents(), 50u);
  EXPECT_EQ(docs->Get("late").status().code(), absl::StatusCode::kNotFound);
  ASSERT_OK_AND_ASSIGN(auto sig, docs->fingerprinter().MinHash(Text(3)));
  ASSERT_OK_AND_ASSIGN(auto matches, docs->QueryMinHash(sig, nullptr, 0.9));
  ASSERT_THAT(matches, SizeIs(1));
  EXPECT_EQ(docs->GetByInternalId(matches[0].internal_id)->external_id, "3");
}

TEST_F(DatabaseTest, SimHashQueryWithoutSimHashIsAPreconditionError) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("docs", {}));
  const auto result = docs->QuerySimHash(0);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(result.status().message(), HasSubstr("without SimHash"));
}

}  // namespace
}  // namespace neardup::engine
