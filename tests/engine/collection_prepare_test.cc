// Prepare and Apply, the two halves of a write: a document prepared once
// applies to any database with the same collection (as a replica would
// apply it from a log) and answers there exactly as where it was made.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/engine_test_util.h"
#include "neardup/engine/database.h"
#include "support/temp_dir.h"

namespace neardup::engine {
namespace {

using testing::EngineTest;
using ::testing::HasSubstr;

std::string Text(int seed, int words = 120) {
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  for (int i = 0; i < words; ++i) out.push_back(absl::StrCat("w", rng() % 900));
  return absl::StrJoin(out, " ");
}

CollectionConfig Config() {
  CollectionConfig config;
  config.simhash_enabled = true;
  config.kept_families = {"tlsh"};
  config.store_text = true;
  return config;
}

class CollectionPrepareTest : public EngineTest {};

TEST_F(CollectionPrepareTest, ATextIsPreparedAsPrepareTextPreparesIt) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("c", Config()));
  const std::string text = Text(1);
  DocumentInput input;
  input.external_id = "a";
  input.metadata = {{"k", "v"}};
  input.text = text;
  ASSERT_OK_AND_ASSIGN(const PreparedDocument prepared, docs->Prepare(input));
  ASSERT_OK_AND_ASSIGN(const PreparedDocument direct,
                       docs->PrepareText("a", text, {{"k", "v"}}));
  EXPECT_EQ(prepared.minhash, direct.minhash);
  EXPECT_EQ(prepared.simhash, direct.simhash);
  EXPECT_EQ(prepared.shingles, direct.shingles);
  EXPECT_EQ(prepared.text, direct.text);
  EXPECT_EQ(prepared.metadata, direct.metadata);
  ASSERT_EQ(prepared.kept.size(), 1u);
  EXPECT_EQ(prepared.kept, direct.kept);
  EXPECT_EQ(prepared.minhash_config_hash, docs->record().minhash_config_hash);
  EXPECT_EQ(prepared.simhash_config_hash, docs->record().simhash_config_hash);
  EXPECT_EQ(prepared.kept[0].config_hash,
            docs->record().kept_config_hashes[0].config_hash);
}

TEST_F(CollectionPrepareTest, APreparedDocumentAppliesToAnotherDatabaseAlike) {
  // Two databases, one collection each with the same config: the first
  // prepares, both apply (a log's producer and a replica).
  neardup::testing::TempDir other_dir;
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  DatabaseOptions options;
  options.store = SmallOptions();
  ASSERT_OK_AND_ASSIGN(auto replica, Database::Open(other_dir.path(), options));
  ASSERT_OK_AND_ASSIGN(auto here, db->CreateCollection("c", Config()));
  ASSERT_OK_AND_ASSIGN(auto there, replica->CreateCollection("c", Config()));
  std::vector<PreparedDocument> prepared;
  for (int i = 0; i < 20; ++i) {
    const std::string text = Text(i % 10);  // ten pairs of twins
    DocumentInput input;
    input.external_id = absl::StrCat("d", i);
    input.text = text;
    ASSERT_OK_AND_ASSIGN(prepared.emplace_back(), here->Prepare(input));
  }
  for (const PreparedDocument& doc : prepared) {
    ASSERT_OK(here->Apply(doc).status());
    ASSERT_OK(there->Apply(doc).status());
  }
  for (int i = 0; i < 10; ++i) {
    ASSERT_OK_AND_ASSIGN(
        auto a,
        here->QueryMinHash(prepared[i].minhash, &*prepared[i].shingles, 0.9));
    ASSERT_OK_AND_ASSIGN(
        auto b,
        there->QueryMinHash(prepared[i].minhash, &*prepared[i].shingles, 0.9));
    EXPECT_EQ(a, b);
    EXPECT_EQ(a.size(), 2u);  // the document and its twin
    ASSERT_OK_AND_ASSIGN(const auto stored_here,
                         here->Get(absl::StrCat("d", i)));
    ASSERT_OK_AND_ASSIGN(const auto stored_there,
                         there->Get(absl::StrCat("d", i)));
    EXPECT_EQ(stored_here.text, stored_there.text);
    EXPECT_EQ(stored_here.internal_id, stored_there.internal_id);
  }
}

TEST_F(CollectionPrepareTest, SignaturesAreStampedWithTheCollectionsHashes) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("c", Config()));
  ASSERT_OK_AND_ASSIGN(const PreparedDocument from_text,
                       docs->PrepareText("t", Text(3), {}));
  DocumentInput input;
  input.external_id = "s";
  input.signatures = SignatureInput{.minhash = from_text.minhash,
                                    .simhash = from_text.simhash,
                                    .evidence = from_text.shingles,
                                    .kept = from_text.kept};
  ASSERT_OK_AND_ASSIGN(const PreparedDocument prepared, docs->Prepare(input));
  EXPECT_EQ(prepared.minhash_config_hash, docs->record().minhash_config_hash);
  EXPECT_EQ(prepared.simhash_config_hash, docs->record().simhash_config_hash);
  EXPECT_EQ(prepared.kept, from_text.kept);
  EXPECT_EQ(prepared.shingles, from_text.shingles);
  EXPECT_FALSE(prepared.text.has_value());
  ASSERT_OK(docs->Apply(prepared).status());

  // A collection with SimHash needs the SimHash.
  input.signatures->simhash.reset();
  EXPECT_THAT(docs->Prepare(input).status().message(),
              HasSubstr("signatures.simhash is required"));
}

