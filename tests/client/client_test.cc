// The C++ client library's own rules, without a server.

#include "neardup/client/client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/status_matchers.h"

namespace neardup::client {
namespace {

using ::testing::HasSubstr;

ClientOptions WithToken(std::string target) {
  ClientOptions options;
  options.target = std::move(target);
  options.token = "secret";
  options.max_attempts = 1;
  return options;
}

TEST(CheckTokenTransport, LoopbackTargetsMayCarryATokenInClear) {
  for (const char* target :
       {"127.0.0.1:50051", "127.8.9.1:1", "localhost:50051", "[::1]:50051",
        "dns:///localhost:5", "ipv4:127.0.0.1:5", "unix:/tmp/neardup.sock"}) {
    EXPECT_OK(CheckTokenTransport(WithToken(target)));
  }
}

TEST(CheckTokenTransport, RemotePlaintextTargetsAreRefused) {
  for (const char* target :
       {"10.0.0.5:50051", "neardup.example.com:443", "[2001:db8::1]:50051",
        "dns:///db.internal:1", "127.0.0.1.evil.example:50051",
        "127.0.0.1.5:50051", "localhost.evil.example:1",
        "ipv6:[::1]:1,[2001:db8::1]:1", "ipv4:127.0.0.1:1,10.0.0.5:1"}) {
    const absl::Status status = CheckTokenTransport(WithToken(target));
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << target;
    EXPECT_THAT(status.message(), HasSubstr("without TLS"));
  }
}

TEST(CheckTokenTransport, TlsNoTokenOrExplicitConsentAllowIt) {
  ClientOptions tls = WithToken("10.0.0.5:50051");
  tls.tls = true;
  EXPECT_OK(CheckTokenTransport(tls));
  ClientOptions no_token = WithToken("10.0.0.5:50051");
  no_token.token.clear();
  EXPECT_OK(CheckTokenTransport(no_token));
  ClientOptions consent = WithToken("10.0.0.5:50051");
  consent.allow_token_over_plaintext = true;
  EXPECT_OK(CheckTokenTransport(consent));
}

// The refusal holds for every call, before anything is sent.
TEST(Client, RefusesToSendATokenInClearToARemoteHost) {
  Client client(WithToken("192.0.2.1:50051"));  // TEST-NET-1: never routed
  EXPECT_EQ(client.ListCollections().status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(client
                .BatchQuery([](v1::QueryRequest*) { return false; },
                            [](const v1::QueryResponse&) {})
                .code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace neardup::client
