#include "neardup/server/server_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace neardup::server {
namespace {

using ::testing::HasSubstr;

ParsedCommandLine Parse(std::vector<std::string> args) {
  args.insert(args.begin(), "neardupd");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  return ParseCommandLine(static_cast<int>(argv.size()), argv.data());
}

TEST(ServerConfig, DefaultsAreValidOnceTransportIsChosen) {
  ServerConfig config;
  EXPECT_THAT(ValidateServerConfig(config).message(), HasSubstr("--plaintext"));
  config.plaintext = true;
  EXPECT_OK(ValidateServerConfig(config));
  const ParsedCommandLine parsed = Parse({"--plaintext"});
  ASSERT_TRUE(std::holds_alternative<ServerConfig>(parsed));
  EXPECT_EQ(std::get<ServerConfig>(parsed).listen_address, "127.0.0.1:50051");
}

TEST(ServerConfig, FlagBeatsEnvironmentBeatsFile) {
  neardup::testing::TempDir temp;
  const std::string file =
      temp.Write("neardupd.yaml",
                 "data-dir: /from/file\nshards: 8\nsync-writes: true\n"
                 "listen: 127.0.0.1:1111\n");
  setenv("NEARDUPD_SHARDS", "16", 1);
  setenv("NEARDUPD_LISTEN", "127.0.0.1:2222", 1);
  const ParsedCommandLine parsed =
      Parse({"--config", file, "--listen", "127.0.0.1:3333", "--plaintext"});
  unsetenv("NEARDUPD_SHARDS");
  unsetenv("NEARDUPD_LISTEN");
  ASSERT_TRUE(std::holds_alternative<ServerConfig>(parsed));
  const ServerConfig& config = std::get<ServerConfig>(parsed);
  EXPECT_EQ(config.data_dir, "/from/file");            // file only
  EXPECT_EQ(config.shards, 16);                        // env over file
  EXPECT_EQ(config.listen_address, "127.0.0.1:3333");  // flag over all
  EXPECT_TRUE(config.sync_writes);
}

TEST(ServerConfig, YamlErrorsNameTheKey) {
  ServerConfig config;
  EXPECT_THAT(ApplyYamlConfig("nope: 1\n", config).message(),
              HasSubstr("unknown config key 'nope'"));
  EXPECT_THAT(ApplyYamlConfig("shards: many\n", config).message(),
              HasSubstr("shards"));
  EXPECT_THAT(ApplyYamlConfig("[1, 2]\n", config).message(),
              HasSubstr("mapping"));
  EXPECT_OK(ApplyYamlConfig("", config));
}

TEST(ServerConfig, ValidationRejectsUnusableValues) {
  ServerConfig config;
  config.plaintext = true;
  config.shards = 0;
  EXPECT_THAT(ValidateServerConfig(config).message(), HasSubstr("--shards"));
  config = {};
  config.plaintext = true;
  config.max_document_bytes = config.max_message_bytes + 1;
  EXPECT_THAT(ValidateServerConfig(config).message(),
              HasSubstr("--max-document-bytes"));
  config = {};
  config.plaintext = true;
  config.default_deadline_seconds = 0;
  EXPECT_FALSE(ValidateServerConfig(config).ok());
  config = {};
  config.plaintext = true;
  config.request_memory_bytes = config.max_message_bytes - 1;
  EXPECT_THAT(ValidateServerConfig(config).message(),
              HasSubstr("--request-memory-bytes"));
  config = {};
  config.plaintext = true;
  config.max_metadata_keys = -1;
  EXPECT_THAT(ValidateServerConfig(config).message(),
              HasSubstr("--max-metadata-keys"));
  config = {};
  config.plaintext = true;
  config.max_streams_per_connection = 0;
  EXPECT_THAT(ValidateServerConfig(config).message(),
              HasSubstr("--max-streams-per-connection"));
  config = {};
  config.plaintext = true;
  config.hot_band_rows = -1;
  EXPECT_THAT(ValidateServerConfig(config).message(),
              HasSubstr("--hot-band-rows"));
  const ParsedCommandLine parsed = Parse({"--shards", "0", "--plaintext"});
  ASSERT_TRUE(std::holds_alternative<int>(parsed));
  EXPECT_NE(std::get<int>(parsed), 0);
}

TEST(ServerConfig, TlsSettingsMustBeConsistent) {
  ServerConfig config;
  config.tls_cert = "cert.pem";
  EXPECT_THAT(ValidateServerConfig(config).message(), HasSubstr("go together"));
  config.tls_key = "key.pem";
  EXPECT_OK(ValidateServerConfig(config));
  config.plaintext = true;
  EXPECT_THAT(ValidateServerConfig(config).message(), HasSubstr("contradicts"));
  config = {};
  config.plaintext = true;
  config.tls_client_ca = "ca.pem";
  EXPECT_THAT(ValidateServerConfig(config).message(), HasSubstr("mTLS"));
}

TEST(ServerConfig, UnknownFlagIsAUsageError) {
  const ParsedCommandLine parsed = Parse({"--no-such-flag"});
  ASSERT_TRUE(std::holds_alternative<int>(parsed));
  EXPECT_NE(std::get<int>(parsed), 0);
}

}  // namespace
}  // namespace neardup::server

namespace neardup::server {
namespace {

TEST(ServerConfig, ExtractionAndReflectionSettings) {
  ParsedCommandLine parsed =
      Parse({"--plaintext", "--extract-workers=3", "--extract-timeout=5",
             "--extract-memory-bytes=402653184",
             "--max-extractions-per-client=2", "--reflection=false"});
  ASSERT_TRUE(std::holds_alternative<ServerConfig>(parsed));
  const ServerConfig& config = std::get<ServerConfig>(parsed);
  EXPECT_EQ(config.extract_workers, 3);
  EXPECT_EQ(config.extract_timeout_seconds, 5);
  EXPECT_EQ(config.extract_memory_bytes, size_t{384} << 20);
  EXPECT_EQ(config.max_extractions_per_client, 2);
  EXPECT_FALSE(config.reflection);
  EXPECT_TRUE(std::get<ServerConfig>(Parse({"--plaintext"})).reflection);
  // Each worker needs 64 MiB.
  ServerConfig small;
  small.plaintext = true;
  small.extract_workers = 4;
  small.extract_memory_bytes = size_t{128} << 20;
  EXPECT_THAT(ValidateServerConfig(small).message(),
              HasSubstr("--extract-memory-bytes"));
}

// --pdf-timeout still works for a release, and says what replaces it.
TEST(ServerConfig, DeprecatedPdfTimeoutSetsTheExtractTimeout) {
  ParsedCommandLine parsed = Parse({"--plaintext", "--pdf-timeout=7"});
  ASSERT_TRUE(std::holds_alternative<ServerConfig>(parsed));
  EXPECT_EQ(std::get<ServerConfig>(parsed).extract_timeout_seconds, 7);
}

}  // namespace
}  // namespace neardup::server
