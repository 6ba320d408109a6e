// End-to-end: the real neardupd binary on loopback with a temp data dir,
// driven through the C++ client.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "neardup/core/minhash.h"
#include "neardup/core/newsbot_simhash.h"
#include "neardup/core/perceptual.h"
#include "neardup/core/tlsh.h"
#include "nlohmann/json.hpp"
#include "server/server_process.h"
#include "support/corpus.h"
#include "support/fasttext_model.h"
#include "support/pdf_builder.h"
#include "support/run_command.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

// Checks the deprecated TLSH spellings on purpose.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace neardup {
namespace {

using testing::GeneratedText;
using ::testing::HasSubstr;
using testing::NearCopy;
using testing::ServerProcess;

constexpr int kBaseDocs = 300;
constexpr int kCopies = 30;  // near copies of docs 0..29

class NeardupdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<ServerProcess>(
        temp_.path() + "/data", temp_.path() + "/neardupd.log", ExtraFlags());
    server_->Start();
    ASSERT_TRUE(server_->WaitServing()) << Log();
    client_ = MakeClient();
  }

  virtual std::vector<std::string> ExtraFlags() { return {}; }

  std::unique_ptr<client::Client> MakeClient() {
    client::ClientOptions options;
    options.target = server_->Address();
    return std::make_unique<client::Client>(options);
  }

  std::string Log() const {
    return testing::FileContents(temp_.path() + "/neardupd.log");
  }

  void CreateCollection(const std::string& name, bool store_text = true) {
    v1::CreateCollectionRequest request;
    request.set_name(name);
    request.mutable_config()->set_threshold(0.5);
    request.mutable_config()->set_simhash(true);
    request.mutable_config()->set_store_text(store_text);
    auto created = client_->CreateCollection(request);
    ASSERT_OK(created);
  }

  // Base documents b0..b299 and near copies c0..c29, through BulkUpsert.
  void IngestCorpus(const std::string& collection) {
    int next = 0;
    int ok = 0;
    const absl::Status status = client_->BulkUpsert(
        [&](v1::UpsertRequest* request) {
          if (next >= kBaseDocs + kCopies) return false;
          request->set_collection(collection);
          if (next < kBaseDocs) {
            request->set_id(absl::StrCat("b", next));
            request->set_text(GeneratedText(next));
          } else {
            const int of = next - kBaseDocs;
            request->set_id(absl::StrCat("c", of));
            request->set_text(NearCopy(GeneratedText(of)));
          }
          (*request->mutable_metadata())["n"] = absl::StrCat(next);
          ++next;
          return true;
        },
        [&](const v1::BulkUpsertResult& result) {
          EXPECT_EQ(result.code(), 0) << result.message();
          EXPECT_EQ(result.index(), static_cast<uint64_t>(ok));
          ok += result.code() == 0;
        });
    ASSERT_OK(status);
    ASSERT_EQ(ok, kBaseDocs + kCopies);
  }

  // For every copy: the ids it matches (MinHash by text), excluding itself.
  std::map<std::string, std::vector<std::string>> CopyMatches(
      const std::string& collection) {
    std::map<std::string, std::vector<std::string>> out;
    for (int i = 0; i < kCopies; ++i) {
      v1::QueryRequest query;
      query.set_collection(collection);
      query.set_text(NearCopy(GeneratedText(i)));
      query.set_exclude_id(absl::StrCat("c", i));
      auto response = client_->Query(query);
      EXPECT_OK(response);
      if (!response.ok()) continue;
      for (const auto& match : response->matches()) {
        out[absl::StrCat("c", i)].push_back(absl::StrCat(
            match.id(), "@", match.similarity(), "/", match.exact_jaccard()));
      }
    }
    return out;
  }

  // /metrics as name{labels} -> value.
  std::map<std::string, double> ScrapeMetrics() {
    const std::string body =
        testing::HttpGet(server_->metrics_port(), "/metrics");
    EXPECT_FALSE(body.empty());
    // name{labels} value, one sample per line; comments start with '#'.
    std::map<std::string, double> samples;
    for (absl::string_view line : absl::StrSplit(body, '\n')) {
      if (line.empty() || line[0] == '#') continue;
      const size_t space = line.rfind(' ');
      EXPECT_NE(space, absl::string_view::npos) << line;
      if (space == absl::string_view::npos) continue;
      double value = 0;
      EXPECT_TRUE(absl::SimpleAtod(line.substr(space + 1), &value)) << line;
      samples[std::string(line.substr(0, space))] = value;
    }
    return samples;
  }

  neardup::testing::TempDir temp_;
  std::unique_ptr<ServerProcess> server_;
  std::unique_ptr<client::Client> client_;
};

TEST_F(NeardupdTest, IngestQueryRestartSameAnswers) {
  CreateCollection("news");
  IngestCorpus("news");

  // Each copy finds its source, with an exact Jaccard (text is stored).
  for (int i = 0; i < kCopies; ++i) {
    v1::QueryRequest query;
    query.set_collection("news");
    query.set_text(NearCopy(GeneratedText(i)));
    query.set_exclude_id(absl::StrCat("c", i));
    query.set_include_metadata(true);
    auto response = client_->Query(query);
    ASSERT_OK(response);
    ASSERT_GE(response->matches_size(), 1) << "copy " << i;
    const v1::Match& best = response->matches(0);
    EXPECT_EQ(best.id(), absl::StrCat("b", i));
    EXPECT_GE(best.similarity(), 0.5);
    ASSERT_TRUE(best.has_exact_jaccard());
    EXPECT_GT(best.exact_jaccard(), 0.6);
    EXPECT_EQ(best.metadata().at("n"), absl::StrCat(i));
    EXPECT_GT(response->candidates(), 0u);
  }
  // A SimHash query finds the identical document at distance 0.
  v1::QueryRequest simhash_query;
  simhash_query.set_collection("news");
  simhash_query.set_text(GeneratedText(200));
  simhash_query.set_algorithm(v1::ALGORITHM_SIMHASH);
  auto near = client_->Query(simhash_query);
  ASSERT_OK(near);
  ASSERT_GE(near->matches_size(), 1);
  EXPECT_EQ(near->matches(0).id(), "b200");
  EXPECT_EQ(near->matches(0).hamming_distance(), 0u);

  const auto before = CopyMatches("news");
  ASSERT_EQ(server_->Stop(SIGTERM), 0) << Log();
  server_->Start();
  ASSERT_TRUE(server_->WaitServing()) << Log();
  EXPECT_EQ(CopyMatches("news"), before);
  auto collection = client_->GetCollection("news");
  ASSERT_OK(collection);
  EXPECT_EQ(collection->document_count(), uint64_t{kBaseDocs + kCopies});
  EXPECT_THAT(Log(), HasSubstr("documents indexed"));
}

