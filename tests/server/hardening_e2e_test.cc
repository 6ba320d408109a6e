// Hostile requests against the real neardupd: Markdown tables that ask for
// gigabytes, PDFs that keep their parser busy, extraction by a token without
// scopes, and streams that stop reading their answers, all at once. The
// server must stay up, keep its memory and answer an admin within a second
// throughout.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"
#include "server/server_process.h"
#include "support/corpus.h"
#include "support/hostile_inputs.h"
#include "support/net.h"
#include "support/sha256.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace neardup {
namespace {

using Clock = std::chrono::steady_clock;
using testing::ServerProcess;

constexpr const char* kAdminToken = "hardening-admin-token";
constexpr const char* kReaderToken = "hardening-reader-token";
constexpr const char* kNoScopeToken = "hardening-no-scope-token";
constexpr const char* kMetricsToken = "hardening-metrics-token";

// Peak resident memory of a process (VmHWM), in bytes.
size_t PeakRss(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("VmHWM:")) {
      return std::stoull(line.substr(6)) * 1024;
    }
  }
  return 0;
}

class Hardening : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string tokens = temp_.Write(
        "tokens.yaml",
        absl::StrCat("tokens:\n  - {name: ops, sha256: ",
                     testing::Sha256Hex(kAdminToken),
                     ", scopes: [admin]}\n  - {name: search, sha256: ",
                     testing::Sha256Hex(kReaderToken),
                     ", scopes: [\"read:*\"]}\n  - {name: nobody, sha256: ",
                     testing::Sha256Hex(kNoScopeToken),
                     ", scopes: []}\n  - {name: prometheus, sha256: ",
                     testing::Sha256Hex(kMetricsToken),
                     ", scopes: [metrics]}\n"));
    server_ = std::make_unique<ServerProcess>(
        temp_.path() + "/data", temp_.path() + "/server.log",
        std::vector<std::string>{"--auth-tokens=" + tokens,
                                 "--stream-idle-seconds=2",
                                 "--extract-workers=2", "--extract-timeout=5"});
    server_->Start();
    ASSERT_TRUE(server_->WaitServing());
    v1::CreateCollectionRequest create;
    create.set_name("docs");
    create.mutable_config()->set_store_text(true);
    ASSERT_OK(As(kAdminToken).CreateCollection(create));
    // Near-copies with large metadata: queries with big answers.
    client::Client admin = As(kAdminToken);
    const std::string base = testing::GeneratedText(1, 200);
    for (int i = 0; i < 300; ++i) {
      v1::UpsertRequest doc;
      doc.set_collection("docs");
      doc.set_id(absl::StrCat("d", i));
      doc.set_text(absl::StrCat(base, " variant ", i));
      (*doc.mutable_metadata())["blob"] = std::string(2000, 'm');
      ASSERT_OK(admin.Upsert(doc));
    }
  }

  client::Client As(
      const std::string& token,
      std::chrono::milliseconds timeout = std::chrono::milliseconds(20000)) {
    client::ClientOptions options;
    options.target = server_->Address();
    options.max_attempts = 1;
    options.timeout = timeout;
    options.token = token;
    return client::Client(options);
  }

  testing::TempDir temp_;
  std::unique_ptr<ServerProcess> server_;
};

