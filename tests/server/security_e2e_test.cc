// TLS, mTLS, token authentication and limits, against the real neardupd.
// Certificates come from a CA made with openssl at test time.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "server/server_process.h"
#include "support/corpus.h"
#include "support/net.h"
#include "support/run_command.h"
#include "support/sha256.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace neardup {
namespace {

using testing::GeneratedText;
using ::testing::HasSubstr;
using testing::ServerProcess;

std::string ReadAll(const std::string& path) {
  return testing::FileContents(path);
}

// A CA, a server certificate for 127.0.0.1/localhost and a client
// certificate, all signed by the CA.
class TestPki {
 public:
  explicit TestPki(const std::string& dir) : dir_(dir) {
    Run("openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem "
        "-days 1 -subj /CN=neardup-test-ca");
    Issue("server", "subjectAltName=IP:127.0.0.1,DNS:localhost");
    Run("openssl req -x509 -newkey rsa:2048 -nodes -keyout other-ca.key "
        "-out other-ca.pem -days 1 -subj /CN=unrelated-ca");
    Issue("client", "extendedKeyUsage=clientAuth");
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

 private:
  void Issue(const std::string& name, const std::string& extension) {
    Run(absl::StrCat("openssl req -newkey rsa:2048 -nodes -keyout ", name,
                     ".key -out ", name, ".csr -subj /CN=", name));
    std::ofstream(Path(name + ".ext")) << extension << "\n";
    Run(absl::StrCat("openssl x509 -req -in ", name,
                     ".csr -CA ca.pem -CAkey ca.key -CAcreateserial -out ",
                     name, ".pem -days 1 -extfile ", name, ".ext"));
  }
  void Run(const std::string& command) {
    const std::string full =
        absl::StrCat("cd ", dir_, " && ", command, " >/dev/null 2>&1");
    ASSERT_EQ(std::system(full.c_str()), 0) << command;
  }
  std::string dir_;
};

client::ClientOptions Options(const ServerProcess& server) {
  client::ClientOptions options;
  options.target = server.Address();
  options.max_attempts = 1;
  options.timeout = std::chrono::milliseconds(5000);
  return options;
}

TEST(Security, TlsAndMutualTls) {
  neardup::testing::TempDir temp;
  TestPki pki(temp.path());
  {
    ServerProcess server(temp.path() + "/data", temp.path() + "/tls.log",
                         {"--tls-cert=" + pki.Path("server.pem"),
                          "--tls-key=" + pki.Path("server.key")},
                         /*plaintext=*/false);
    server.Start();
    ASSERT_TRUE(neardup::testing::WaitForPort(server.grpc_port()));
    client::ClientOptions tls = Options(server);
    tls.tls = true;
    tls.tls_ca_pem = ReadAll(pki.Path("ca.pem"));
    client::Client good(tls);
    auto health = good.Health();
    ASSERT_OK(health);
    EXPECT_TRUE(neardup::testing::WaitUntil(
        [&] { return good.ListCollections().ok(); }));
    client::Client plaintext(Options(server));
    EXPECT_EQ(plaintext.ListCollections().status().code(),
              absl::StatusCode::kUnavailable);
    // Connecting by IP, checking the certificate against its DNS name.
    client::ClientOptions by_name = tls;
    by_name.tls_server_name = "localhost";
    EXPECT_OK(client::Client(by_name).ListCollections());
    by_name.tls_server_name = "elsewhere.example";
    EXPECT_FALSE(client::Client(by_name).ListCollections().ok());
    client::ClientOptions wrong_ca = tls;
    wrong_ca.tls_ca_pem = ReadAll(pki.Path("other-ca.pem"));
    EXPECT_FALSE(client::Client(wrong_ca).ListCollections().ok());
  }
  ServerProcess mtls(temp.path() + "/data2", temp.path() + "/mtls.log",
                     {"--tls-cert=" + pki.Path("server.pem"),
                      "--tls-key=" + pki.Path("server.key"),
                      "--tls-client-ca=" + pki.Path("ca.pem")},
                     /*plaintext=*/false);
  mtls.Start();
  ASSERT_TRUE(neardup::testing::WaitForPort(mtls.grpc_port()));
  client::ClientOptions no_cert = Options(mtls);
  no_cert.tls = true;
  no_cert.tls_ca_pem = ReadAll(pki.Path("ca.pem"));
  EXPECT_FALSE(client::Client(no_cert).Health().ok());
  client::ClientOptions with_cert = no_cert;
  with_cert.tls_cert_pem = ReadAll(pki.Path("client.pem"));
  with_cert.tls_key_pem = ReadAll(pki.Path("client.key"));
  auto health = client::Client(with_cert).Health();
  EXPECT_OK(health);
}

TEST(Security, ServerRefusesToStartWithoutTlsOrPlaintext) {
  neardup::testing::TempDir temp;
  const std::string cmd =
      absl::StrCat(NEARDUPD_BINARY, " --data-dir ", temp.path(), "/d 2>&1");
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) out.append(buf, n);
  const int status = pclose(pipe);
  EXPECT_NE(WEXITSTATUS(status), 0);
  EXPECT_THAT(out, HasSubstr("--plaintext"));
}

constexpr const char* kAdminToken = "admin-secret-token-1";
constexpr const char* kWriterToken = "writer-secret-token-2";
constexpr const char* kReaderToken = "reader-secret-token-3";
constexpr const char* kWriteOnlyToken = "write-only-secret-token-4";
constexpr const char* kMetricsToken = "metrics-secret-token-5";

class AuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string tokens = temp_.Write(
        "tokens.yaml",
        absl::StrCat("tokens:\n"
                     "  - {name: ops, sha256: ",
                     Hash(kAdminToken),
                     ", scopes: [admin]}\n"
                     "  - {name: ingest, sha256: ",
                     Hash(kWriterToken),
                     ", scopes: [\"write:news\", \"read:news\"]}\n"
                     "  - {name: search, sha256: ",
                     Hash(kReaderToken),
                     ", scopes: [\"read:*\"]}\n"
                     "  - {name: blind, sha256: ",
                     Hash(kWriteOnlyToken),
                     ", scopes: [\"write:news\"]}\n"
                     "  - {name: prometheus, sha256: ",
                     Hash(kMetricsToken), ", scopes: [metrics]}\n"));
    server_ = std::make_unique<ServerProcess>(
        temp_.path() + "/data", temp_.path() + "/auth.log",
        std::vector<std::string>{"--auth-tokens=" + tokens});
    server_->Start();
    ASSERT_TRUE(server_->WaitServing());
    ASSERT_OK(As(kAdminToken).CreateCollection(Named("news")));
    ASSERT_OK(As(kAdminToken).CreateCollection(Named("other")));
  }

  static std::string Hash(const std::string& token) {
    // The same digest `printf %s "$TOKEN" | sha256sum` prints.
    const std::string cmd =
        absl::StrCat("printf %s '", token, "' | sha256sum | cut -c1-64");
    FILE* pipe = popen(cmd.c_str(), "r");
    char out[65] = {};
    fread(out, 1, 64, pipe);
    pclose(pipe);
    return out;
  }
  static v1::CreateCollectionRequest Named(const std::string& name) {
    v1::CreateCollectionRequest request;
    request.set_name(name);
    return request;
  }
  client::Client As(const std::string& token) {
    client::ClientOptions options = Options(*server_);
    options.token = token;
    return client::Client(options);
  }
  static v1::UpsertRequest Doc(const std::string& collection, int n) {
    v1::UpsertRequest request;
    request.set_collection(collection);
    request.set_id(absl::StrCat("d", n));
    request.set_text(GeneratedText(n, 30));
    return request;
  }

  neardup::testing::TempDir temp_;
  std::unique_ptr<ServerProcess> server_;
};