TEST_F(NeardupdTest, DocumentsGetDeleteAndStats) {
  CreateCollection("docs");
  v1::UpsertRequest upsert;
  upsert.set_collection("docs");
  upsert.set_id("a");
  upsert.set_text(GeneratedText(1));
  (*upsert.mutable_metadata())["lang"] = "en";
  auto first = client_->Upsert(upsert);
  ASSERT_OK(first);
  EXPECT_TRUE(first->written());
  EXPECT_FALSE(first->replaced());
  auto again = client_->Upsert(upsert);
  ASSERT_OK(again);
  EXPECT_TRUE(again->replaced());

  auto doc = client_->Get("docs", "a");
  ASSERT_OK(doc);
  EXPECT_EQ(doc->text(), GeneratedText(1));
  EXPECT_EQ(doc->metadata().at("lang"), "en");
  auto parsed = MinHashSignature::Parse(doc->signatures().minhash());
  ASSERT_OK(parsed);
  EXPECT_EQ(parsed->num_perm(), 128);

  // Dedup-on-write refuses a near copy and names the blocker.
  v1::UpsertRequest copy = upsert;
  copy.set_id("b");
  copy.set_text(NearCopy(GeneratedText(1)));
  copy.set_insert_only_below(0.5);
  auto refused = client_->Upsert(copy);
  ASSERT_OK(refused);
  EXPECT_FALSE(refused->written());
  ASSERT_EQ(refused->blocking_size(), 1);
  EXPECT_EQ(refused->blocking(0).id(), "a");

  auto stats = client_->Stats("docs");
  ASSERT_OK(stats);
  ASSERT_EQ(stats->collections_size(), 1);
  EXPECT_EQ(stats->collections(0).document_count(), 1u);
  EXPECT_GT(stats->collections(0).index_bytes(), 0u);

  ASSERT_OK(client_->Delete("docs", "a"));
  EXPECT_EQ(client_->Get("docs", "a").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(client_->Delete("docs", "a").code(), absl::StatusCode::kNotFound);
}

TEST_F(NeardupdTest, ErrorCodesSayWhatToFix) {
  CreateCollection("c");
  v1::CreateCollectionRequest duplicate;
  duplicate.set_name("c");
  EXPECT_EQ(client_->CreateCollection(duplicate).status().code(),
            absl::StatusCode::kAlreadyExists);

  v1::CreateCollectionRequest bad_config;
  bad_config.set_name("bad");
  bad_config.mutable_config()->set_num_perm(100);
  auto bad = client_->CreateCollection(bad_config);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("num_perm"));

  v1::UpsertRequest upsert;
  upsert.set_collection("missing");
  upsert.set_id("x");
  upsert.set_text("some text here");
  auto missing = client_->Upsert(upsert);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("missing"));

  upsert.set_collection("c");
  upsert.set_text("");
  auto empty = client_->Upsert(upsert);
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(empty.status().message(), HasSubstr("empty document"));

  upsert.set_text("valid start \xFF\xFE then garbage");
  auto invalid = client_->Upsert(upsert);
  EXPECT_EQ(invalid.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(invalid.status().message(), HasSubstr("UTF-8"));

  // Signatures made under another configuration are refused.
  v1::FingerprintRequest fingerprint;
  fingerprint.set_text(GeneratedText(5));
  fingerprint.mutable_config()->set_num_perm(128);
  fingerprint.mutable_config()->set_seed(42);
  auto other = client_->Fingerprint(fingerprint);
  ASSERT_OK(other);
  upsert.mutable_signatures()->set_minhash(other->minhash());
  upsert.mutable_signatures()->set_minhash_config_hash(
      other->minhash_config_hash());
  auto mismatch = client_->Upsert(upsert);
  EXPECT_EQ(mismatch.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(mismatch.status().message(), HasSubstr("config_hash"));

  EXPECT_EQ(client_->Get("c", "nope").status().code(),
            absl::StatusCode::kNotFound);

  v1::QueryRequest query;
  query.set_collection("c");
  query.set_text(GeneratedText(1));
  query.set_top_k(1000000);
  EXPECT_EQ(client_->Query(query).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(NeardupdTest, SignaturesFromFingerprintAreAccepted) {
  CreateCollection("sigs", /*store_text=*/false);
  auto collection = client_->GetCollection("sigs");
  ASSERT_OK(collection);
  v1::FingerprintRequest fingerprint;
  fingerprint.set_text(GeneratedText(9));
  *fingerprint.mutable_config() = collection->config();
  auto made = client_->Fingerprint(fingerprint);
  ASSERT_OK(made);
  EXPECT_EQ(made->minhash_config_hash(), collection->minhash_config_hash());
  EXPECT_EQ(made->simhash_config_hash(), collection->simhash_config_hash());

  v1::UpsertRequest upsert;
  upsert.set_collection("sigs");
  upsert.set_id("s");
  auto* sigs = upsert.mutable_signatures();
  sigs->set_minhash(made->minhash());
  sigs->set_minhash_config_hash(made->minhash_config_hash());
  sigs->set_simhash(made->simhash());
  sigs->set_simhash_config_hash(made->simhash_config_hash());
  ASSERT_OK(client_->Upsert(upsert));
  v1::QueryRequest query;
  query.set_collection("sigs");
  query.set_text(GeneratedText(9));
  auto found = client_->Query(query);
  ASSERT_OK(found);
  ASSERT_EQ(found->matches_size(), 1);
  EXPECT_EQ(found->matches(0).id(), "s");
  EXPECT_EQ(found->matches(0).similarity(), 1.0);
  EXPECT_FALSE(found->matches(0).has_exact_jaccard());  // no stored text
}

// The other fingerprint kinds and explain, through gRPC on a real server.
TEST_F(NeardupdTest, OtherFingerprintsAndExplainThroughTheServer) {
  const std::string text = GeneratedText(21);
  const std::string near = NearCopy(text);
  v1::FingerprintRequest fingerprint;
  fingerprint.set_text(text);
  fingerprint.set_kind(v1::FINGERPRINT_KIND_TLSH);
  auto tlsh = client_->Fingerprint(fingerprint);
  ASSERT_OK(tlsh);
  EXPECT_EQ(tlsh->tlsh(),
            FormatTlsh(*TlshFingerprinter::Create()->Fingerprint(text)));
  fingerprint.set_kind(v1::FINGERPRINT_KIND_TLSH_RAW);
  fingerprint.set_text(std::string("\xff\x00", 2) + text);  // any bytes
  auto raw = client_->Fingerprint(fingerprint);
  ASSERT_OK(raw);
  EXPECT_EQ(raw->tlsh(), FormatTlsh(*TlshOfBytes(fingerprint.text())));
  fingerprint.set_kind(v1::FINGERPRINT_KIND_NEWSBOT);
  fingerprint.set_text("The quick brown fox");
  fingerprint.set_newsbot_bits(128);
  auto newsbot = client_->Fingerprint(fingerprint);
  ASSERT_OK(newsbot);
  EXPECT_EQ(newsbot->newsbot_simhash(), "0fd470685f8966c02c02008001828212");
  fingerprint.set_kind(v1::FINGERPRINT_KIND_PERCEPTUAL);
  fingerprint.set_text(text);
  auto perceptual = client_->Fingerprint(fingerprint);
  ASSERT_OK(perceptual);
  EXPECT_EQ(perceptual->minhash_config_hash(),
            PerceptualHasher::Create()->config_hash());

  // A perceptual signature is not a collection's MinHash: refused, never
  // compared.
  CreateCollection("texts");
  v1::UpsertRequest foreign;
  foreign.set_collection("texts");
  foreign.set_id("p");
  foreign.mutable_signatures()->set_minhash(perceptual->minhash());
  foreign.mutable_signatures()->set_minhash_config_hash(
      perceptual->minhash_config_hash());
  EXPECT_EQ(client_->Upsert(foreign).status().code(),
            absl::StatusCode::kFailedPrecondition);

  v1::CompareRequest compare;
  compare.set_a(text);
  compare.set_b(near);
  compare.set_explain(true);
  auto compared = client_->Compare(compare);
  ASSERT_OK(compared);
  EXPECT_TRUE(compared->has_tlsh_distance());
  ASSERT_GT(compared->passages_size(), 0);

  v1::UpsertRequest upsert;
  upsert.set_collection("texts");
  upsert.set_id("near");
  upsert.set_text(near);
  ASSERT_OK(client_->Upsert(upsert));
  v1::QueryRequest query;
  query.set_collection("texts");
  query.set_text(text);
  query.set_explain(true);
  auto found = client_->Query(query);
  ASSERT_OK(found);
  ASSERT_EQ(found->matches_size(), 1);
  const v1::Match& match = found->matches(0);
  ASSERT_EQ(match.passages_size(), compared->passages_size());
  for (const v1::SharedPassage& p : match.passages()) {
    EXPECT_EQ(text.substr(p.probe_begin(), p.probe_end() - p.probe_begin()),
              near.substr(p.match_begin(), p.match_end() - p.match_begin()));
  }
}

// Each fingerprint family as a collection's own: stored, queried, exported
// with its signatures, and answering the same after a restart.
TEST_F(NeardupdTest, CollectionsOfEachFamilyStoreAndQuery) {
  auto create = [&](const std::string& name, auto configure) {
    v1::CreateCollectionRequest request;
    request.set_name(name);
    request.mutable_config()->set_threshold(0.5);
    configure(request.mutable_config());
    return client_->CreateCollection(request);
  };
  auto perceptual = create("perceptual", [](v1::FingerprintConfig* c) {
    c->set_minhash_algorithm(v1::MINHASH_ALGORITHM_PERCEPTUAL);
    c->set_winnow_window(2);
  });
  ASSERT_OK(perceptual);
  EXPECT_EQ(perceptual->config().shingle_k(), 9u);  // UCFP's default k
  EXPECT_EQ(perceptual->config().winnow_window(), 2u);
  PerceptualConfig expected_config;
  expected_config.w = 2;
  EXPECT_EQ(perceptual->minhash_config_hash(),
            PerceptualHasher::Create(expected_config)->config_hash());
  auto newsbot = create("newsbot", [](v1::FingerprintConfig* c) {
    c->set_simhash(true);
    c->set_simhash_variant(v1::SIMHASH_VARIANT_NEWSBOT);
    c->set_simhash_max_distance(8);
  });
  ASSERT_OK(newsbot);
  EXPECT_EQ(newsbot->simhash_config_hash(), NewsbotConfigHash(64));
  auto tlsh =
      create("tlsh", [](v1::FingerprintConfig* c) { c->set_tlsh(true); });
  ASSERT_OK(tlsh);
  EXPECT_EQ(tlsh->tlsh_config_hash(),
            TlshFingerprinter::Create()->config_hash());
  // Foreign fields of a family are refused with the field's name.
  auto bad = create("bad", [](v1::FingerprintConfig* c) {
    c->set_minhash_algorithm(v1::MINHASH_ALGORITHM_PERCEPTUAL);
    c->set_hash_family(v1::HASH_FAMILY_MURMUR3);
  });
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("XXH3"));

  for (const char* name : {"perceptual", "newsbot", "tlsh"}) {
    for (int i = 0; i < 20; ++i) {
      v1::UpsertRequest upsert;
      upsert.set_collection(name);
      upsert.set_id(absl::StrCat("b", i));
      upsert.set_text(GeneratedText(i));
      ASSERT_TRUE(client_->Upsert(upsert).ok()) << name;
    }
  }
  // The Fingerprint RPC with a collection's config gives what it stores.
  v1::FingerprintRequest fingerprint;
  fingerprint.set_text(GeneratedText(3));
  *fingerprint.mutable_config() = perceptual->config();
  auto fingerprinted = client_->Fingerprint(fingerprint);
  ASSERT_OK(fingerprinted);
  auto stored = client_->Get("perceptual", "b3");
  ASSERT_OK(stored);
  EXPECT_EQ(fingerprinted->minhash(), stored->signatures().minhash());
  EXPECT_EQ(fingerprinted->minhash_config_hash(),
            perceptual->minhash_config_hash());
  auto stored_tlsh = client_->Get("tlsh", "b3");
  ASSERT_OK(stored_tlsh);
  EXPECT_EQ(
      stored_tlsh->signatures().tlsh(),
      FormatTlsh(*TlshFingerprinter::Create()->Fingerprint(GeneratedText(3))));

  auto answers = [&] {
    std::vector<std::string> out;
    for (int i = 0; i < 5; ++i) {
      const std::string probe = NearCopy(GeneratedText(i));
      v1::QueryRequest query;
      query.set_text(probe);
      query.set_collection("perceptual");
      auto p = client_->Query(query);
      EXPECT_OK(p);
      if (!p.ok() || p->matches_size() == 0) return out;
      EXPECT_EQ(p->matches(0).id(), absl::StrCat("b", i));
      EXPECT_TRUE(p->matches(0).has_exact_jaccard());  // winnowed sets
      out.push_back(
          absl::StrCat(p->matches(0).id(), " ", p->matches(0).similarity()));

      query.set_collection("newsbot");
      query.set_algorithm(v1::ALGORITHM_SIMHASH);
      auto n = client_->Query(query);
      EXPECT_OK(n);
      if (!n.ok() || n->matches_size() == 0) return out;
      EXPECT_EQ(n->matches(0).id(), absl::StrCat("b", i));
      const int distance = *NewsbotHamming(*NewsbotSimHash(probe),
                                           *NewsbotSimHash(GeneratedText(i)));
      EXPECT_EQ(n->matches(0).hamming_distance(),
                static_cast<uint32_t>(distance));
      out.push_back(absl::StrCat(n->matches(0).id(), " ", distance));

      query.set_collection("tlsh");
      query.set_algorithm(v1::ALGORITHM_MINHASH);
      auto t = client_->Query(query);
      EXPECT_OK(t);
      if (!t.ok() || t->matches_size() == 0) return out;
      const TlshFingerprinter tlsher = *TlshFingerprinter::Create();
      const int tlsh_distance = TlshDistance(
          *tlsher.Fingerprint(probe), *tlsher.Fingerprint(GeneratedText(i)));
      EXPECT_TRUE(t->matches(0).has_tlsh_distance());
      EXPECT_EQ(t->matches(0).tlsh_distance(), tlsh_distance);
      EXPECT_EQ(t->matches(0).kept_distances_size(), 1);
      EXPECT_EQ(t->matches(0).kept_distances(0).distance(), tlsh_distance);
      out.push_back(absl::StrCat(t->matches(0).id(), " ", tlsh_distance));
    }
    return out;
  };
  const std::vector<std::string> before = answers();
  ASSERT_EQ(before.size(), 15u);

  // A probe too short for TLSH: the match has no distance, and no error.
  v1::UpsertRequest tiny;
  tiny.set_collection("tlsh");
  tiny.set_id("tiny");
  tiny.set_text("a tiny text");
  ASSERT_OK(client_->Upsert(tiny));
  v1::QueryRequest short_probe;
  short_probe.set_collection("tlsh");
  short_probe.set_text("a tiny text");
  auto short_found = client_->Query(short_probe);
  ASSERT_OK(short_found);
  ASSERT_GE(short_found->matches_size(), 1);
  EXPECT_FALSE(short_found->matches(0).has_tlsh_distance());
  EXPECT_EQ(short_found->matches(0).kept_distances_size(), 0);

  ASSERT_EQ(server_->Stop(SIGTERM), 0) << Log();
  server_->Start();
  ASSERT_TRUE(server_->WaitServing()) << Log();
  EXPECT_EQ(answers(), before);
}

// Vectors of a tiny "model": each document's is random, a probe's is its
// document's plus a little noise (cosine about 0.99).
std::vector<float> TestVector(int doc, int noise_seed = -1) {
  std::mt19937 rng(1000 + doc);
  std::normal_distribution<float> normal;
  std::vector<float> v(32);
  for (float& x : v) x = normal(rng);
  if (noise_seed >= 0) {
    std::mt19937 noise(noise_seed);
    for (float& x : v) x += 0.12f * normal(noise);
  }
  return v;
}

void SetEmbedding(const std::vector<float>& v, v1::Embedding* out,
                  const std::string& model = "test-model@1") {
  out->set_model_id(model);
  out->mutable_values()->Assign(v.begin(), v.end());
}

TEST_F(NeardupdTest, SemanticAndHybridQueries) {
  v1::CreateCollectionRequest create;
  create.set_name("sem");
  create.mutable_config()->set_threshold(0.5);
  create.mutable_config()->set_store_text(true);
  create.mutable_config()->mutable_embedding()->set_model_id("test-model@1");
  create.mutable_config()->mutable_embedding()->set_dim(32);
  // Graphs here (the storage and core tests cover both kinds of shard).
  create.mutable_config()->mutable_embedding()->set_hnsw(true);
  auto created = client_->CreateCollection(create);
  ASSERT_OK(created);
  EXPECT_TRUE(created->config().embedding().hnsw());
  EXPECT_EQ(created->config().embedding().ef_search(), 128u);
  EXPECT_DOUBLE_EQ(created->config().embedding().min_cosine(), 0.9);
  constexpr int kDocs = 60;
  for (int i = 0; i < kDocs; ++i) {
    v1::UpsertRequest upsert;
    upsert.set_collection("sem");
    upsert.set_id(absl::StrCat("b", i));
    upsert.set_text(GeneratedText(i));
    SetEmbedding(TestVector(i), upsert.mutable_embedding());
    ASSERT_OK(client_->Upsert(upsert));
  }
  // Every document of the space carries a vector of its model and dim.
  v1::UpsertRequest bare;
  bare.set_collection("sem");
  bare.set_id("bare");
  bare.set_text(GeneratedText(1));
  EXPECT_EQ(client_->Upsert(bare).status().code(),
            absl::StatusCode::kInvalidArgument);
  SetEmbedding(TestVector(1), bare.mutable_embedding(), "other-model");
  EXPECT_EQ(client_->Upsert(bare).status().code(),
            absl::StatusCode::kFailedPrecondition);
  SetEmbedding(std::vector<float>(31, 1.0f), bare.mutable_embedding());
  EXPECT_EQ(client_->Upsert(bare).status().code(),
            absl::StatusCode::kInvalidArgument);
  SetEmbedding(std::vector<float>(32, 0.0f), bare.mutable_embedding());
  EXPECT_THAT(client_->Upsert(bare).status().message(), HasSubstr("norm 0"));

  auto semantic = [&](int doc) {
    v1::QueryRequest query;
    query.set_collection("sem");
    query.set_algorithm(v1::ALGORITHM_SEMANTIC);
    SetEmbedding(TestVector(doc, 7), query.mutable_embedding());
    return client_->Query(query);
  };
  auto answers = [&] {
    std::vector<std::string> out;
    for (int i = 0; i < 10; ++i) {
      auto found = semantic(i);
      EXPECT_OK(found);
      if (!found.ok()) return out;
      // Random 32-dim vectors: only the probe's own document is that close.
      EXPECT_EQ(found->matches_size(), 1);
      for (const v1::Match& m : found->matches()) {
        EXPECT_EQ(m.id(), absl::StrCat("b", i));
        EXPECT_GT(m.cosine(), 0.95);
        EXPECT_DOUBLE_EQ(m.similarity(), m.cosine());
        out.push_back(absl::StrCat(m.id(), " ", m.cosine()));
      }
    }
    return out;
  };
  const std::vector<std::string> before = answers();
  ASSERT_EQ(before.size(), 10u);

  // A looser floor finds more, never more than top_k.
  v1::QueryRequest loose;
  loose.set_collection("sem");
  loose.set_algorithm(v1::ALGORITHM_SEMANTIC);
  loose.set_min_cosine(-0.99);
  loose.set_top_k(7);
  SetEmbedding(TestVector(3, 7), loose.mutable_embedding());
  auto found = client_->Query(loose);
  ASSERT_OK(found);
  EXPECT_EQ(found->matches_size(), 7);
  SetEmbedding(TestVector(3), loose.mutable_embedding(), "other-model");
  EXPECT_EQ(client_->Query(loose).status().code(),
            absl::StatusCode::kFailedPrecondition);
  loose.clear_embedding();
  EXPECT_THAT(client_->Query(loose).status().message(),
              HasSubstr("needs the probe's embedding"));

  // Hybrid: the text is a near copy of b0, the vector is b3's.
  v1::QueryRequest hybrid;
  hybrid.set_collection("sem");
  hybrid.set_text(NearCopy(GeneratedText(0)));
  SetEmbedding(TestVector(3, 7), hybrid.mutable_embedding());
  hybrid.set_algorithm(v1::ALGORITHM_HYBRID_ALL);
  found = client_->Query(hybrid);
  ASSERT_OK(found);
  EXPECT_EQ(found->matches_size(), 0);  // b0's text, but not its meaning
  hybrid.set_algorithm(v1::ALGORITHM_HYBRID_ANY);
  found = client_->Query(hybrid);
  ASSERT_OK(found);
  ASSERT_EQ(found->matches_size(), 2);
  EXPECT_EQ(found->matches(0).id(), "b3");  // by cosine, best first
  EXPECT_FALSE(found->matches(0).has_exact_jaccard());
  EXPECT_EQ(found->matches(1).id(), "b0");
  EXPECT_TRUE(found->matches(1).has_exact_jaccard());
  EXPECT_LT(found->matches(1).cosine(), 0.9);
  for (const v1::Match& m : found->matches()) {
    EXPECT_DOUBLE_EQ(m.similarity(), m.cosine());  // ranked by cosine
  }
  SetEmbedding(TestVector(0, 7), hybrid.mutable_embedding());
  hybrid.set_algorithm(v1::ALGORITHM_HYBRID_ALL);
  found = client_->Query(hybrid);
  ASSERT_OK(found);
  ASSERT_EQ(found->matches_size(), 1);
  EXPECT_EQ(found->matches(0).id(), "b0");
  EXPECT_GT(found->matches(0).exact_jaccard(), 0.5);
  EXPECT_GT(found->matches(0).cosine(), 0.95);

  // Get returns the stored unit vector; Stats and metrics count vectors.
  auto doc = client_->Get("sem", "b1");
  ASSERT_OK(doc);
  EXPECT_EQ(doc->embedding().model_id(), "test-model@1");
  EXPECT_EQ(doc->embedding().values_size(), 32);
  auto stats = client_->Stats("sem");
  ASSERT_OK(stats);
  EXPECT_EQ(stats->collections(0).semantic_vectors(),
            static_cast<uint64_t>(kDocs));
  EXPECT_GT(stats->collections(0).semantic_bytes_per_vector(), 32 * 4);
  EXPECT_GE(stats->collections(0).index_bytes(),
            stats->collections(0).semantic_index_bytes());
  EXPECT_EQ(ScrapeMetrics()["neardup_semantic_vectors{collection=\"sem\"}"],
            kDocs);

  // A delete leaves the graph at once; a restart rebuilds the rest.
  ASSERT_OK(client_->Delete("sem", "b59"));
  stats = client_->Stats("sem");
  ASSERT_OK(stats);
  EXPECT_EQ(stats->collections(0).semantic_vectors(),
            static_cast<uint64_t>(kDocs - 1));
  found = semantic(59);
  ASSERT_OK(found);
  EXPECT_EQ(found->matches_size(), 0);
  ASSERT_EQ(server_->Stop(SIGTERM), 0) << Log();
  server_->Start();
  ASSERT_TRUE(server_->WaitServing()) << Log();
  EXPECT_EQ(answers(), before);
  found = semantic(59);
  ASSERT_OK(found);
  EXPECT_EQ(found->matches_size(), 0);
}

TEST_F(NeardupdTest, MetricsAreExportedAndParse) {
  CreateCollection("m");
  IngestCorpus("m");
  v1::QueryRequest query;
  query.set_collection("m");
  query.set_text(GeneratedText(3));
  ASSERT_OK(client_->Query(query));
  std::map<std::string, double> samples;
  ASSERT_NO_FATAL_FAILURE(samples = ScrapeMetrics());
  EXPECT_EQ(samples["neardup_collection_documents{collection=\"m\"}"],
            kBaseDocs + kCopies);
  EXPECT_EQ(samples["neardup_rpcs_total{code=\"OK\",method=\"Query\",protocol="
                    "\"grpc\"}"],
            1);
  EXPECT_EQ(samples["neardup_rpcs_total{code=\"OK\",method=\"BulkUpsert\","
                    "protocol=\"grpc\"}"],
            1);
  EXPECT_EQ(
      samples["neardup_stream_items_total{code=\"OK\",method=\"BulkUpsert\"}"],
      kBaseDocs + kCopies);
  EXPECT_GT(samples["neardup_index_memory_bytes{collection=\"m\"}"], 0);
  EXPECT_GE(samples["neardup_query_candidates_count"], 1);
  // The probe is a stored text: exact verification read its shingle set.
  EXPECT_GE(samples["neardup_query_evidence_reads_sum"], 1);
  EXPECT_GT(samples["neardup_query_evidence_bytes_total"], 0);
  EXPECT_TRUE(samples.count("neardup_query_hot_bands_skipped_total"));
  EXPECT_TRUE(samples.count("neardup_store_write_stall_seconds_total"));
  EXPECT_TRUE(samples.count("neardup_store_write_stalls_total{kind=\"stop\"}"));
  EXPECT_TRUE(samples.count("neardup_store_live_sst_bytes"));
  EXPECT_TRUE(samples.count("neardup_store_live_blob_bytes"));
  EXPECT_TRUE(samples.count("neardup_store_blob_garbage_bytes"));
  EXPECT_TRUE(samples.count("neardup_store_pending_compaction_bytes"));
  EXPECT_GT(samples["neardup_data_dir_available_bytes"], 0);
  EXPECT_GT(samples["neardup_data_dir_capacity_bytes"], 0);
  EXPECT_TRUE(samples.count(
      "neardup_rpc_duration_seconds_bucket{method=\"Query\",protocol=\"grpc\","
      "le=\"+Inf\"}"));
}

// A reserve larger than any disk makes the disk "full" without root or a
// tmpfs (tests/storage/store_disk_full_test.cc fills a real one): upserts
// get RESOURCE_EXHAUSTED, reads and deletes work, Stats and /metrics say so.
TEST_F(NeardupdTest, FullDiskRefusesUpsertsAndKeepsServingReads) {
  CreateCollection("full");
  v1::UpsertRequest upsert;
  upsert.set_collection("full");
  upsert.set_id("kept");
  upsert.set_text(GeneratedText(1));
  ASSERT_OK(client_->Upsert(upsert));
  EXPECT_EQ(ScrapeMetrics()["neardup_disk_full"], 0);
  ASSERT_EQ(server_->Stop(SIGTERM), 0) << Log();

  server_ = std::make_unique<ServerProcess>(
      temp_.path() + "/data", temp_.path() + "/neardupd.log",
      std::vector<std::string>{"--min-free-disk-bytes=1000000000000000000"});
  server_->Start();
  ASSERT_TRUE(server_->WaitServing()) << Log();
  client_ = MakeClient();

  upsert.set_id("refused");
  const absl::Status refused = client_->Upsert(upsert).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.message(), HasSubstr("disk full"));
  ASSERT_OK_AND_ASSIGN(v1::StatsResponse stats, client_->Stats(""));
  EXPECT_TRUE(stats.disk_full());
  EXPECT_THAT(stats.disk_full_reason(), HasSubstr("--min-free-disk-bytes"));
  EXPECT_EQ(stats.disk_reserve_bytes(), 1000000000000000000u);
  EXPECT_EQ(ScrapeMetrics()["neardup_disk_full"], 1);

  v1::QueryRequest query;
  query.set_collection("full");
  query.set_text(GeneratedText(1));
  ASSERT_OK_AND_ASSIGN(v1::QueryResponse found, client_->Query(query));
  ASSERT_EQ(found.matches_size(), 1);
  EXPECT_EQ(found.matches(0).id(), "kept");
  EXPECT_EQ(client_->Get("full", "refused").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_OK(client_->Delete("full", "kept"));
}

TEST_F(NeardupdTest, SigtermDuringIngestLosesNoAcknowledgedDocument) {
  CreateCollection("ingest", /*store_text=*/false);
  std::set<std::string> acknowledged;
  std::atomic<int> sent{0};
  std::thread killer;
  const absl::Status status = client_->BulkUpsert(
      [&](v1::UpsertRequest* request) {
        const int n = sent++;
        if (n >= 200000) return false;
        request->set_collection("ingest");
        request->set_id(absl::StrCat("d", n));
        request->set_text(GeneratedText(n, 40));
        return true;
      },
      [&](const v1::BulkUpsertResult& result) {
        if (result.code() == 0) acknowledged.insert(result.response().id());
        if (acknowledged.size() == 2000 && !killer.joinable()) {
          killer = std::thread([&] { kill(server_->pid(), SIGTERM); });
        }
      });
  if (killer.joinable()) killer.join();
  // The stream ends either way: cut by the shutdown, or drained.
  ASSERT_GE(acknowledged.size(), 2000u) << status;
  int exit_status = server_->Stop(SIGTERM);  // reaps it; already exiting
  EXPECT_TRUE(WIFEXITED(exit_status) && WEXITSTATUS(exit_status) == 0)
      << exit_status << Log();
  server_->Start();
  ASSERT_TRUE(server_->WaitServing()) << Log();
  for (const std::string& id : acknowledged) {
    ASSERT_OK(client_->Get("ingest", id));
  }
}

// A server with small limits.
class NeardupdLimitsTest : public NeardupdTest {
  std::vector<std::string> ExtraFlags() override {
    return {"--max-document-bytes=2000", "--max-message-bytes=65536"};
  }
};

TEST_F(NeardupdLimitsTest, OversizedInputIsRefusedCleanly) {
  CreateCollection("limits");
  v1::UpsertRequest upsert;
  upsert.set_collection("limits");
  upsert.set_id("big");
  upsert.set_text(GeneratedText(1, 1000));  // ~8 KB
  auto too_big = client_->Upsert(upsert);
  EXPECT_EQ(too_big.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(too_big.status().message(), HasSubstr("--max-document-bytes"));
  upsert.set_text(std::string(100000, 'a'));
  EXPECT_EQ(client_->Upsert(upsert).status().code(),
            absl::StatusCode::kResourceExhausted);
  // The server keeps serving.
  upsert.set_text(GeneratedText(1, 50));
  EXPECT_OK(client_->Upsert(upsert));
}

// A server that gives a PDF half a second.
// Collections that embed texts themselves with a fastText model from
// --models-dir (trained at test time on two topics of words).
class NeardupdEmbedTest : public NeardupdTest {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(models_dir());
    std::string log;
    model_path_ = testing::TrainTinyFastTextModel(models_dir(), &log);
    ASSERT_FALSE(model_path_.empty()) << log;
    NeardupdTest::SetUp();
  }
  std::vector<std::string> ExtraFlags() override {
    return {"--models-dir=" + models_dir()};
  }
  std::string models_dir() const { return temp_.path() + "/models"; }
  std::string model_path_;
};

TEST_F(NeardupdEmbedTest, ServerEmbedsTextsWithAFastTextModel) {
  v1::CreateCollectionRequest create;
  create.set_name("ft");
  create.mutable_config()->mutable_embedding()->set_fasttext_model("tiny.bin");
  create.mutable_config()->mutable_embedding()->set_chunk_max_tokens(16);
  auto created = client_->CreateCollection(create);
  ASSERT_OK(created);
  const v1::EmbeddingSpace& space = created->config().embedding();
  EXPECT_THAT(space.model_id(), ::testing::StartsWith("fasttext-"));
  EXPECT_EQ(space.dim(), 16u);
  EXPECT_EQ(space.chunk_overlap(), 4u);  // a quarter of small chunks
  // Only files inside --models-dir, and only models.
  v1::CreateCollectionRequest outside = create;
  outside.set_name("outside");
  outside.mutable_config()->mutable_embedding()->set_fasttext_model(
      "../models/tiny.bin");
  EXPECT_EQ(client_->CreateCollection(outside).status().code(),
            absl::StatusCode::kInvalidArgument);
  outside.mutable_config()->mutable_embedding()->set_fasttext_model(
      "corpus.txt");
  EXPECT_EQ(client_->CreateCollection(outside).status().code(),
            absl::StatusCode::kInvalidArgument);

  std::mt19937 rng(5);
  for (int i = 0; i < 20; ++i) {
    v1::UpsertRequest upsert;
    upsert.set_collection("ft");
    upsert.set_id(absl::StrCat("topic", i % 2, "-", i));
    upsert.set_text(testing::TopicSentence(rng, i % 2, 40));
    ASSERT_OK(client_->Upsert(upsert));
  }
  // A text probe is embedded the same way: its own topic comes first.
  for (int topic = 0; topic < 2; ++topic) {
    v1::QueryRequest query;
    query.set_collection("ft");
    query.set_algorithm(v1::ALGORITHM_SEMANTIC);
    query.set_text(testing::TopicSentence(rng, topic, 40));
    query.set_min_cosine(-0.99);
    query.set_top_k(20);
    auto found = client_->Query(query);
    ASSERT_OK(found);
    ASSERT_EQ(found->matches_size(), 20);
    for (int r = 0; r < 10; ++r) {
      EXPECT_THAT(found->matches(r).id(),
                  ::testing::StartsWith(absl::StrCat("topic", topic, "-")))
          << "rank " << r;
    }
  }
  // The CLI's embed gives the bytes the server stored.
  const std::string text_file = temp_.path() + "/doc.txt";
  std::mt19937 again(5);
  std::ofstream(text_file) << testing::TopicSentence(again, 0, 40);
  const testing::CommandResult cli = testing::RunBinary(
      NEARDUP_BIN, absl::StrCat("embed --model ", model_path_,
                                " --chunk-max-tokens 16 ", text_file));
  ASSERT_EQ(cli.exit_code, 0) << cli.out;
  auto stored = client_->Get("ft", "topic0-0");
  ASSERT_OK(stored);
  const nlohmann::json printed = nlohmann::json::parse(cli.out);
  EXPECT_EQ(printed["model_id"], space.model_id());
  EXPECT_EQ(printed["values"].get<std::vector<float>>(),
            std::vector<float>(stored->embedding().values().begin(),
                               stored->embedding().values().end()));
  // The CLI's query reads what embed printed (vector and model id).
  const std::string vector_file = temp_.path() + "/vector.json";
  std::ofstream(vector_file) << cli.out;
  const testing::CommandResult cli_query = testing::RunBinary(
      NEARDUP_BIN,
      absl::StrCat("query -c ft --algorithm semantic --embedding @",
                   vector_file, " --server ", server_->Address()));
  ASSERT_EQ(cli_query.exit_code, 0) << cli_query.out;
  EXPECT_THAT(cli_query.out, HasSubstr("topic0-0"));
  EXPECT_THAT(cli_query.out, HasSubstr("cosine=1.0000"));

  // A model file replaced by another model (retrained), while the server
  // runs: texts for the collection are refused, not embedded by a model
  // whose vectors mean something else.
  const std::string other_dir = temp_.path() + "/other";
  std::filesystem::create_directories(other_dir);
  std::string log;
  const std::string other =
      testing::TrainTinyFastTextModel(other_dir, &log, /*seed=*/43);
  ASSERT_FALSE(other.empty()) << log;
  std::filesystem::remove(model_path_);
  std::filesystem::copy_file(other, model_path_);
  v1::UpsertRequest after;
  after.set_collection("ft");
  after.set_id("after");
  after.set_text("t0w1 t0w2 t0w3");
  absl::Status refused = client_->Upsert(after).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(), HasSubstr(space.model_id()));
  // Not a model at all, after a restart: refused the same way.
  std::filesystem::copy_file(models_dir() + "/tiny.vec", model_path_,
                             std::filesystem::copy_options::overwrite_existing);
  ASSERT_EQ(server_->Stop(SIGTERM), 0) << Log();
  server_->Start();
  ASSERT_TRUE(server_->WaitServing()) << Log();
  refused = client_->Upsert(after).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(), HasSubstr("tiny.bin"));
  // Stored vectors still answer queries by vector.
  v1::QueryRequest by_vector;
  by_vector.set_collection("ft");
  by_vector.set_algorithm(v1::ALGORITHM_SEMANTIC);
  *by_vector.mutable_embedding() = stored->embedding();
  auto found = client_->Query(by_vector);
  ASSERT_OK(found);
  ASSERT_GE(found->matches_size(), 1);
  EXPECT_EQ(found->matches(0).id(), "topic0-0");
}

