// Collections with an embedding space: vectors written with their documents
// (tagged with the model), replaced, deleted, refused when foreign, and
// rebuilt into the semantic index on reopen.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <random>

#include "absl/strings/str_cat.h"
#include "engine/engine_test_util.h"
#include "neardup/core/index/hnsw_index.h"
#include "neardup/engine/database.h"

namespace neardup::engine {
namespace {

using storage::CollectionRecord;
using storage::DocumentWrite;
using storage::StoredDocument;

using testing::EngineTest;
using ::testing::HasSubstr;
using ::testing::SizeIs;

constexpr int kDim = 16;

CollectionConfig SpaceConfig() {
  CollectionConfig config;
  config.embedding.model_id = "test-model@1";
  config.embedding.dim = kDim;
  return config;
}

std::vector<float> RandomUnit(std::mt19937& rng) {
  std::normal_distribution<float> normal;
  std::vector<float> v(kDim);
  for (float& x : v) x = normal(rng);
  return *UnitEmbedding(v, kDim);
}

class CollectionEmbeddingTest : public EngineTest {
 protected:
  static absl::StatusOr<DocumentWrite> Write(const Collection& c,
                                             std::string id,
                                             std::vector<float> unit) {
    auto doc =
        c.PrepareText(id, absl::StrCat("text of ", id, " a b c d e f"), {});
    if (!doc.ok()) return doc.status();
    doc->embedding = std::move(unit);
    doc->embedding_model_id = c.record().config.embedding.model_id;
    return doc;
  }
};

// Both kinds of shard (flat arrays, the default, and HNSW graphs) in one
// store, through writes, a replace, a delete and a reopen.
TEST_F(CollectionEmbeddingTest, VectorsLiveWithTheirDocumentsAndSurviveReopen) {
  std::mt19937 rng(3);
  std::vector<std::vector<float>> vectors;
  for (int i = 0; i < 40; ++i) vectors.push_back(RandomUnit(rng));
  const char* const kNames[] = {"flat", "graph"};
  {
    ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
    for (const char* name : kNames) {
      CollectionConfig config = SpaceConfig();
      config.embedding.hnsw = std::string_view(name) == "graph";
      ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection(name, config));
      ASSERT_NE(docs->semantic_index(), nullptr);
      for (int i = 0; i < 40; ++i) {
        ASSERT_OK_AND_ASSIGN(DocumentWrite doc,
                             Write(*docs, absl::StrCat("d", i), vectors[i]));
        ASSERT_OK(docs->Apply(doc).status());
      }
      // d0 now points where d1 does; d2 is deleted.
      ASSERT_OK_AND_ASSIGN(DocumentWrite moved, Write(*docs, "d0", vectors[1]));
      ASSERT_OK(docs->Apply(moved).status());
      ASSERT_OK(docs->Delete("d2"));
      ASSERT_OK_AND_ASSIGN(const StoredDocument d0, docs->Get("d0"));
      ASSERT_TRUE(d0.embedding.has_value());
      EXPECT_EQ(*d0.embedding, vectors[1]);
      // The live index follows at once.
      EXPECT_EQ(docs->semantic_index()->size(), 39u);
      ASSERT_OK_AND_ASSIGN(auto found,
                           docs->QuerySemantic(vectors[1], 0.999, 10));
      EXPECT_THAT(found, SizeIs(2));
      ASSERT_OK_AND_ASSIGN(found, docs->QuerySemantic(vectors[0], 0.999, 10));
      EXPECT_THAT(found, SizeIs(0));
      const uint32_t gone[] = {2};
      ASSERT_OK_AND_ASSIGN(auto cosines, docs->CosineTo(vectors[2], gone));
      EXPECT_FALSE(cosines[0].has_value());
    }
  }
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  for (const char* name : kNames) {
    SCOPED_TRACE(name);
    ASSERT_OK_AND_ASSIGN(auto docs, db->GetCollection(name));
    EXPECT_EQ(docs->record().config.embedding.hnsw,
              std::string_view(name) == "graph");
    EXPECT_EQ(docs->semantic_index()->size(), 39u);
    ASSERT_OK_AND_ASSIGN(auto found,
                         docs->QuerySemantic(vectors[1], 0.999, 10));
    ASSERT_THAT(found, SizeIs(2));  // d0 and d1
    EXPECT_NEAR(found[0].cosine, 1.0f, 1e-5);
    ASSERT_OK_AND_ASSIGN(found, docs->QuerySemantic(vectors[2], 0.999, 10));
    EXPECT_THAT(found, SizeIs(0));  // deleted
    ASSERT_OK_AND_ASSIGN(found, docs->QuerySemantic(vectors[0], 0.999, 10));
    EXPECT_THAT(found, SizeIs(0));  // replaced
    ASSERT_OK_AND_ASSIGN(found, docs->QuerySemantic(vectors[7], -0.99, 5));
    ASSERT_THAT(found, SizeIs(5));
    const uint32_t ids[] = {found[0].id, 2};
    ASSERT_OK_AND_ASSIGN(auto cosines, docs->CosineTo(vectors[7], ids));
    EXPECT_NEAR(*cosines[0], 1.0f, 1e-5);
    EXPECT_FALSE(cosines[1].has_value());
    EXPECT_GT(docs->index_bytes(), docs->semantic_index()->memory_bytes());
  }
}

TEST_F(CollectionEmbeddingTest, ForeignOrMissingVectorsAreRefused) {
  std::mt19937 rng(5);
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("e", SpaceConfig()));
  ASSERT_OK_AND_ASSIGN(DocumentWrite doc, Write(*docs, "a", RandomUnit(rng)));
  DocumentWrite other_model = doc;
  other_model.embedding_model_id = "other-model";
  EXPECT_EQ(docs->Apply(other_model).status().code(),
            absl::StatusCode::kFailedPrecondition);
  DocumentWrite missing = doc;
  missing.embedding.reset();
  EXPECT_THAT(docs->Apply(missing).status().message(),
              HasSubstr("requires an embedding"));
  DocumentWrite short_vector = doc;
  short_vector.embedding->pop_back();
  EXPECT_EQ(docs->Apply(short_vector).status().code(),
            absl::StatusCode::kInvalidArgument);
  DocumentWrite not_unit = doc;
  (*not_unit.embedding)[0] += 1;
  EXPECT_THAT(docs->Apply(not_unit).status().message(),
              HasSubstr("not a unit vector"));
  EXPECT_EQ(docs->semantic_index()->size(), 0u);
  // A collection without a space takes no vectors and answers no semantic
  // query.
  ASSERT_OK_AND_ASSIGN(auto plain, db->CreateCollection("plain", {}));
  ASSERT_OK_AND_ASSIGN(DocumentWrite plain_doc,
                       plain->PrepareText("a", "x y z", {}));
  plain_doc.embedding = doc.embedding;
  EXPECT_EQ(plain->Apply(plain_doc).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(plain->QuerySemantic(*doc.embedding, 0.5, 3).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(CollectionEmbeddingTest, SpacesAreChecked) {
  CollectionConfig config = SpaceConfig();
  config.embedding.model_id = "has space";
  EXPECT_FALSE(NormalizeCollectionConfig(config).ok());
  config = SpaceConfig();
  config.embedding.dim = 5000;
  EXPECT_FALSE(NormalizeCollectionConfig(config).ok());
  config = SpaceConfig();
  config.embedding.hnsw = true;
  config.embedding.ef_search = 8;
  EXPECT_FALSE(NormalizeCollectionConfig(config).ok());
  config.embedding.hnsw = false;
  config.embedding.ef_search = 100;  // graphs' only
  EXPECT_FALSE(NormalizeCollectionConfig(config).ok());
  config = SpaceConfig();
  config.embedding.chunking.max_tokens = 64;  // local embeddings' only
  EXPECT_FALSE(NormalizeCollectionConfig(config).ok());
  config = SpaceConfig();
  config.embedding.fasttext_model = "../m.bin";
  EXPECT_FALSE(NormalizeCollectionConfig(config).ok());
  config.embedding.fasttext_model = "/abs/m.bin";
  EXPECT_FALSE(NormalizeCollectionConfig(config).ok());
  config.embedding.fasttext_model = "models/m.bin";
  config.embedding.chunking = {ChunkMode::kRecursive, 100, 25};
  EXPECT_OK(NormalizeCollectionConfig(config).status());
  config.embedding.hnsw = true;
  config.embedding.hnsw_m = 24;
  config.embedding.min_cosine = 0.75;
  EXPECT_OK(NormalizeCollectionConfig(config).status());
}

}  // namespace
}  // namespace neardup::engine
