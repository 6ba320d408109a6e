// The RPC logic in-process, over a real Database in a temp dir; also the
// concurrency test run under ThreadSanitizer.

#include "neardup/server/internal/handlers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/newsbot_simhash.h"
#include "neardup/core/perceptual.h"
#include "neardup/core/tlsh.h"
#include "neardup/server/internal/proto_convert.h"
#include "support/corpus.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

// Checks the deprecated TLSH spellings on purpose.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace neardup::server {
namespace {

using neardup::testing::GeneratedText;
using neardup::testing::NearCopy;
using neardup::testing::StatusIs;
using ::testing::HasSubstr;

class HandlersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine::DatabaseOptions options;
    options.store.block_cache_bytes = size_t{8} << 20;
    options.store.write_buffer_bytes = size_t{4} << 20;
    auto db = engine::Database::Open(temp_.path() + "/db", options);
    ASSERT_OK(db);
    db_ = *std::move(db);
    handlers_ = std::make_unique<Handlers>(db_.get(), HandlerSettings{});
    v1::CreateCollectionRequest create;
    create.set_name("c");
    create.mutable_config()->set_threshold(0.5);
    v1::Collection created;
    ASSERT_OK(handlers_->CreateCollection(create, &created));
  }

  absl::Status Upsert(const std::string& id, const std::string& text) {
    v1::UpsertRequest request;
    request.set_collection("c");
    request.set_id(id);
    request.set_text(text);
    v1::UpsertResponse response;
    return handlers_->Upsert(request, &response);
  }

  absl::StatusOr<v1::QueryResponse> Query(const std::string& text,
                                          uint32_t top_k = 0,
                                          std::string exclude = "") {
    v1::QueryRequest request;
    request.set_collection("c");
    request.set_text(text);
    request.set_top_k(top_k);
    request.set_exclude_id(std::move(exclude));
    v1::QueryResponse response;
    IndexQueryStats stats;
    RETURN_IF_ERROR(handlers_->Query(request, &response, &stats));
    return response;
  }

  neardup::testing::TempDir temp_;
  std::unique_ptr<engine::Database> db_;
  std::unique_ptr<Handlers> handlers_;
};

// Text probes of a text collection are decided on the shingle sets; a
// document upserted as signatures only by its estimate, and the match says
// which.
TEST_F(HandlersTest, MatchesSayWhatDecidedThem) {
  const std::string text = GeneratedText(3);
  ASSERT_OK(Upsert("text", text));
  v1::FingerprintRequest fingerprint;
  fingerprint.set_text(text);
  fingerprint.mutable_config()->set_threshold(0.5);
  v1::FingerprintResponse signatures;
  ASSERT_OK(
      handlers_->Fingerprint(fingerprint, &signatures, HandlerSettings{}));
  v1::UpsertRequest by_signature;
  by_signature.set_collection("c");
  by_signature.set_id("sig");
  by_signature.mutable_signatures()->set_minhash(signatures.minhash());
  by_signature.mutable_signatures()->set_minhash_config_hash(
      signatures.minhash_config_hash());
  v1::UpsertResponse upserted;
  ASSERT_OK(handlers_->Upsert(by_signature, &upserted));

  ASSERT_OK_AND_ASSIGN(const v1::QueryResponse found, Query(text));
  ASSERT_EQ(found.matches_size(), 2);
  for (const v1::Match& match : found.matches()) {
    EXPECT_EQ(match.similarity(), 1.0);
    EXPECT_EQ(match.estimated_jaccard(), 1.0);
    if (match.id() == "text") {
      EXPECT_EQ(match.verified_by(), v1::VERIFICATION_EXACT);
      EXPECT_EQ(match.exact_jaccard(), 1.0);
    } else {
      EXPECT_EQ(match.verified_by(), v1::VERIFICATION_ESTIMATE);
      EXPECT_FALSE(match.has_exact_jaccard());
    }
  }
}

