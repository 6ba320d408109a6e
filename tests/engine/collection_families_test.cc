// Collections of the other fingerprint families: perceptual MinHash,
// newsbot SimHash and kept TLSH, written, queried, replaced, deleted and
// reopened through a real store.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/engine_test_util.h"
#include "neardup/core/newsbot_simhash.h"
#include "neardup/core/perceptual.h"
#include "neardup/core/shingle_set.h"
#include "neardup/core/tlsh.h"
#include "neardup/engine/database.h"

namespace neardup::engine {
namespace {

using storage::DocumentWrite;

using ::neardup::testing::StatusIs;
using ::testing::ElementsAre;
using testing::EngineTest;
using ::testing::HasSubstr;
using ::testing::Optional;
using ::testing::SizeIs;

std::string Text(int seed, int words) {
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  for (int i = 0; i < words; ++i) out.push_back(absl::StrCat("w", rng() % 900));
  return absl::StrJoin(out, " ");
}

class CollectionFamiliesTest : public EngineTest {
 protected:
  static std::optional<std::string> StoredTlsh(const Collection& c,
                                               uint32_t internal_id) {
    const uint32_t ids[] = {internal_id};
    auto values = c.KeptOf("tlsh", ids);
    EXPECT_TRUE(values.ok()) << values.status();
    return values.ok() ? (*values)[0] : std::nullopt;
  }
};

TEST_F(CollectionFamiliesTest, PerceptualCollectionsSignAndVerifyPerceptually) {
  CollectionConfig config;
  config.minhash_algorithm = MinHashAlgorithm::kPerceptual;
  config.minhash_tokenizer = "shingle-k=9/word-uax29";
  const std::string text = Text(1, 200);
  {
    ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
    ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("p", config));
    const PerceptualHasher reference = *PerceptualHasher::Create();
    EXPECT_EQ(docs->record().minhash_config_hash, reference.config_hash());
    ASSERT_OK_AND_ASSIGN(DocumentWrite write, docs->PrepareText("a", text, {}));
    ASSERT_OK_AND_ASSIGN(const PerceptualFingerprint expected,
                         reference.Fingerprint(text, true));
    EXPECT_EQ(write.minhash, expected.minhash);
    std::vector<uint64_t> winnowed = WinnowedSet(expected);
    NarrowEvidence(32, &winnowed);  // the default width
    EXPECT_EQ(write.shingles, winnowed);
    ASSERT_OK(docs->Apply(write).status());
    // Too few words for a 9-word shingle: a clear refusal.
    EXPECT_EQ(
        docs->PrepareText("b", "four words only here", {}).status().code(),
        absl::StatusCode::kInvalidArgument);
  }
  // Reopened: the record validates against the perceptual config hash and
  // the index is rebuilt from the perceptual signatures.
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto docs, db->GetCollection("p"));
  EXPECT_EQ(docs->record().config.winnow_window, 4);
  std::vector<uint64_t> evidence;
  ASSERT_OK_AND_ASSIGN(const MinHashSignature sig,
                       docs->fingerprinter().MinHash(text, &evidence));
  ASSERT_OK_AND_ASSIGN(auto found, docs->QueryMinHash(sig, &evidence, 0.9));
  ASSERT_THAT(found, SizeIs(1));
  EXPECT_THAT(found[0].exact, Optional(1.0));
  // A shingled collection's signature is another config: refused.
  ASSERT_OK_AND_ASSIGN(auto shingled, db->CreateCollection("s", {}));
  ASSERT_OK_AND_ASSIGN(DocumentWrite foreign,
                       shingled->PrepareText("x", text, {}));
  EXPECT_EQ(docs->Apply(foreign).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(CollectionFamiliesTest, NewsbotSimHashCollectionsFindNearTexts) {
  CollectionConfig config;
  config.simhash_enabled = true;
  config.simhash_variant = SimHashVariant::kNewsbot;
  config.simhash_max_distance = 6;
  const std::string text = Text(2, 120);
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("n", config));
  EXPECT_EQ(docs->record().simhash_config_hash, NewsbotConfigHash(64));
  ASSERT_OK_AND_ASSIGN(DocumentWrite write, docs->PrepareText("a", text, {}));
  ASSERT_OK_AND_ASSIGN(const NewsbotFingerprint expected,
                       NewsbotSimHash(text, 64));
  EXPECT_THAT(write.simhash, Optional(expected.low));
  ASSERT_OK(docs->Apply(write).status());
  ASSERT_OK_AND_ASSIGN(const uint64_t probe,
                       docs->fingerprinter().SimHash(text + " w1"));
  ASSERT_OK_AND_ASSIGN(auto found, docs->QuerySimHash(probe));
  ASSERT_THAT(found, SizeIs(1));
  EXPECT_LE(found[0].distance, 6);
}

TEST_F(CollectionFamiliesTest, TlshIsWrittenReplacedAndDeletedWithTheDoc) {
  CollectionConfig config;
  config.kept_families = {"tlsh"};
  const std::string text = Text(3, 80);
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("t", config));
  const TlshFingerprinter reference = *TlshFingerprinter::Create();
  EXPECT_THAT(docs->record().kept_config_hashes,
              ElementsAre(KeptConfigHash{"tlsh", reference.config_hash()}));
  ASSERT_OK_AND_ASSIGN(DocumentWrite write, docs->PrepareText("a", text, {}));
  ASSERT_OK_AND_ASSIGN(const TlshDigest digest, reference.Fingerprint(text));
  const std::string expected = FormatTlsh(digest);
  EXPECT_THAT(write.kept, ElementsAre(KeptValue{"tlsh", expected,
                                                reference.config_hash()}));
  ASSERT_OK(docs->Apply(write).status());
  const uint32_t id = docs->Get("a")->internal_id;
  EXPECT_THAT(StoredTlsh(*docs, id), Optional(expected));
  EXPECT_EQ(docs->Get("a")->kept, write.kept);