TEST_F(Hardening, AttacksNeitherKillNorFreezeTheServer) {
  std::atomic<bool> stop{false};
  std::vector<std::thread> attackers;
  std::atomic<int> attacks{0}, permission_denied{0};

  // Unary attacks with a reader token, in a loop.
  auto attack = [&](v1::QueryRequest probe) {
    attackers.emplace_back([&, probe] {
      client::Client reader = As(kReaderToken);
      while (!stop) {
        (void)reader.Query(probe);
        ++attacks;
      }
    });
  };
  v1::QueryRequest table;
  table.set_collection("docs");
  table.set_content_type("text/markdown");
  table.set_text(testing::GfmTable(4000, 8000));
  for (int i = 0; i < 3; ++i) attack(table);
  v1::QueryRequest wide = table;
  wide.set_text(testing::GfmTable(2000, 30000));
  for (int i = 0; i < 3; ++i) attack(wide);
  v1::QueryRequest pdf;
  pdf.set_collection("docs");
  pdf.set_content_type("application/pdf");
  pdf.set_text(testing::DeflateBombPdf());
  for (int i = 0; i < 12; ++i) attack(pdf);
  v1::QueryRequest html;
  html.set_collection("docs");
  html.set_content_type("text/html");
  html.set_explain(true);
  html.set_text(testing::HostileHtml()[0].bytes);
  attack(html);
  // Fingerprints of PDFs by a token without scopes: refused. (The PDF is
  // made here, once: making it takes seconds of CPU.)
  v1::FingerprintRequest scopeless;
  scopeless.set_content_type("application/pdf");
  scopeless.set_text(pdf.text());
  attackers.emplace_back([&, scopeless] {
    client::Client nobody = As(kNoScopeToken);
    const v1::FingerprintRequest& request = scopeless;
    while (!stop) {
      if (nobody.Fingerprint(request).status().code() ==
          absl::StatusCode::kPermissionDenied) {
        ++permission_denied;
      }
    }
  });
  // Streams that ask for large answers and never read them.
  for (int s = 0; s < 2; ++s) {
    attackers.emplace_back([&] {
      client::Client reader = As(kReaderToken);
      grpc::ClientContext context;
      context.AddMetadata("authorization",
                          absl::StrCat("Bearer ", kReaderToken));
      context.set_deadline(std::chrono::system_clock::now() +
                           std::chrono::seconds(60));
      auto stream = reader.stub().BatchQuery(&context);
      v1::QueryRequest big;
      big.set_collection("docs");
      big.set_text(testing::GeneratedText(1, 200));
      big.set_top_k(1000);
      big.set_include_metadata(true);
      for (int i = 0; i < 500 && !stop; ++i) {
        if (!stream->Write(big)) break;  // the server ended the stream
      }
      while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      context.TryCancel();
      (void)stream->Finish();
    });
  }

  // The admin's view, every 100 ms for 12 s.
  client::Client admin = As(kAdminToken, std::chrono::milliseconds(2000));
  double worst_get = 0, worst_health = 0;
  int admin_failures = 0, probes = 0;
  const auto until = Clock::now() + std::chrono::seconds(12);
  while (Clock::now() < until) {
    auto start = Clock::now();
    if (!admin.GetCollection("docs").ok()) ++admin_failures;
    worst_get = std::max(
        worst_get, std::chrono::duration<double>(Clock::now() - start).count());
    start = Clock::now();
    if (!admin.Health().ok()) ++admin_failures;
    worst_health =
        std::max(worst_health,
                 std::chrono::duration<double>(Clock::now() - start).count());
    ++probes;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // The server ended both stalled streams itself (write stall over 2 s).
  const std::string metrics = testing::HttpGet(
      server_->metrics_port(), "/metrics",
      absl::StrCat(
          "Authorization: Basic ",
          absl::Base64Escape(absl::StrCat("prometheus:", kMetricsToken)),
          "\r\n"));
  stop = true;
  for (std::thread& t : attackers) t.join();

  const size_t peak = PeakRss(server_->pid());
  std::printf(
      "attacks sent: %d; admin probes: %d, failed: %d; slowest GetCollection "
      "%.3f s, slowest health check %.3f s; server peak RSS %.0f MiB\n",
      attacks.load(), probes, admin_failures, worst_get, worst_health,
      static_cast<double>(peak) / (1 << 20));
  EXPECT_EQ(kill(server_->pid(), 0), 0) << "neardupd is gone";
  EXPECT_EQ(admin_failures, 0);
  EXPECT_LT(worst_get, 1.0);
  EXPECT_LT(worst_health, 1.0);
  EXPECT_GT(permission_denied.load(), 0);
  EXPECT_THAT(metrics, ::testing::HasSubstr(
                           "neardup_rpcs_total{code=\"DEADLINE_EXCEEDED\","
                           "method=\"BatchQuery\",protocol=\"grpc\"} 2"));
  EXPECT_LT(peak, size_t{2500} << 20);
  // Still serving what it serves.
  v1::QueryRequest plain;
  plain.set_collection("docs");
  plain.set_text(testing::GeneratedText(1, 200));
  ASSERT_OK_AND_ASSIGN(v1::QueryResponse answer, admin.Query(plain));
  EXPECT_GT(answer.matches_size(), 0);
}

}  // namespace
}  // namespace neardup

namespace neardup {
namespace {

// Items of one stream that need extraction run one at a time and share the
// stream's extraction slot: a stream of them is answered whole, however many
// the window holds at once.
TEST_F(Hardening, StreamsOfMarkupAreAnsweredWhole) {
  client::Client reader = As(kReaderToken);
  int sent = 0, answered = 0;
  const std::string base = testing::GeneratedText(1, 200);
  ASSERT_OK(reader.BatchQuery(
      [&](v1::QueryRequest* probe) {
        if (sent == 40) return false;
        probe->set_collection("docs");
        probe->set_content_type(sent % 2 == 0 ? "text/markdown" : "text/html");
        probe->set_text(sent % 2 == 0 ? absl::StrCat("# Title\n\n", base)
                                      : absl::StrCat("<p>", base, "</p>"));
        ++sent;
        return true;
      },
      [&](const v1::QueryResponse& response) {
        EXPECT_GT(response.matches_size(), 0);
        ++answered;
      }));
  EXPECT_EQ(answered, 40);

  client::Client admin = As(kAdminToken);
  int items = 0, written = 0;
  client::Client::BulkOptions bulk;
  bulk.max_items = 3;  // many messages in flight at once
  ASSERT_OK(admin.BulkUpsert(
      [&](v1::UpsertRequest* item) {
        if (items == 30) return false;
        item->set_collection("docs");
        item->set_id(absl::StrCat("markup", items));
        item->set_content_type("text/html");
        item->set_text(
            absl::StrCat("<p>", testing::GeneratedText(items + 100), "</p>"));
        ++items;
        return true;
      },
      [&](const v1::BulkUpsertResult& result) {
        EXPECT_EQ(result.code(), 0) << result.message();
        if (result.code() == 0) ++written;
      },
      bulk));
  EXPECT_EQ(written, 30);
}

}  // namespace
}  // namespace neardup