// An export with signatures carries each document's shingle set; upserted
// back by signatures, the copy is verified exactly like the original.
TEST_F(HandlersTest, ExportedShingleSetsKeepExactVerification) {
  const std::string text = GeneratedText(5);
  ASSERT_OK(Upsert("original", text));
  v1::ExportRequest request;
  request.set_collection("c");
  request.set_with_signatures(true);
  ASSERT_OK_AND_ASSIGN(Handlers::ExportStart start,
                       handlers_->StartExport(request));
  ASSERT_OK_AND_ASSIGN(std::vector<storage::StoredDocument> docs,
                       start.cursor->Next(10, 1 << 20));
  ASSERT_EQ(docs.size(), 1u);
  ASSERT_TRUE(docs[0].shingles.has_value());
  const v1::Document exported = DocumentToProto(docs[0], start.record);
  ASSERT_FALSE(exported.signatures().shingle_set().empty());

  v1::UpsertRequest copy;
  copy.set_collection("c");
  copy.set_id("copy");
  *copy.mutable_signatures() = exported.signatures();
  v1::UpsertResponse upserted;
  ASSERT_OK(handlers_->Upsert(copy, &upserted));
  ASSERT_OK_AND_ASSIGN(const v1::QueryResponse found, Query(text));
  ASSERT_EQ(found.matches_size(), 2);
  for (const v1::Match& match : found.matches()) {
    EXPECT_EQ(match.verified_by(), v1::VERIFICATION_EXACT) << match.id();
    EXPECT_EQ(match.exact_jaccard(), 1.0) << match.id();
  }

  // The set travels in the collection's width, 32 bits by default.
  EXPECT_EQ(exported.signatures().evidence_bits(), 32u);
  v1::UpsertRequest other_width = copy;
  other_width.mutable_signatures()->clear_evidence_bits();  // reads as 64
  absl::Status refused = handlers_->Upsert(other_width, &upserted);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(), HasSubstr("64-bit hashes"));
  // A collection of 64-bit evidence refuses the 32-bit set, and takes it
  // with its MinHash alone once the set is left out.
  v1::CreateCollectionRequest create;
  create.set_name("wide");
  create.mutable_config()->set_evidence_bits(64);
  v1::Collection created;
  ASSERT_OK(handlers_->CreateCollection(create, &created));
  EXPECT_EQ(created.config().evidence_bits(), 64u);
  other_width = copy;
  other_width.set_collection("wide");
  refused = handlers_->Upsert(other_width, &upserted);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(), HasSubstr("keeps 64-bit evidence"));
  other_width.mutable_signatures()->clear_shingle_set();
  EXPECT_OK(handlers_->Upsert(other_width, &upserted));

  // A width no collection has is a bad request.
  other_width = copy;
  other_width.mutable_signatures()->set_evidence_bits(33);
  refused = handlers_->Upsert(other_width, &upserted);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr("signatures.evidence_bits"));

  copy.mutable_signatures()->set_shingle_set("\x05\x01");  // truncated
  const absl::Status bad = handlers_->Upsert(copy, &upserted);
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.message(), HasSubstr("signatures.shingle_set"));
}