  // Replaced by a text too short for TLSH: the old TLSH goes with it.
  ASSERT_OK_AND_ASSIGN(DocumentWrite short_text,
                       docs->PrepareText("a", "a short text", {}));
  EXPECT_TRUE(short_text.kept.empty());
  ASSERT_OK(docs->Apply(short_text).status());
  EXPECT_EQ(StoredTlsh(*docs, id), std::nullopt);

  ASSERT_OK(docs->Apply(write).status());
  EXPECT_THAT(StoredTlsh(*docs, id), Optional(expected));
  ASSERT_OK(docs->Delete("a"));
  EXPECT_EQ(StoredTlsh(*docs, id), std::nullopt);
}

TEST_F(CollectionFamiliesTest, TlshOfAnotherConfigOrCollectionIsRefused) {
  CollectionConfig config;
  config.kept_families = {"tlsh"};
  ASSERT_OK_AND_ASSIGN(auto db, OpenDatabase());
  ASSERT_OK_AND_ASSIGN(auto docs, db->CreateCollection("t", config));
  ASSERT_OK_AND_ASSIGN(auto plain, db->CreateCollection("plain", {}));
  ASSERT_OK_AND_ASSIGN(DocumentWrite write,
                       docs->PrepareText("a", Text(4, 80), {}));
  DocumentWrite raw = write;
  raw.kept[0].config_hash = TlshFingerprinter::RawConfigHash();
  EXPECT_EQ(docs->Apply(raw).status().code(),
            absl::StatusCode::kFailedPrecondition);
  DocumentWrite elsewhere = write;
  elsewhere.minhash_config_hash = plain->record().minhash_config_hash;
  EXPECT_EQ(plain->Apply(elsewhere).status().code(),
            absl::StatusCode::kInvalidArgument);  // keeps no TLSH
  const uint32_t none[] = {0};
  ASSERT_OK_AND_ASSIGN(auto values, plain->KeptOf("tlsh", none));
  EXPECT_THAT(values, ElementsAre(std::nullopt));
  // Two values of one family, or one not in its normalized form.
  DocumentWrite twice = write;
  twice.kept.push_back(write.kept[0]);
  EXPECT_THAT(docs->Apply(twice).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("two")));
  DocumentWrite lower = write;
  lower.kept[0].value = absl::AsciiStrToLower(lower.kept[0].value);
  EXPECT_THAT(
      docs->Apply(lower).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("normalized")));
}

}  // namespace
}  // namespace neardup::engine