class NeardupdContentTest : public NeardupdTest {
  std::vector<std::string> ExtraFlags() override {
    return {"--pdf-timeout=0.5"};
  }
};

// HTML, Markdown and PDF documents through Upsert, Query, Get,
// Fingerprint and Compare; a hostile PDF costs one INVALID_ARGUMENT and the
// server keeps serving.
TEST_F(NeardupdContentTest, ContentTypesThroughTheServer) {
  CreateCollection("pages");
  const std::string html_text = GeneratedText(40);
  const std::string md_text = GeneratedText(41);
  const std::string pdf_line = GeneratedText(42, 12);
  auto upsert = [&](const std::string& id, const std::string& bytes,
                    const std::string& content_type) {
    v1::UpsertRequest request;
    request.set_collection("pages");
    request.set_id(id);
    request.set_text(bytes);
    request.set_content_type(content_type);
    return client_->Upsert(request);
  };
  const std::string html =
      "<html><head><title>t</title><script>var x = "
      "'junk words';</script></head><body><p>" +
      html_text + "</p></body></html>";
  ASSERT_OK(upsert("html", html, "text/html; charset=utf-8"));
  ASSERT_OK(upsert("md", "# Heading\n\n" + md_text + "\n", "text/markdown"));
  ASSERT_OK(upsert("pdf", testing::SimplePdf({pdf_line}), "application/pdf"));

  // What is stored and fingerprinted is the extracted text.
  auto stored = client_->Get("pages", "html");
  ASSERT_OK(stored);
  EXPECT_EQ(stored->text(), "t\n\n" + html_text);
  auto query = [&](const std::string& bytes, const std::string& content_type) {
    v1::QueryRequest request;
    request.set_collection("pages");
    request.set_text(bytes);
    request.set_content_type(content_type);
    request.set_explain(true);
    return client_->Query(request);
  };
  for (const auto& [probe, id] :
       std::vector<std::pair<std::string, std::string>>{
           {html_text, "html"}, {md_text, "md"}, {pdf_line, "pdf"}}) {
    auto found = query(probe, "");
    ASSERT_OK(found);
    ASSERT_GE(found->matches_size(), 1) << id;
    EXPECT_EQ(found->matches(0).id(), id);
    EXPECT_GT(found->matches(0).exact_jaccard(), 0.9) << id;
  }
  // A probe in markup is extracted too; passages are ranges of its text.
  auto by_html = query("<div><b>" + html_text + "</b></div>", "text/html");
  ASSERT_OK(by_html);
  ASSERT_GE(by_html->matches_size(), 1);
  EXPECT_EQ(by_html->matches(0).id(), "html");
  EXPECT_GT(by_html->matches(0).exact_jaccard(), 0.95);  // no title
  ASSERT_GE(by_html->matches(0).passages_size(), 1);
  EXPECT_EQ(by_html->matches(0).passages(0).probe_begin(), 0u);

  v1::FingerprintRequest fingerprint;
  fingerprint.set_text(html);
  fingerprint.set_content_type("text/html");
  auto of_html = client_->Fingerprint(fingerprint);
  fingerprint.set_text("t\n\n" + html_text);
  fingerprint.clear_content_type();
  auto of_text = client_->Fingerprint(fingerprint);
  ASSERT_OK(of_html);
  ASSERT_OK(of_text);
  EXPECT_EQ(of_html->minhash(), of_text->minhash());
  // Both sides of Compare are extracted: the script's words are not text.
  v1::CompareRequest compare;
  compare.set_a("<p>" + md_text + "</p>");
  compare.set_b("<p>" + md_text + "</p><script>" + html_text + "</script>");
  auto as_plain = client_->Compare(compare);
  compare.set_content_type("text/html");
  auto as_html = client_->Compare(compare);
  ASSERT_OK(as_plain);
  ASSERT_OK(as_html);
  EXPECT_LT(as_plain->exact_jaccard(), 0.6);
  EXPECT_EQ(as_html->exact_jaccard(), 1.0);

  // Refusals: an unknown type, a type with signatures, a hostile PDF.
  auto unknown = upsert("x", "data", "image/png");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(unknown.status().message(), HasSubstr("content_type"));
  auto not_pdf = upsert("x", "just text", "application/pdf");
  EXPECT_EQ(not_pdf.status().code(), absl::StatusCode::kInvalidArgument);
  auto bomb = upsert("bomb", testing::DeflateBombPdf(), "application/pdf");
  EXPECT_EQ(bomb.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bomb.status().message(), HasSubstr("took longer than 500ms"));
  EXPECT_EQ(client_->Get("pages", "bomb").status().code(),
            absl::StatusCode::kNotFound);
  // Still serving, with everything it had.
  auto after = query(pdf_line, "");
  ASSERT_OK(after);
  ASSERT_GE(after->matches_size(), 1);
  EXPECT_EQ(after->matches(0).id(), "pdf");
  auto collection = client_->GetCollection("pages");
  ASSERT_OK(collection);
  EXPECT_EQ(collection->document_count(), 3u);
}

}  // namespace
}  // namespace neardup