// Kept families over the wire: named in the config (or by the deprecated
// tlsh), stamped per collection, taken from signatures (the deprecated
// field too) and reported per match under both spellings.
TEST_F(HandlersTest, KeptFamiliesTravelByName) {
  v1::CreateCollectionRequest create;
  create.set_name("k");
  create.mutable_config()->add_kept_families("tlsh");
  v1::Collection created;
  ASSERT_OK(handlers_->CreateCollection(create, &created));
  const uint64_t tlsh_hash = TlshFingerprinter::Create()->config_hash();
  ASSERT_EQ(created.kept_config_hashes_size(), 1);
  EXPECT_EQ(created.kept_config_hashes(0).family(), "tlsh");
  EXPECT_EQ(created.kept_config_hashes(0).config_hash(), tlsh_hash);
  EXPECT_EQ(created.tlsh_config_hash(), tlsh_hash);
  EXPECT_TRUE(created.config().tlsh());
  create.set_name("unknown");
  create.mutable_config()->add_kept_families("md5");
  EXPECT_THAT(handlers_->CreateCollection(create, &created),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unknown kept family \"md5\"")));

  const std::string text = GeneratedText(7);
  const std::string expected =
      FormatTlsh(*TlshFingerprinter::Create()->Fingerprint(text));
  v1::FingerprintRequest fingerprint;
  fingerprint.set_text(text);
  fingerprint.mutable_config()->add_kept_families("tlsh");
  v1::FingerprintResponse signatures;
  ASSERT_OK(handlers_->Fingerprint(fingerprint, &signatures, {}));
  ASSERT_EQ(signatures.kept_size(), 1);
  EXPECT_EQ(signatures.kept(0).value(), expected);
  EXPECT_EQ(signatures.kept(0).config_hash(), tlsh_hash);

  auto upsert = [&](const std::string& id, auto edit) {
    v1::UpsertRequest request;
    request.set_collection("k");
    request.set_id(id);
    v1::Signatures* sigs = request.mutable_signatures();
    sigs->set_minhash(signatures.minhash());
    sigs->set_minhash_config_hash(signatures.minhash_config_hash());
    edit(sigs);
    v1::UpsertResponse response;
    return handlers_->Upsert(request, &response);
  };
  // Lowercase is normalized; the deprecated field works alone.
  ASSERT_OK(upsert("new", [&](v1::Signatures* s) {
    *s->add_kept() = signatures.kept(0);
    s->mutable_kept(0)->set_value(absl::AsciiStrToLower(expected));
  }));
  ASSERT_OK(upsert("old", [&](v1::Signatures* s) {
    s->set_tlsh(expected);
    s->set_tlsh_config_hash(tlsh_hash);
  }));
  EXPECT_THAT(upsert("bad-hash",
                     [&](v1::Signatures* s) {
                       *s->add_kept() = signatures.kept(0);
                       s->mutable_kept(0)->set_config_hash(1);
                     }),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("signatures.kept[\"tlsh\"].config_hash")));
  EXPECT_THAT(
      upsert("bad-name",
             [&](v1::Signatures* s) { s->add_kept()->set_family("md5"); }),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("unknown kept family")));
  EXPECT_THAT(upsert("bad-value",
                     [&](v1::Signatures* s) {
                       *s->add_kept() = signatures.kept(0);
                       s->mutable_kept(0)->set_value("T1XYZ");
                     }),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("signatures.kept[\"tlsh\"].value")));

  v1::QueryRequest query;
  query.set_collection("k");
  query.set_text(text);
  v1::QueryResponse found;
  IndexQueryStats stats;
  ASSERT_OK(handlers_->Query(query, &found, &stats));
  ASSERT_EQ(found.matches_size(), 2);
  for (const v1::Match& match : found.matches()) {
    ASSERT_EQ(match.kept_distances_size(), 1) << match.id();
    EXPECT_EQ(match.kept_distances(0).family(), "tlsh");
    EXPECT_EQ(match.kept_distances(0).distance(), 0);
    EXPECT_EQ(match.tlsh_distance(), 0);
  }
  v1::GetRequest get;
  get.set_collection("k");
  get.set_id("old");
  v1::Document stored;
  ASSERT_OK(handlers_->Get(get, &stored));
  ASSERT_EQ(stored.signatures().kept_size(), 1);
  EXPECT_EQ(stored.signatures().kept(0).value(), expected);
  EXPECT_EQ(stored.signatures().tlsh(), expected);
}