namespace neardup {
namespace {

// An export pins a store snapshot while it runs: one read too slowly is
// ended, while a client that reads is served whole.
TEST(HardeningExport, SlowReaderIsEnded) {
  testing::TempDir temp;
  ServerProcess server(
      temp.path() + "/data", temp.path() + "/server.log",
      {"--stream-idle-seconds=2", "--export-min-bytes-per-second=20000000"});
  server.Start();
  ASSERT_TRUE(server.WaitServing());
  client::ClientOptions options;
  options.target = server.Address();
  options.max_attempts = 1;
  client::Client client(options);
  v1::CreateCollectionRequest create;
  create.set_name("big");
  create.mutable_config()->set_store_text(true);
  ASSERT_OK(client.CreateCollection(create));
  int n = 0;
  ASSERT_OK(client.BulkUpsert(
      [&](v1::UpsertRequest* item) {
        if (n == 400) return false;
        item->set_collection("big");
        item->set_id(absl::StrCat("d", n));
        item->set_text(testing::GeneratedText(n, 8000));  // ~50 KB
        ++n;
        return true;
      },
      [](const v1::BulkUpsertResult& result) { ASSERT_EQ(result.code(), 0); }));

  // A reader whose window stays small: without it, gRPC's flow control
  // (BDP probing) would let most of the export sit in the client's buffers
  // before the server ever waits, and how much is not ours to pin.
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 64 * 1024);
  args.SetMaxReceiveMessageSize(64 << 20);
  auto stub = v1::NearDup::NewStub(grpc::CreateCustomChannel(
      server.Address(), grpc::InsecureChannelCredentials(), args));
  grpc::ClientContext context;
  v1::ExportRequest request;
  request.set_collection("big");
  auto reader = stub->Export(&context, request);
  v1::ExportResponse message;
  int documents = 0;
  while (reader->Read(&message)) {
    documents += message.documents_size();
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  const grpc::Status status = reader->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED)
      << status.error_message();
  EXPECT_THAT(status.error_message(),
              ::testing::HasSubstr("--export-min-bytes-per-second"));
  // ~2 MB/s read against 20 MB/s asked: ended after the 2 s grace, with
  // roughly a third of the ~20 MB read.
  EXPECT_LT(documents, n / 2);
}

}  // namespace
}  // namespace neardup

namespace neardup {
namespace {

// A document whose shingle set would not fit in one message is exported
// without it, and says so, instead of failing the export forever.
TEST(HardeningExport, OversizedShingleSetIsLeftOutAndNamed) {
  testing::TempDir temp;
  ServerProcess server(
      temp.path() + "/data", temp.path() + "/server.log",
      {"--max-message-bytes=262144", "--max-document-bytes=200000"});
  server.Start();
  ASSERT_TRUE(server.WaitServing());
  client::ClientOptions options;
  options.target = server.Address();
  options.max_attempts = 1;
  client::Client client(options);
  v1::CreateCollectionRequest create;
  create.set_name("c");
  create.mutable_config()->set_store_text(true);  // text + set: over 256 KB
  ASSERT_OK(client.CreateCollection(create));
  for (const auto& [id, words] : std::vector<std::pair<std::string, int>>{
           {"small", 200}, {"large", 24000}}) {
    v1::UpsertRequest doc;
    doc.set_collection("c");
    doc.set_id(id);
    doc.set_text(testing::GeneratedText(words, words).substr(0, 190000));
    ASSERT_OK(client.Upsert(doc));
  }
  grpc::ClientContext context;
  v1::ExportRequest request;
  request.set_collection("c");
  request.set_with_signatures(true);
  auto reader = client.stub().Export(&context, request);
  v1::ExportResponse message;
  std::map<std::string, bool> has_set;
  std::vector<std::string> left_out;
  while (reader->Read(&message)) {
    for (const v1::Document& doc : message.documents()) {
      has_set[doc.id()] = !doc.signatures().shingle_set().empty();
      EXPECT_FALSE(doc.signatures().minhash().empty()) << doc.id();
    }
    for (const std::string& id : message.shingle_set_left_out()) {
      left_out.push_back(id);
    }
  }
  const grpc::Status status = reader->Finish();
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(has_set["small"]);
  EXPECT_FALSE(has_set["large"]);
  EXPECT_EQ(left_out, std::vector<std::string>{"large"});
}

}  // namespace
}  // namespace neardup
