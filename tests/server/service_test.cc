// The server in-process: availability while starting and stopping, health
// transitions, and the worker-pool limit.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "neardup/client/client.h"
#include "server/src/server.h"
#include "tests/support/net.h"
#include "tests/support/temp_dir.h"

namespace neardup::server {
namespace {

using grpc::health::v1::HealthCheckResponse;
using ::testing::HasSubstr;

ServerConfig TestConfig(const std::string& dir) {
  ServerConfig config;
  config.listen_address =
      absl::StrCat("127.0.0.1:", neardup::testing::FreePort());
  config.metrics_address = "";
  config.data_dir = dir;
  config.block_cache_bytes = size_t{16} << 20;
  return config;
}

client::ClientOptions ClientFor(const ServerConfig& config) {
  client::ClientOptions options;
  options.target = config.listen_address;
  options.max_attempts = 1;  // see UNAVAILABLE instead of retrying it
  return options;
}

TEST(NeardupServer, NotServingWhileRebuildingThenServing) {
  neardup::testing::TempDir temp;
  ServerConfig config = TestConfig(temp.path() + "/db");
  config.open_delay_for_tests = std::chrono::milliseconds(1500);
  auto server = NeardupServer::Start(config);
  ASSERT_TRUE(server.ok()) << server.status();
  client::Client client(ClientFor(config));
  auto health = client.Health();
  ASSERT_TRUE(health.ok()) << health.status();
  EXPECT_EQ(*health, HealthCheckResponse::NOT_SERVING);
  // Database calls are refused with a reason; stateless ones work.
  auto list = client.ListCollections();
  EXPECT_EQ(list.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(list.status().message(), HasSubstr("starting"));
  v1::FingerprintRequest fingerprint;
  fingerprint.set_text("the quick brown fox jumps over the lazy dog");
  EXPECT_TRUE(client.Fingerprint(fingerprint).ok());

  for (int i = 0; i < 300 && !(*server)->serving(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE((*server)->serving());
  EXPECT_EQ(*client.Health(), HealthCheckResponse::SERVING);
  EXPECT_TRUE(client.ListCollections().ok());

  (*server)->Shutdown();
  EXPECT_TRUE((*server)->Wait().ok());
  EXPECT_FALSE(client.ListCollections().ok());
}

TEST(NeardupServer, ClientRetriesUnavailableUntilServing) {
  neardup::testing::TempDir temp;
  ServerConfig config = TestConfig(temp.path() + "/db");
  config.open_delay_for_tests = std::chrono::milliseconds(300);
  auto server = NeardupServer::Start(config);
  ASSERT_TRUE(server.ok());
  client::ClientOptions options = ClientFor(config);
  options.max_attempts = 20;
  options.initial_backoff = std::chrono::milliseconds(50);
  client::Client client(options);
  EXPECT_TRUE(client.ListCollections().ok());  // retried past the rebuild
}

TEST(NeardupServer, StoreThatCannotOpenStopsTheServerWithTheReason) {
  neardup::testing::TempDir temp;
  // A regular file where the data directory should be.
  ServerConfig config = TestConfig(temp.Write("not-a-dir", "x"));
  auto server = NeardupServer::Start(config);
  ASSERT_TRUE(server.ok());
  const absl::Status status = (*server)->Wait();
  EXPECT_FALSE(status.ok());
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