TEST_F(HandlersTest, ThresholdBelowTheFloorIsInvalidArgument) {
  // threshold 0.5 -> floor 0.4.
  v1::QueryRequest request;
  request.set_collection("c");
  request.set_text(GeneratedText(1));
  request.set_threshold(0.3);
  v1::QueryResponse response;
  IndexQueryStats stats;
  const absl::Status status = handlers_->Query(request, &response, &stats);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("min_threshold 0.4"));
  request.set_threshold(0.4);
  EXPECT_OK(handlers_->Query(request, &response, &stats));
  v1::UpsertRequest upsert;
  upsert.set_collection("c");
  upsert.set_id("x");
  upsert.set_text(GeneratedText(1));
  upsert.set_insert_only_below(0.2);
  v1::UpsertResponse upserted;
  EXPECT_EQ(handlers_->Upsert(upsert, &upserted).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(HandlersTest, TopKAndExclude) {
  const std::string base = GeneratedText(1);
  ASSERT_OK(Upsert("orig", base));
  for (int i = 0; i < 5; ++i) {
    ASSERT_OK(Upsert(absl::StrCat("copy", i), base));
  }
  auto all = Query(base);
  ASSERT_OK(all);
  EXPECT_EQ(all->matches_size(), 6);
  auto two = Query(base, 2);
  ASSERT_OK(two);
  ASSERT_EQ(two->matches_size(), 2);
  EXPECT_EQ(two->matches(0).id(), "orig");  // ties broken by insertion
  auto without = Query(base, 6, "orig");
  ASSERT_OK(without);
  EXPECT_EQ(without->matches_size(), 5);
  for (const auto& m : without->matches()) EXPECT_NE(m.id(), "orig");
}

// One batch mixing every kind of item: results line up with the items and
// the effects happen in item order.
TEST_F(HandlersTest, UpsertBatchKeepsOrderAndPerItemResults) {
  v1::CreateCollectionRequest create;
  create.set_name("other");
  v1::Collection created;
  ASSERT_OK(handlers_->CreateCollection(create, &created));
  const std::string a = GeneratedText(11), b = GeneratedText(12);
  auto item = [](const std::string& collection, const std::string& id,
                 const std::string& text) {
    v1::UpsertRequest r;
    r.set_collection(collection);
    r.set_id(id);
    r.set_text(text);
    return r;
  };
  std::vector<v1::UpsertRequest> items = {
      item("c", "a", a),      // 0: new
      item("c", "a", b),      // 1: same id again: replaces item 0
      item("c", "", a),       // 2: invalid id
      item("nope", "x", a),   // 3: unknown collection
      item("other", "a", a),  // 4: another collection
      item("c", "dup", b),    // 5: dedup-on-write against item 1
      item("c", "", b),       // 6: invalid, between plain items
      item("c", "fresh", GeneratedText(13)),  // 7: new
  };
  items[5].set_insert_only_below(0.9);
  std::vector<const v1::UpsertRequest*> requests;
  for (const auto& r : items) requests.push_back(&r);
  std::vector<v1::UpsertResponse> responses(items.size());
  std::vector<v1::UpsertResponse*> outputs;
  for (auto& r : responses) outputs.push_back(&r);
  std::vector<absl::Status> statuses(items.size());
  handlers_->UpsertBatch(requests, std::span<absl::Status>(statuses), outputs);

  const absl::StatusCode ok = absl::StatusCode::kOk;
  const absl::StatusCode invalid = absl::StatusCode::kInvalidArgument;
  EXPECT_EQ(statuses[0].code(), ok);
  EXPECT_EQ(statuses[1].code(), ok);
  EXPECT_EQ(statuses[2].code(), invalid);
  EXPECT_EQ(statuses[3].code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(statuses[4].code(), ok);
  EXPECT_EQ(statuses[5].code(), ok);
  EXPECT_EQ(statuses[6].code(), invalid);
  EXPECT_EQ(statuses[7].code(), ok);
  EXPECT_TRUE(responses[0].written());
  EXPECT_FALSE(responses[0].replaced());
  EXPECT_TRUE(responses[1].replaced());
  EXPECT_EQ(responses[1].id(), "a");
  EXPECT_FALSE(responses[4].replaced());  // "a" in "other" is a new id
  // The dedup-on-write item saw item 1's text under id "a".
  EXPECT_FALSE(responses[5].written());
  ASSERT_EQ(responses[5].blocking_size(), 1);
  EXPECT_EQ(responses[5].blocking(0).id(), "a");
  EXPECT_TRUE(responses[7].written());

  // "a" holds item 1's text: a query for b finds it at similarity 1.
  auto by_b = Query(b);
  ASSERT_OK(by_b);
  ASSERT_GE(by_b->matches_size(), 1);
  EXPECT_EQ(by_b->matches(0).id(), "a");
  EXPECT_EQ(by_b->matches(0).similarity(), 1.0);
  v1::StatsRequest stats_request;
  stats_request.set_collection("c");
  v1::StatsResponse stats;
  ASSERT_OK(handlers_->Stats(stats_request, &stats));
  ASSERT_EQ(stats.collections_size(), 1);
  EXPECT_EQ(stats.collections(0).document_count(), 2u);  // a, fresh
}

TEST_F(HandlersTest, IdsAndMetadataHaveLimits) {
  v1::UpsertRequest request;
  request.set_collection("c");
  request.set_text(GeneratedText(1, 40));
  request.set_id(std::string(kMaxIdBytes + 1, 'i'));
  v1::UpsertResponse response;
  absl::Status status = handlers_->Upsert(request, &response);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("over the limit of 1024"));
  request.set_id("ok");
  for (int i = 0; i < HandlerSettings{}.max_metadata_keys + 1; ++i) {
    // (A std::string, not a literal: GCC 12 warns falsely on the latter.)
    (*request.mutable_metadata())[absl::StrCat("k", i)] = std::string("v");
  }
  status = handlers_->Upsert(request, &response);
  EXPECT_THAT(status.message(), HasSubstr("--max-metadata-keys"));
  request.clear_metadata();
  (*request.mutable_metadata())["big"] =
      std::string(HandlerSettings{}.max_metadata_bytes, 'x');
  status = handlers_->Upsert(request, &response);
  EXPECT_THAT(status.message(), HasSubstr("--max-metadata-bytes"));
  EXPECT_EQ(
      Query(GeneratedText(1, 40), 0, std::string(2000, 'e')).status().code(),
      absl::StatusCode::kInvalidArgument);
}

// The answer stops before the message limit and says so.
TEST_F(HandlersTest, QueryAnswerStaysUnderTheMessageLimit) {
  HandlerSettings small;
  small.max_response_bytes = 4096 + 300;  // the slack plus a few matches
  Handlers handlers(db_.get(), small);
  const std::string text = GeneratedText(5, 60);
  for (int i = 0; i < 40; ++i) {
    ASSERT_OK(Upsert(
        absl::StrCat("copy-with-a-long-id-", i, std::string(40, 'p')), text));
  }
  v1::QueryRequest request;
  request.set_collection("c");
  request.set_text(text);
  request.set_top_k(40);
  v1::QueryResponse response;
  IndexQueryStats stats;
  ASSERT_OK(handlers.Query(request, &response, &stats));
  EXPECT_TRUE(response.truncated());
  EXPECT_GT(response.matches_size(), 0);
  EXPECT_LT(response.matches_size(), 40);
  EXPECT_LE(response.ByteSizeLong(), small.max_response_bytes);
  v1::QueryResponse full;
  ASSERT_OK(handlers_->Query(request, &full, &stats));
  EXPECT_FALSE(full.truncated());
  EXPECT_EQ(full.matches_size(), 40);
}

TEST_F(HandlersTest, QueryRequiresAProbe) {
  v1::QueryRequest request;
  request.set_collection("c");
  v1::QueryResponse response;
  IndexQueryStats stats;
  const absl::Status status = handlers_->Query(request, &response, &stats);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("text or signatures"));
}