// Prepare refuses what Apply would refuse for the document itself: a
// replica applying a prepared document from a log never finds it bad.
TEST_F(CollectionPrepareTest, WhatApplyWouldRefusePrepareRefuses) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  CollectionConfig plain;  // no SimHash, no TLSH
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("plain", plain));
  ASSERT_OK_AND_ASSIGN(auto full, db->CreateCollection("full", Config()));
  ASSERT_OK_AND_ASSIGN(const PreparedDocument from_text,
                       full->PrepareText("t", Text(6), {}));
  auto with = [&](auto change) {
    DocumentInput input;
    input.external_id = "s";
    input.signatures.emplace();
    input.signatures->minhash = from_text.minhash;
    change(input);
    return docs->Prepare(input).status();
  };
  ASSERT_OK(with([](DocumentInput&) {}));
  EXPECT_THAT(with([&](DocumentInput& in) {
                in.signatures->simhash = from_text.simhash;
              }).message(),
              HasSubstr("has SimHash disabled"));
  EXPECT_THAT(with([&](DocumentInput& in) {
                in.signatures->kept = from_text.kept;
              }).message(),
              HasSubstr("keeps no tlsh"));
  EXPECT_THAT(with([](DocumentInput& in) {
                in.signatures->minhash.slots.resize(64);
              }).message(),
              HasSubstr("64 slots"));
  EXPECT_THAT(with([](DocumentInput& in) {
                in.metadata = {{"k", "1"}, {"k", "2"}};
              }).message(),
              HasSubstr("duplicate metadata key"));
  EXPECT_THAT(with([](DocumentInput& in) { in.external_id.clear(); }).message(),
              HasSubstr("id"));
  // Metadata comes out sorted, as the store keeps it.
  DocumentInput sorted;
  sorted.external_id = "m";
  sorted.signatures.emplace();
  sorted.signatures->minhash = from_text.minhash;
  sorted.metadata = {{"b", "2"}, {"a", "1"}};
  ASSERT_OK_AND_ASSIGN(const PreparedDocument prepared, docs->Prepare(sorted));
  EXPECT_EQ(prepared.metadata, (storage::Metadata{{"a", "1"}, {"b", "2"}}));
}

TEST_F(CollectionPrepareTest, ExactlyOneOfTextAndSignatures) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("c", Config()));
  DocumentInput neither;
  neither.external_id = "x";
  EXPECT_EQ(docs->Prepare(neither).status().code(),
            absl::StatusCode::kInvalidArgument);
  const std::string text = Text(4);
  ASSERT_OK_AND_ASSIGN(const PreparedDocument from_text,
                       docs->PrepareText("x", text, {}));
  DocumentInput both = neither;
  both.text = text;
  both.signatures.emplace();
  both.signatures->minhash = from_text.minhash;
  both.signatures->simhash = from_text.simhash;
  EXPECT_EQ(docs->Prepare(both).status().code(),
            absl::StatusCode::kInvalidArgument);
  // A text's errors name the field.
  DocumentInput empty = neither;
  empty.text = "";
  EXPECT_THAT(docs->Prepare(empty).status().message(), HasSubstr("text"));
}

TEST_F(CollectionPrepareTest, AModelCollectionNeedsTheModelCacheForTexts) {
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  CollectionConfig config;
  config.embedding.model_id = "m@1";
  config.embedding.dim = 8;
  config.embedding.fasttext_model = "models/m.bin";
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("c", config));
  DocumentInput input;
  input.external_id = "x";
  const std::string text = Text(5);
  input.text = text;
  // Without a cache (and without a vector) there is no vector to store.
  EXPECT_EQ(docs->Prepare(input).status().code(),
            absl::StatusCode::kFailedPrecondition);
  // A cache without a models directory: local embeddings are off.
  const EmbedderCache off("");
  EXPECT_FALSE(docs->Prepare(input, &off).ok());
  // A vector sent along needs no model.
  input.embedding = std::vector<float>(8, 0.0f);
  (*input.embedding)[0] = 1.0f;
  input.embedding_model_id = "m@1";
  ASSERT_OK_AND_ASSIGN(const PreparedDocument prepared, docs->Prepare(input));
  EXPECT_EQ(prepared.embedding_model_id, "m@1");
  ASSERT_OK(docs->Apply(prepared).status());
}

}  // namespace
}  // namespace neardup::engine