// A backup copies every collection: admin only. An export reads one
// collection: its read scope.
TEST_F(AuthTest, BackupNeedsAdminAndExportNeedsRead) {
  ASSERT_OK(As(kWriterToken).Upsert(Doc("news", 1)));
  for (const char* token : {kWriterToken, kReaderToken, kWriteOnlyToken}) {
    EXPECT_EQ(As(token).CreateBackup("b").status().code(),
              absl::StatusCode::kPermissionDenied)
        << token;
  }
  // Admitted, but this server has no --backup-dir.
  EXPECT_EQ(As(kAdminToken).CreateBackup("b").status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(As("").CreateBackup("b").status().code(),
            absl::StatusCode::kUnauthenticated);

  auto export_as = [&](const char* token, const std::string& collection) {
    v1::ExportRequest request;
    request.set_collection(collection);
    int documents = 0;
    absl::Status status =
        As(token).Export(request, [&](const v1::ExportResponse& message) {
          documents += message.documents_size();
          return absl::OkStatus();
        });
    return std::make_pair(status.code(), documents);
  };
  EXPECT_EQ(export_as(kReaderToken, "news"),
            std::make_pair(absl::StatusCode::kOk, 1));
  EXPECT_EQ(export_as(kWriterToken, "news"),
            std::make_pair(absl::StatusCode::kOk, 1));
  EXPECT_EQ(export_as(kWriterToken, "other").first,
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(export_as(kWriteOnlyToken, "news").first,
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(export_as(kReaderToken, "missing").first,
            absl::StatusCode::kNotFound);
}

// insert_only_below answers with the documents that blocked the insert:
// that is read access, so a write-only token gets only their number.
TEST_F(AuthTest, WriteOnlyTokenLearnsOnlyHowManyBlocked) {
  ASSERT_OK(As(kWriterToken).Upsert(Doc("news", 1)));
  v1::UpsertRequest copy = Doc("news", 1);
  copy.set_id("copy");
  copy.set_insert_only_below(0.8);
  auto blind = As(kWriteOnlyToken).Upsert(copy);
  ASSERT_OK(blind);
  EXPECT_FALSE(blind->written());
  EXPECT_EQ(blind->blocking_count(), 1u);
  EXPECT_EQ(blind->blocking_size(), 0);
  auto seeing = As(kWriterToken).Upsert(copy);  // write and read scope
  ASSERT_OK(seeing);
  EXPECT_FALSE(seeing->written());
  EXPECT_EQ(seeing->blocking_count(), 1u);
  ASSERT_EQ(seeing->blocking_size(), 1);
  EXPECT_EQ(seeing->blocking(0).id(), "d1");

  // The same in a stream.
  std::vector<v1::BulkUpsertResult> results;
  bool sent = false;
  ASSERT_OK(
      As(kWriteOnlyToken)
          .BulkUpsert(
              [&](v1::UpsertRequest* request) {
                if (sent) return false;
                *request = copy;
                sent = true;
                return true;
              },
              [&](const v1::BulkUpsertResult& r) { results.push_back(r); }));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].response().blocking_count(), 1u);
  EXPECT_EQ(results[0].response().blocking_size(), 0);
}

// A stream is refused when opened by a token that could not use any item
// of it, instead of holding a stream slot while each item fails.
TEST_F(AuthTest, StreamsCheckTheScopeWhenAdmitted) {
  client::Client blind = As(kWriteOnlyToken);
  const absl::Status queries = blind.BatchQuery(
      [](v1::QueryRequest*) { return false; }, [](const v1::QueryResponse&) {});
  EXPECT_EQ(queries.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(queries.message(), HasSubstr("no read scope"));
  const absl::Status upserts =
      As(kReaderToken)
          .BulkUpsert([](v1::UpsertRequest*) { return false; },
                      [](const v1::BulkUpsertResult&) {});
  EXPECT_EQ(upserts.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(upserts.message(), HasSubstr("no write scope"));
  EXPECT_OK(As(kWriterToken)
                .BatchQuery([](v1::QueryRequest*) { return false; },
                            [](const v1::QueryResponse&) {}));
}

TEST_F(AuthTest, EveryOutcome) {
  // Missing, unknown and malformed tokens: UNAUTHENTICATED.
  EXPECT_EQ(As("").ListCollections().status().code(),
            absl::StatusCode::kUnauthenticated);
  auto unknown = As("guess").ListCollections();
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(unknown.status().message(), HasSubstr("invalid token"));

  // Valid tokens without the scope: PERMISSION_DENIED, naming the scope.
  auto denied = As(kWriterToken).CreateCollection(Named("x"));
  EXPECT_EQ(denied.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(denied.status().message(), HasSubstr("admin"));
  EXPECT_OK(As(kWriterToken).Upsert(Doc("news", 1)));
  auto other = As(kWriterToken).Upsert(Doc("other", 1));
  EXPECT_EQ(other.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(other.status().message(), HasSubstr("write:other"));
  EXPECT_EQ(As(kReaderToken).Upsert(Doc("news", 2)).status().code(),
            absl::StatusCode::kPermissionDenied);
  v1::QueryRequest query;
  query.set_collection("news");
  query.set_text(GeneratedText(1, 30));
  auto found = As(kReaderToken).Query(query);
  ASSERT_OK(found);
  EXPECT_EQ(found->matches_size(), 1);
  EXPECT_OK(As(kWriterToken).Query(query));
  query.set_collection("other");
  EXPECT_EQ(As(kWriterToken).Query(query).status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_OK(As(kReaderToken).ListCollections());
  EXPECT_EQ(As(kWriterToken).ListCollections().status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(As(kWriterToken).Compare(v1::CompareRequest()).status().code() ==
              absl::StatusCode::kInvalidArgument);  // allowed, then bad input

  // Streams: the token is checked at the start, scopes per item.
  int n = 0;
  std::vector<int> codes;
  ASSERT_OK(As(kWriterToken)
                .BulkUpsert(
                    [&](v1::UpsertRequest* request) {
                      if (n >= 4) return false;
                      *request = Doc(n % 2 ? "other" : "news", 10 + n);
                      ++n;
                      return true;
                    },
                    [&](const v1::BulkUpsertResult& r) {
                      codes.push_back(r.code());
                    }));
  EXPECT_EQ(codes, (std::vector<int>{0, 7, 0, 7}));
  n = 0;
  const absl::Status refused = As("").BulkUpsert(
      [&](v1::UpsertRequest* request) {
        if (n++ >= 1) return false;
        *request = Doc("news", 99);
        return true;
      },
      [](const v1::BulkUpsertResult&) {});
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnauthenticated);

  // Health needs no token; /metrics asks for one with scope metrics (and
  // only that) as the basic-auth password; tokens never reach the log.
  EXPECT_OK(As("").Health());
  auto metrics = [&](const std::string& token) {
    return neardup::testing::HttpGet(
        server_->metrics_port(), "/metrics",
        token.empty()
            ? ""
            : absl::StrCat("Authorization: Basic ",
                           absl::Base64Escape("prometheus:" + token), "\r\n"));
  };
  EXPECT_THAT(metrics(""), ::testing::Not(HasSubstr("neardup_rpcs_total")));
  EXPECT_THAT(metrics(kReaderToken),
              ::testing::Not(HasSubstr("neardup_rpcs_total")));
  EXPECT_THAT(metrics("not-a-token"),
              ::testing::Not(HasSubstr("neardup_rpcs_total")));
  EXPECT_THAT(metrics(kAdminToken),
              ::testing::Not(HasSubstr("neardup_rpcs_total")));
  EXPECT_THAT(metrics(kMetricsToken), HasSubstr("neardup_rpcs_total"));
  const std::string log = ReadAll(temp_.path() + "/auth.log");
  EXPECT_THAT(log, HasSubstr("authentication on: 5 tokens"));
  for (const char* token : {kAdminToken, kWriterToken, kReaderToken,
                            kWriteOnlyToken, kMetricsToken}) {
    EXPECT_THAT(log, ::testing::Not(HasSubstr(token)));
  }
}

TEST(Limits, FloodFromOneClientDoesNotStarveAnother) {
  neardup::testing::TempDir temp;
  ServerProcess server(
      temp.path() + "/data", temp.path() + "/flood.log",
      {"--workers=1", "--max-calls-per-client=4", "--max-queued-requests=64"});
  server.Start();
  ASSERT_TRUE(server.WaitServing());
  client::Client admin(Options(server));
  v1::CreateCollectionRequest create;
  create.set_name("f");
  ASSERT_OK(admin.CreateCollection(create));
  for (int i = 0; i < 20; ++i) {
    v1::UpsertRequest doc;
    doc.set_collection("f");
    doc.set_id(absl::StrCat(i));
    doc.set_text(GeneratedText(i, 200));
    ASSERT_OK(admin.Upsert(doc));
  }
  v1::QueryRequest query;
  query.set_collection("f");
  query.set_text(GeneratedText(3, 200));

  // One channel (one connection) with 16 threads writing flat out (writes
  // always go through the worker pool).
  client::Client flooder(Options(server));
  std::atomic<bool> stop{false};
  std::atomic<int> flood_ok{0}, flood_refused{0}, next_id{1000};
  std::vector<std::thread> flood;
  for (int t = 0; t < 16; ++t) {
    flood.emplace_back([&] {
      v1::UpsertRequest doc;
      doc.set_collection("f");
      doc.set_text(GeneratedText(7, 200));
      while (!stop) {
        doc.set_id(absl::StrCat(next_id++));
        auto r = flooder.Upsert(doc);
        if (r.ok()) {
          ++flood_ok;
        } else if (r.status().code() == absl::StatusCode::kResourceExhausted) {
          ++flood_refused;
        }
      }
    });
  }
  // The flood is on once the per-client limit has refused a call.
  ASSERT_TRUE(neardup::testing::WaitUntil([&] { return flood_refused > 0; }));
  client::Client victim(Options(server));
  int victim_ok = 0;
  for (int i = 0; i < 30; ++i) {
    v1::UpsertRequest doc;
    doc.set_collection("f");
    doc.set_id(absl::StrCat("victim", i));
    doc.set_text(GeneratedText(500 + i, 200));
    victim_ok += victim.Upsert(doc).ok();
    victim_ok += victim.Query(query).ok() ? 0 : -100;
  }
  stop = true;
  for (auto& t : flood) t.join();
  EXPECT_EQ(victim_ok, 30);
  EXPECT_GT(flood_ok.load(), 0);
  EXPECT_GT(flood_refused.load(), 0);  // the per-client limit did engage
}

TEST(Limits, StreamsAndItemsAreBounded) {
  neardup::testing::TempDir temp;
  ServerProcess server(temp.path() + "/data", temp.path() + "/streams.log",
                       {"--max-concurrent-streams=2", "--max-stream-items=5"});
  server.Start();
  ASSERT_TRUE(server.WaitServing());
  client::Client client(Options(server));
  v1::CreateCollectionRequest create;
  create.set_name("s");
  ASSERT_OK(client.CreateCollection(create));

  // Items count, not messages: in messages of 2 items, the first two
  // messages (4 items) are answered and the third, which would carry the
  // stream past 5 items, ends it.
  int n = 0;
  int answered = 0;
  client::Client::BulkOptions pairs;
  pairs.max_items = 2;
  const absl::Status too_many = client.BulkUpsert(
      [&](v1::UpsertRequest* request) {
        if (n >= 10) return false;
        request->set_collection("s");
        request->set_id(absl::StrCat(n));
        request->set_text(GeneratedText(n++, 30));
        return true;
      },
      [&](const v1::BulkUpsertResult& r) { answered += r.code() == 0; }, pairs);
  EXPECT_EQ(too_many.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(too_many.message(), HasSubstr("--max-stream-items"));
  EXPECT_EQ(answered, 4);

  grpc::ClientContext c1, c2, c3;
  auto s1 = client.stub().BulkUpsert(&c1);
  auto s2 = client.stub().BulkUpsert(&c2);
  // An answered item proves the server admitted a stream (and holds its
  // slot): no guessing how long admission takes.
  for (auto* stream : {s1.get(), s2.get()}) {
    v1::BulkUpsertRequest one;
    v1::UpsertRequest* item = one.add_items();
    item->set_collection("s");
    item->set_id("probe");
    item->set_text("a probe that proves the stream was admitted");
    ASSERT_TRUE(stream->Write(one));
    v1::BulkUpsertResponse answer;
    ASSERT_TRUE(stream->Read(&answer));
    ASSERT_EQ(answer.results_size(), 1);
  }
  auto s3 = client.stub().BulkUpsert(&c3);
  s3->WritesDone();
  const grpc::Status third = s3->Finish();
  EXPECT_EQ(third.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(third.error_message(), HasSubstr("--max-concurrent-streams"));
  s1->WritesDone();
  s2->WritesDone();
  EXPECT_TRUE(s1->Finish().ok());
  EXPECT_TRUE(s2->Finish().ok());
  // Slots are given back: a new stream is admitted.
  grpc::ClientContext c4;
  auto s4 = client.stub().BulkUpsert(&c4);
  s4->WritesDone();
  EXPECT_TRUE(s4->Finish().ok());
}

}  // namespace
}  // namespace neardup

namespace neardup {
namespace {

// Over TLS a token is checked on the call's headers: a bad or missing one is
// refused before the body is read, so the service never sees the call.
TEST(Security, TokensAreCheckedBeforeTheBodyOverTls) {
  neardup::testing::TempDir temp;
  TestPki pki(temp.path());
  auto hash = [](const std::string& token) {
    return neardup::testing::Sha256Hex(token);
  };
  const std::string tokens = temp.Write(
      "tokens.yaml",
      absl::StrCat("tokens:\n  - {name: ops, sha256: ", hash("good-token"),
                   ", scopes: [admin]}\n  - {name: prom, sha256: ",
                   hash("metrics-token"), ", scopes: [metrics]}\n"));
  ServerProcess server(
      temp.path() + "/data", temp.path() + "/tls.log",
      {"--tls-cert=" + pki.Path("server.pem"),
       "--tls-key=" + pki.Path("server.key"), "--auth-tokens=" + tokens},
      /*plaintext=*/false);
  server.Start();
  ASSERT_TRUE(neardup::testing::WaitForPort(server.grpc_port()));
  auto as = [&](const std::string& token) {
    client::ClientOptions options = Options(server);
    options.tls = true;
    options.tls_ca_pem = ReadAll(pki.Path("ca.pem"));
    options.token = token;
    return client::Client(options);
  };
  ASSERT_TRUE(neardup::testing::WaitUntil(
      [&] { return as("good-token").ListCollections().ok(); }));
  v1::UpsertRequest big;
  big.set_collection("anything");
  big.set_id("x");
  big.set_text(std::string(8 << 20, 'a'));
  for (const char* token : {"wrong-token", ""}) {
    const absl::Status refused = as(token).Upsert(big).status();
    EXPECT_EQ(refused.code(), absl::StatusCode::kUnauthenticated) << token;
  }
  EXPECT_OK(as("").Health());  // health needs no token
  // The service never saw those calls: it counts every call it refuses.
  const std::string metrics = neardup::testing::HttpGet(
      server.metrics_port(), "/metrics",
      absl::StrCat("Authorization: Basic ",
                   absl::Base64Escape("prometheus:metrics-token"), "\r\n"));
  EXPECT_THAT(metrics, HasSubstr("neardup_rpcs_total{code=\"UNAUTHENTICATED\","
                                 "method=\"Upsert\",protocol=\"grpc\"} 0"));
}

}  // namespace
}  // namespace neardup