// A log sequence is of clusters: a single node says so rather than answer
// a read it cannot order; writes say 0.
TEST_F(HandlersTest, ASingleNodeRefusesALogSequence) {
  v1::UpsertRequest upsert;
  upsert.set_collection("c");
  upsert.set_id("d");
  upsert.set_text("some words to store");
  v1::UpsertResponse written;
  ASSERT_OK(handlers_->Upsert(upsert, &written));
  EXPECT_EQ(written.log_sequence(), 0u);
  v1::GetRequest get;
  get.set_collection("c");
  get.set_id("d");
  get.set_log_sequence(1);
  v1::Document doc;
  EXPECT_THAT(handlers_->Get(get, &doc),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("single node")));
  v1::QueryRequest query;
  query.set_collection("c");
  query.set_text("some words to store");
  query.set_log_sequence(3);
  v1::QueryResponse response;
  IndexQueryStats stats;
  EXPECT_THAT(handlers_->Query(query, &response, &stats),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("single node")));
  get.set_log_sequence(0);
  EXPECT_OK(handlers_->Get(get, &doc));
}

TEST_F(HandlersTest, SimHashQueryOnMinHashOnlyCollection) {
  ASSERT_OK(Upsert("a", GeneratedText(2)));
  v1::QueryRequest request;
  request.set_collection("c");
  request.set_text(GeneratedText(2));
  request.set_algorithm(v1::ALGORITHM_SIMHASH);
  v1::QueryResponse response;
  IndexQueryStats stats;
  EXPECT_EQ(handlers_->Query(request, &response, &stats).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(HandlersTest, CompareAndFingerprintAreStateless) {
  v1::CompareRequest compare;
  compare.set_a(GeneratedText(3));
  compare.set_b(NearCopy(GeneratedText(3)));
  v1::CompareResponse compared;
  ASSERT_OK(Handlers::Compare(compare, &compared, {}));
  EXPECT_GT(compared.exact_jaccard(), 0.5);
  EXPECT_LT(compared.exact_jaccard(), 1.0);
  EXPECT_NEAR(compared.estimated_jaccard(), compared.exact_jaccard(), 0.2);
  compare.set_b("");
  EXPECT_THAT(Handlers::Compare(compare, &compared, {}).message(),
              HasSubstr("b: "));
}

TEST_F(HandlersTest, FingerprintAndCompareOtherKinds) {
  const std::string text = GeneratedText(4);
  v1::FingerprintRequest request;
  request.set_text(text);
  request.set_kind(v1::FINGERPRINT_KIND_TLSH);
  v1::FingerprintResponse tlsh;
  ASSERT_OK(Handlers::Fingerprint(request, &tlsh, {}));
  ASSERT_OK_AND_ASSIGN(const TlshFingerprinter fp, TlshFingerprinter::Create());
  EXPECT_EQ(tlsh.tlsh(), FormatTlsh(*fp.Fingerprint(text)));
  EXPECT_EQ(tlsh.tlsh_config_hash(), fp.config_hash());
  EXPECT_TRUE(tlsh.minhash().empty());

  request.set_text(std::string("\xff\xfe") + text);  // not UTF-8
  request.set_kind(v1::FINGERPRINT_KIND_TLSH_RAW);
  v1::FingerprintResponse raw;
  ASSERT_OK(Handlers::Fingerprint(request, &raw, {}));
  EXPECT_EQ(raw.tlsh(), FormatTlsh(*TlshOfBytes(request.text())));
  EXPECT_EQ(raw.tlsh_config_hash(), TlshFingerprinter::RawConfigHash());
  request.set_kind(v1::FINGERPRINT_KIND_TLSH);
  EXPECT_EQ(Handlers::Fingerprint(request, &raw, {}).code(),
            absl::StatusCode::kInvalidArgument);
  request.set_text("short");
  EXPECT_THAT(Handlers::Fingerprint(request, &raw, {}).message(),
              HasSubstr("text: TLSH needs at least 50 bytes"));

  request.set_text("The quick brown fox");
  request.set_kind(v1::FINGERPRINT_KIND_NEWSBOT);
  v1::FingerprintResponse newsbot;
  ASSERT_OK(Handlers::Fingerprint(request, &newsbot, {}));
  EXPECT_EQ(newsbot.newsbot_simhash(), "2c02008001828212");
  EXPECT_EQ(newsbot.newsbot_config_hash(), NewsbotConfigHash(64));
  request.set_newsbot_bits(48);
  EXPECT_THAT(Handlers::Fingerprint(request, &newsbot, {}).message(),
              HasSubstr("newsbot_bits must be 16, 32, 64 or 128"));

  v1::CompareRequest compare;
  compare.set_a(text);
  compare.set_b(NearCopy(text));
  v1::CompareResponse all;
  ASSERT_OK(Handlers::Compare(compare, &all, {}));
  ASSERT_TRUE(all.has_tlsh_distance());
  EXPECT_EQ(all.tlsh_distance(), TlshDistance(*fp.Fingerprint(text),
                                              *fp.Fingerprint(NearCopy(text))));
  compare.set_b("a short one");
  v1::CompareResponse short_b;
  ASSERT_OK(Handlers::Compare(compare, &short_b, {}));
  EXPECT_FALSE(short_b.has_tlsh_distance());
  EXPECT_THAT(short_b.tlsh_unavailable(), HasSubstr("b: TLSH needs"));
  compare.set_kind(v1::FINGERPRINT_KIND_TLSH);
  EXPECT_EQ(Handlers::Compare(compare, &short_b, {}).code(),
            absl::StatusCode::kInvalidArgument);

  compare.set_kind(v1::FINGERPRINT_KIND_NEWSBOT);
  compare.set_a("Breaking news about technology");
  compare.set_b("Breaking news about technology");
  v1::CompareResponse newsbot_same;
  ASSERT_OK(Handlers::Compare(compare, &newsbot_same, {}));
  EXPECT_EQ(newsbot_same.hamming_distance(), 0u);
  compare.set_b("Sports update today");
  v1::CompareResponse newsbot_differ;
  ASSERT_OK(Handlers::Compare(compare, &newsbot_differ, {}));
  EXPECT_EQ(newsbot_differ.hamming_distance(),
            static_cast<uint32_t>(*NewsbotHamming(
                *NewsbotSimHash("Breaking news about technology"),
                *NewsbotSimHash("Sports update today"))));
}

TEST_F(HandlersTest, PerceptualKind) {
  const std::string text = GeneratedText(5);
  v1::FingerprintRequest request;
  request.set_text(text);
  request.set_kind(v1::FINGERPRINT_KIND_PERCEPTUAL);
  request.set_winnow_window(2);
  request.mutable_config()->set_shingle_k(4);
  v1::FingerprintResponse response;
  ASSERT_OK(Handlers::Fingerprint(request, &response, {}));
  PerceptualConfig config;
  config.k = 4;
  config.w = 2;
  ASSERT_OK_AND_ASSIGN(const PerceptualHasher hasher,
                       PerceptualHasher::Create(config));
  EXPECT_EQ(response.minhash(), hasher.Fingerprint(text)->minhash.Serialize());
  EXPECT_EQ(response.minhash_config_hash(), hasher.config_hash());
  EXPECT_GT(response.token_count(), 0u);
  request.set_winnow_window(5000);
  EXPECT_THAT(Handlers::Fingerprint(request, &response, {}).message(),
              HasSubstr("winnow_window must be in [1, 1024]"));

  v1::CompareRequest compare;
  compare.set_kind(v1::FINGERPRINT_KIND_PERCEPTUAL);
  compare.set_a(text);
  compare.set_b(NearCopy(text));
  v1::CompareResponse compared;
  ASSERT_OK(Handlers::Compare(compare, &compared, {}));
  EXPECT_GT(compared.exact_jaccard(), 0.3);
  EXPECT_LT(compared.exact_jaccard(), 1.0);
  compare.set_b("two words");
  EXPECT_THAT(Handlers::Compare(compare, &compared, {}).message(),
              HasSubstr("b: not enough tokens"));
}

TEST_F(HandlersTest, ExplainListsSharedPassages) {
  const std::string text = GeneratedText(6);
  const std::string near = NearCopy(text);
  v1::CompareRequest compare;
  compare.set_a(text);
  compare.set_b(near);
  compare.set_explain(true);
  v1::CompareResponse compared;
  ASSERT_OK(Handlers::Compare(compare, &compared, {}));
  ASSERT_GT(compared.passages_size(), 0);
  for (const v1::SharedPassage& p : compared.passages()) {
    ASSERT_LE(p.probe_end(), text.size());
    ASSERT_LE(p.match_end(), near.size());
    EXPECT_GE(p.words(), 5u);
  }

  // Query: the stored text is needed.
  v1::CreateCollectionRequest create;
  create.set_name("texts");
  create.mutable_config()->set_store_text(true);
  create.mutable_config()->set_threshold(0.5);
  v1::Collection created;
  ASSERT_OK(handlers_->CreateCollection(create, &created));
  v1::UpsertRequest upsert;
  upsert.set_collection("texts");
  upsert.set_id("doc");
  upsert.set_text(near);
  v1::UpsertResponse upserted;
  ASSERT_OK(handlers_->Upsert(upsert, &upserted));
  ASSERT_OK(Upsert("doc", near));  // into "c", which keeps no text

  for (const std::string collection : {"texts", "c"}) {
    v1::QueryRequest query;
    query.set_collection(collection);
    query.set_text(text);
    query.set_explain(true);
    v1::QueryResponse response;
    IndexQueryStats stats;
    ASSERT_OK(handlers_->Query(query, &response, &stats));
    ASSERT_EQ(response.matches_size(), 1) << collection;
    const v1::Match& match = response.matches(0);
    if (collection == "texts") {
      ASSERT_EQ(match.passages_size(), compared.passages_size());
      for (int i = 0; i < match.passages_size(); ++i) {
        const v1::SharedPassage& p = match.passages(i);
        EXPECT_EQ(
            text.substr(p.probe_begin(), p.probe_end() - p.probe_begin()),
            near.substr(p.match_begin(), p.match_end() - p.match_begin()));
      }
      EXPECT_TRUE(match.explain_unavailable().empty());
    } else {
      EXPECT_EQ(match.passages_size(), 0);
      EXPECT_THAT(match.explain_unavailable(), HasSubstr("store_text"));
    }
  }
}

// Parallel upserts, queries and deletes on one collection (run under TSan).
TEST_F(HandlersTest, ConcurrentUpsertsQueriesDeletes) {
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 60; ++i) {
        const std::string id = absl::StrCat(t, "-", i);
        const std::string text = GeneratedText(t * 1000 + i, 40);
        if (!Upsert(id, text).ok()) ++failures;
        auto found = Query(text);
        if (!found.ok() || found->matches_size() == 0) ++failures;
        if (i % 3 == 0) {
          v1::DeleteRequest del;
          del.set_collection("c");
          del.set_id(id);
          v1::DeleteResponse deleted;
          if (!handlers_->Delete(del, &deleted).ok()) ++failures;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  v1::StatsRequest stats_request;
  v1::StatsResponse stats;
  ASSERT_OK(handlers_->Stats(stats_request, &stats));
  EXPECT_EQ(stats.collections(0).document_count(), 4u * 40);
}

// Batches from two threads (the same ids in both) race single upserts from
// two more (run under TSan): every id ends up stored exactly once, and the
// index agrees with the store.
TEST_F(HandlersTest, ConcurrentBatchesAndSingleUpserts) {
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int b = 0; b < 10; ++b) {
        std::vector<v1::UpsertRequest> items(12);
        std::vector<const v1::UpsertRequest*> requests;
        for (int i = 0; i < 12; ++i) {
          items[i].set_collection("c");
          items[i].set_id(absl::StrCat("shared-", b * 12 + i));
          items[i].set_text(GeneratedText(t * 5000 + b * 12 + i, 40));
          requests.push_back(&items[i]);
        }
        std::vector<v1::UpsertResponse> responses(12);
        std::vector<v1::UpsertResponse*> outputs;
        for (auto& r : responses) outputs.push_back(&r);
        std::vector<absl::Status> statuses(12);
        handlers_->UpsertBatch(requests, std::span<absl::Status>(statuses),
                               outputs);
        for (const absl::Status& s : statuses) failures += !s.ok();
      }
    });
  }
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 60; ++i) {
        failures += !Upsert(absl::StrCat("single-", t, "-", i),
                            GeneratedText(9000 + t * 100 + i, 40))
                         .ok();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  v1::StatsRequest stats_request;
  v1::StatsResponse stats;
  ASSERT_OK(handlers_->Stats(stats_request, &stats));
  EXPECT_EQ(stats.collections(0).document_count(), 120u + 120u);
  for (int i = 0; i < 120; ++i) {
    v1::GetRequest get;
    get.set_collection("c");
    get.set_id(absl::StrCat("shared-", i));
    v1::Document doc;
    ASSERT_OK(handlers_->Get(get, &doc));
  }
}

}  // namespace
}  // namespace neardup::server

