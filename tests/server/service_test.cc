// The server in-process: availability while starting and stopping, health
// transitions, and the worker-pool limit.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "neardup/client/client.h"
#include "neardup/engine/database.h"
#include "neardup/server/server.h"
#include "storage/raw_db.h"
#include "support/corpus.h"
#include "support/net.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace neardup::server {
namespace {

using grpc::health::v1::HealthCheckResponse;
using ::testing::HasSubstr;

ServerConfig TestConfig(const std::string& dir) {
  ServerConfig config;
  config.listen_address = "127.0.0.1:0";  // the kernel picks
  config.metrics_address = "";
  config.data_dir = dir;
  config.block_cache_bytes = size_t{16} << 20;
  config.plaintext = true;
  return config;
}

client::ClientOptions ClientFor(const NeardupServer& server) {
  client::ClientOptions options;
  options.target = absl::StrCat("127.0.0.1:", server.grpc_port());
  options.max_attempts = 1;  // see UNAVAILABLE instead of retrying it
  return options;
}

TEST(NeardupServer, NotServingWhileRebuildingThenServing) {
  neardup::testing::TempDir temp;
  ServerConfig config = TestConfig(temp.path() + "/db");
  config.open_delay_for_tests = std::chrono::milliseconds(1500);
  auto server = NeardupServer::Start(config);
  ASSERT_OK(server);
  client::Client client(ClientFor(**server));
  auto health = client.Health();
  ASSERT_OK(health);
  EXPECT_EQ(*health, HealthCheckResponse::NOT_SERVING);
  // Database calls are refused with a reason; stateless ones work.
  auto list = client.ListCollections();
  EXPECT_EQ(list.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(list.status().message(), HasSubstr("starting"));
  v1::FingerprintRequest fingerprint;
  fingerprint.set_text("the quick brown fox jumps over the lazy dog");
  EXPECT_OK(client.Fingerprint(fingerprint));

  ASSERT_TRUE(
      neardup::testing::WaitUntil([&] { return (*server)->serving(); }));
  EXPECT_EQ(*client.Health(), HealthCheckResponse::SERVING);
  EXPECT_OK(client.ListCollections());

  (*server)->Shutdown();
  EXPECT_OK((*server)->Wait());
  EXPECT_FALSE(client.ListCollections().ok());
}

TEST(NeardupServer, ClientRetriesUnavailableUntilServing) {
  neardup::testing::TempDir temp;
  ServerConfig config = TestConfig(temp.path() + "/db");
  config.open_delay_for_tests = std::chrono::milliseconds(300);
  auto server = NeardupServer::Start(config);
  ASSERT_OK(server);
  client::ClientOptions options = ClientFor(**server);
  options.max_attempts = 20;
  options.initial_backoff = std::chrono::milliseconds(50);
  client::Client client(options);
  EXPECT_OK(client.ListCollections());  // retried past the rebuild
}

TEST(NeardupServer, StoreThatCannotOpenStopsTheServerWithTheReason) {
  neardup::testing::TempDir temp;
  // A regular file where the data directory should be.
  ServerConfig config = TestConfig(temp.Write("not-a-dir", "x"));
  auto server = NeardupServer::Start(config);
  ASSERT_OK(server);
  const absl::Status status = (*server)->Wait();
  EXPECT_FALSE(status.ok());
}

void WaitUntilServing(const NeardupServer& server) {
  ASSERT_TRUE(neardup::testing::WaitUntil([&] { return server.serving(); }));
}

// The critical reproduction: bands x rows = 128 x 33554433 wraps to 128 in
// 32-bit arithmetic. It was accepted, the next query killed the process and
// every later start crashed in the rebuild.
TEST(NeardupServer, BandingThatWrapsIsRefusedAndTheServerKeepsServing) {
  neardup::testing::TempDir temp;
  auto server = NeardupServer::Start(TestConfig(temp.path() + "/db"));
  ASSERT_OK(server);
  WaitUntilServing(**server);
  client::Client client(ClientFor(**server));
  for (auto [bands, rows] : {std::pair<uint32_t, uint32_t>{128, 33554433},
                             {33554433, 128},
                             {4294967295u, 4294967295u}}) {
    v1::CreateCollectionRequest request;
    request.set_name("wrap");
    request.mutable_config()->set_num_perm(128);
    request.mutable_config()->set_bands(bands);
    request.mutable_config()->set_rows(rows);
    const auto created = client.CreateCollection(request);
    EXPECT_EQ(created.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(created.status().message(), HasSubstr("config."));
  }
  v1::CreateCollectionRequest fine;
  fine.set_name("fine");
  ASSERT_OK(client.CreateCollection(fine));
  v1::QueryRequest query;
  query.set_collection("fine");
  query.set_text("the quick brown fox jumps over the lazy dog again");
  EXPECT_OK(client.Query(query));
}

// A store holding such a record (planted under the Store) starts, serves
// its other collections, names the bad one in Stats and lets it be dropped.
TEST(NeardupServer, QuarantinedCollectionDoesNotStopTheOthers) {
  neardup::testing::TempDir temp;
  const std::string dir = temp.path() + "/db";
  const std::string text = neardup::testing::GeneratedText(1, 80);
  {
    auto db = engine::Database::Open(dir);
    ASSERT_OK(db);
    for (const char* name : {"good", "bad"}) {
      auto collection = (*db)->CreateCollection(name, {});
      ASSERT_OK(collection);
      auto write = (*collection)->PrepareText("d1", text, {});
      ASSERT_OK(write);
      ASSERT_OK((*collection)->Apply(*write));
    }
  }
  storage::testing::EditCollectionRecord(dir, "bad",
                                         [](storage::CollectionRecord& record) {
                                           record.config.lsh = {128, 33554433};
                                         });

  auto server = NeardupServer::Start(TestConfig(dir));
  ASSERT_OK(server);
  WaitUntilServing(**server);
  client::Client client(ClientFor(**server));
  v1::QueryRequest query;
  query.set_collection("good");
  query.set_text(text);
  auto found = client.Query(query);
  ASSERT_OK(found);
  EXPECT_EQ(found->matches_size(), 1);
  query.set_collection("bad");
  const auto refused = client.Query(query);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(), HasSubstr("'bad' is quarantined"));
  auto stats = client.Stats();
  ASSERT_OK(stats);
  ASSERT_EQ(stats->quarantined_size(), 1);
  EXPECT_EQ(stats->quarantined(0).name(), "bad");
  EXPECT_THAT(stats->quarantined(0).reason(), HasSubstr("bands x rows"));

  ASSERT_OK(client.DropCollection("bad"));
  stats = client.Stats();
  ASSERT_OK(stats);
  EXPECT_EQ(stats->quarantined_size(), 0);
  EXPECT_EQ(client.Query(query).status().code(), absl::StatusCode::kNotFound);
}

// The ordered stream reactor: results in request order with per-item
// errors (BulkUpsert); a failing probe ends BatchQuery after the responses
// before it.
TEST(NeardupServer, StreamsKeepOrderAndReportErrors) {
  neardup::testing::TempDir temp;
  ServerConfig config = TestConfig(temp.path() + "/db");
  config.worker_threads = 3;
  auto server = NeardupServer::Start(config);
  ASSERT_OK(server);
  client::ClientOptions options = ClientFor(**server);
  options.max_attempts = 50;
  client::Client client(options);
  v1::CreateCollectionRequest create;
  create.set_name("s");
  ASSERT_OK(client.CreateCollection(create));

  constexpr int kItems = 400;
  int next = 0;
  std::vector<v1::BulkUpsertResult> results;
  const absl::Status status = client.BulkUpsert(
      [&](v1::UpsertRequest* request) {
        if (next >= kItems) return false;
        request->set_collection("s");
        request->set_id(absl::StrCat("d", next));
        // Every 50th item is empty: it fails alone.
        request->set_text(
            next % 50 == 7 ? "" : neardup::testing::GeneratedText(next, 30));
        ++next;
        return true;
      },
      [&](const v1::BulkUpsertResult& result) { results.push_back(result); });
  ASSERT_OK(status);
  ASSERT_EQ(results.size(), size_t{kItems});
  for (int i = 0; i < kItems; ++i) {
    EXPECT_EQ(results[i].index(), uint64_t(i));
    if (i % 50 == 7) {
      EXPECT_EQ(results[i].code(), int(absl::StatusCode::kInvalidArgument));
      EXPECT_THAT(results[i].message(), HasSubstr("empty document"));
    } else {
      EXPECT_EQ(results[i].code(), 0) << results[i].message();
      EXPECT_EQ(results[i].response().id(), absl::StrCat("d", i));
    }
  }

  grpc::ClientContext context;
  auto stream = client.stub().BatchQuery(&context);
  for (int i = 0; i < 30; ++i) {
    v1::QueryRequest query;
    query.set_collection(i == 20 ? "absent" : "s");
    query.set_text(neardup::testing::GeneratedText(i, 30));
    // The stream cannot end before the failing probe (20) arrives; after
    // it, the server may have ended it already and a write may fail.
    const bool written = stream->Write(query);
    if (i <= 20) {
      ASSERT_TRUE(written) << i;
    }
    if (!written) break;
  }
  stream->WritesDone();
  std::vector<v1::QueryResponse> responses;
  v1::QueryResponse response;
  while (stream->Read(&response)) responses.push_back(response);
  const grpc::Status finished = stream->Finish();
  EXPECT_EQ(finished.error_code(), grpc::StatusCode::NOT_FOUND);
  ASSERT_EQ(responses.size(), 20u);  // the ones before the failing probe
  for (int i = 0; i < 20; ++i) {
    if (i % 50 == 7) continue;
    ASSERT_GE(responses[i].matches_size(), 1) << i;
    EXPECT_EQ(responses[i].matches(0).id(), absl::StrCat("d", i));
  }
}

// #17 point 5: a stream cannot be parked. An idle stream is ended, and one
// client cannot hold more than its share of stream slots.
TEST(NeardupServer, IdleStreamsEndAndEachClientHasAStreamLimit) {
  neardup::testing::TempDir temp;
  ServerConfig config = TestConfig(temp.path() + "/db");
  config.stream_idle_seconds = 0.4;
  config.max_streams_per_client = 2;
  auto server = NeardupServer::Start(config);
  ASSERT_OK(server);
  ASSERT_TRUE(
      neardup::testing::WaitUntil([&] { return (*server)->serving(); }));
  client::Client client(ClientFor(**server));
  v1::CreateCollectionRequest create;
  create.set_name("s");
  ASSERT_OK(client.CreateCollection(create));
  v1::QueryRequest query;
  query.set_collection("s");
  query.set_text(neardup::testing::GeneratedText(1, 30));
  v1::QueryResponse response;

  // Two streams, each answered once (so both are admitted), then idle.
  grpc::ClientContext c1, c2, c3, c4;
  auto s1 = client.stub().BatchQuery(&c1);
  auto s2 = client.stub().BatchQuery(&c2);
  for (auto* s : {s1.get(), s2.get()}) {
    ASSERT_TRUE(s->Write(query));
    ASSERT_TRUE(s->Read(&response));
  }
  // A third from the same client is refused while they are open.
  auto s3 = client.stub().BatchQuery(&c3);
  EXPECT_FALSE(s3->Read(&response));
  const grpc::Status refused = s3->Finish();
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(), HasSubstr("--max-streams-per-client"));

  // The idle ones are ended by the server (Read returns when it does).
  const auto start = std::chrono::steady_clock::now();
  for (auto* s : {s1.get(), s2.get()}) {
    EXPECT_FALSE(s->Read(&response));
    const grpc::Status ended = s->Finish();
    EXPECT_EQ(ended.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
    EXPECT_THAT(ended.error_message(), HasSubstr("--stream-idle-seconds"));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));

  // Their slots are free again: a new stream works to the end.
  auto s4 = client.stub().BatchQuery(&c4);
  ASSERT_TRUE(s4->Write(query));
  ASSERT_TRUE(s4->Read(&response));
  s4->WritesDone();
  EXPECT_FALSE(s4->Read(&response));
  EXPECT_TRUE(s4->Finish().ok());
}

// #17 point 6: under a query load that saturates the workers, health checks
// still answer quickly (orchestrators kill pods whose probes time out).
TEST(NeardupServer, HealthAnswersUnderSaturatingQueryLoad) {
  neardup::testing::TempDir temp;
  ServerConfig config = TestConfig(temp.path() + "/db");
  config.worker_threads = 1;
  config.max_queued_requests = 8;
  auto server = NeardupServer::Start(config);
  ASSERT_OK(server);
  ASSERT_TRUE(
      neardup::testing::WaitUntil([&] { return (*server)->serving(); }));
  client::ClientOptions options = ClientFor(**server);
  client::Client client(options);
  v1::CreateCollectionRequest create;
  create.set_name("s");
  ASSERT_OK(client.CreateCollection(create));
  for (int i = 0; i < 200; ++i) {
    v1::UpsertRequest upsert;
    upsert.set_collection("s");
    upsert.set_id(absl::StrCat("d", i));
    upsert.set_text(neardup::testing::GeneratedText(i % 20, 400));
    ASSERT_OK(client.Upsert(upsert));
  }
  std::atomic<bool> stop{false};
  std::atomic<int> answered{0};
  std::vector<std::thread> load;
  for (int t = 0; t < 6; ++t) {
    load.emplace_back([&, t] {
      client::Client mine(options);  // own connection, own call budget
      v1::QueryRequest query;
      query.set_collection("s");
      query.set_text(neardup::testing::GeneratedText(t, 400));
      query.set_top_k(100);
      while (!stop) {
        if (mine.Query(query).ok()) ++answered;
      }
    });
  }
  neardup::testing::WaitUntil([&] { return answered > 50; });
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
  constexpr auto kLimit = std::chrono::milliseconds(1000);  // 5-15x slower
#else
  constexpr auto kLimit = std::chrono::milliseconds(100);
#endif
#else
  constexpr auto kLimit = std::chrono::milliseconds(100);
#endif
  std::chrono::steady_clock::duration slowest{};
  for (int i = 0; i < 20; ++i) {
    const auto start = std::chrono::steady_clock::now();
    auto health = client.Health();
    slowest = std::max(slowest, std::chrono::steady_clock::now() - start);
    ASSERT_OK(health);
    EXPECT_EQ(*health, HealthCheckResponse::SERVING);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stop = true;
  for (std::thread& thread : load) thread.join();
  std::printf("slowest health check under load: %.1f ms (%d queries)\n",
              std::chrono::duration<double, std::milli>(slowest).count(),
              answered.load());
  EXPECT_LT(slowest, kLimit)
      << std::chrono::duration<double, std::milli>(slowest).count() << " ms";
  EXPECT_GT(answered.load(), 50);
}

TEST(NeardupServer, ListenFailureIsReported) {
  neardup::testing::TempDir temp;
  ServerConfig config = TestConfig(temp.path() + "/db");
  config.listen_address = "256.1.1.1:1";
  auto server = NeardupServer::Start(config);
  ASSERT_FALSE(server.ok());
  EXPECT_THAT(server.status().message(), HasSubstr("cannot listen"));
}

}  // namespace
}  // namespace neardup::server