namespace neardup::server {
namespace {

// Requests that multiply work are held to budgets: explain, the blocking
// list of dedup-on-write, and the call's deadline and cancellation.
class HandlerBudgetsTest : public HandlersTest {
 protected:
  void SetUp() override {
    HandlersTest::SetUp();
    v1::CreateCollectionRequest create;
    create.set_name("texts");
    create.mutable_config()->set_threshold(0.5);
    create.mutable_config()->set_store_text(true);
    v1::Collection created;
    ASSERT_OK(handlers_->CreateCollection(create, &created));
    base_ = GeneratedText(11, 120);
    for (int i = 0; i < 130; ++i) {
      v1::UpsertRequest request;
      request.set_collection("texts");
      request.set_id(absl::StrCat("copy", i));
      request.set_text(absl::StrCat(base_, " ", i));
      v1::UpsertResponse response;
      ASSERT_OK(handlers_->Upsert(request, &response));
    }
  }
  std::string base_;
};

TEST_F(HandlerBudgetsTest, ExplainStopsAtItsPerQueryBudget) {
  v1::QueryRequest request;
  request.set_collection("texts");
  request.set_text(base_);
  request.set_top_k(200);
  request.set_explain(true);
  v1::QueryResponse response;
  IndexQueryStats stats;
  ASSERT_OK(handlers_->Query(request, &response, &stats));
  ASSERT_EQ(response.matches_size(), 130);
  int explained = 0, over_budget = 0;
  for (const v1::Match& match : response.matches()) {
    if (match.passages_size() > 0) ++explained;
    if (absl::StrContains(match.explain_unavailable(), "explain budget")) {
      ++over_budget;
    }
  }
  EXPECT_EQ(explained, static_cast<int>(kExplainMatchesPerQuery));
  EXPECT_EQ(over_budget, 130 - static_cast<int>(kExplainMatchesPerQuery));
  // The best matches got the explanations.
  EXPECT_GT(response.matches(0).passages_size(), 0);
  EXPECT_EQ(response.matches(129).passages_size(), 0);
}

TEST_F(HandlerBudgetsTest, BlockingListIsCappedButCountedExactly) {
  v1::UpsertRequest request;
  request.set_collection("texts");
  request.set_id("new");
  request.set_text(base_);
  request.set_insert_only_below(0.5);
  v1::UpsertResponse response;
  ASSERT_OK(handlers_->Upsert(request, &response));
  EXPECT_FALSE(response.written());
  EXPECT_EQ(response.blocking_size(), static_cast<int>(kMaxBlockingListed));
  EXPECT_EQ(response.blocking_count(), 130u);
  // Best first.
  EXPECT_GE(response.blocking(0).similarity(),
            response.blocking(99).similarity());
}

TEST_F(HandlerBudgetsTest, QueryStopsWhenTheCallerLeavesOrTheDeadlinePasses) {
  v1::QueryRequest request;
  request.set_collection("texts");
  request.set_text(base_);
  request.set_top_k(200);
  request.set_explain(true);
  v1::QueryResponse response;
  IndexQueryStats stats;
  CallBudget gone;
  gone.cancelled = [] { return true; };
  EXPECT_EQ(handlers_->Query(request, &response, &stats, gone).code(),
            absl::StatusCode::kCancelled);
  CallBudget late;
  late.deadline = absl::Now() - absl::Seconds(1);
  response.Clear();
  const absl::Status status =
      handlers_->Query(request, &response, &stats, late);
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(status.message(), HasSubstr("explaining matches"));
  // Without explain the check comes every 64 matches.
  request.set_explain(false);
  response.Clear();
  EXPECT_EQ(handlers_->Query(request, &response, &stats, late).code(),
            absl::StatusCode::kDeadlineExceeded);
}

}  // namespace
}  // namespace neardup::server
