#include "neardup/server/internal/auth.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "support/status_matchers.h"

namespace neardup::server {
namespace {

using ::testing::HasSubstr;

TEST(Sha256Hex, KnownVector) {
  EXPECT_EQ(Sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TokenAuthenticator Make() {
  auto auth = TokenAuthenticator::FromYaml(absl::StrCat(
      "tokens:\n  - {name: a, sha256: ", Sha256Hex("token-a"),
      ", scopes: [admin]}\n  - {name: w, sha256: ", Sha256Hex("token-w"),
      ", scopes: [\"write:news\"]}\n  - {name: r, sha256: ",
      Sha256Hex("token-r"), ", scopes: [\"read:*\"]}\n"));
  EXPECT_OK(auth);
  return *std::move(auth);
}

TEST(TokenAuthenticator, AuthenticatesBearerTokens) {
  const TokenAuthenticator auth = Make();
  auto w = auth.Authenticate("Bearer token-w");
  ASSERT_OK(w);
  EXPECT_EQ((*w)->name, "w");
  for (std::string_view bad : {"", "token-w", "Bearer ", "Bearer token-x",
                               "bearer token-w", "Basic dG9rZW4tdw=="}) {
    auto result = auth.Authenticate(bad);
    EXPECT_EQ(result.status().code(), absl::StatusCode::kUnauthenticated)
        << bad;
  }
}

TEST(TokenAuthenticator, ScopeMatrix) {
  const TokenAuthenticator auth = Make();
  const TokenEntry& admin = **auth.Authenticate("Bearer token-a");
  const TokenEntry& writer = **auth.Authenticate("Bearer token-w");
  const TokenEntry& reader = **auth.Authenticate("Bearer token-r");
  auto ok = [](const TokenEntry& t, Access a, std::string_view c) {
    return TokenAuthenticator::Authorize(t, a, c).ok();
  };
  EXPECT_TRUE(ok(admin, Access::kAdmin, "x"));
  EXPECT_TRUE(ok(admin, Access::kWrite, "x"));
  EXPECT_TRUE(ok(writer, Access::kWrite, "news"));
  EXPECT_FALSE(ok(writer, Access::kWrite, "other"));
  EXPECT_FALSE(ok(writer, Access::kRead, "news"));  // write is not read
  EXPECT_FALSE(ok(writer, Access::kAdmin, "news"));
  EXPECT_TRUE(ok(writer, Access::kAny, ""));
  EXPECT_TRUE(ok(reader, Access::kRead, "anything"));
  EXPECT_TRUE(ok(reader, Access::kRead, "*"));
  EXPECT_FALSE(ok(reader, Access::kWrite, "news"));
  const absl::Status denied =
      TokenAuthenticator::Authorize(writer, Access::kWrite, "other");
  EXPECT_EQ(denied.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(denied.message(), HasSubstr("write:other"));
}

TEST(TokenAuthenticator, AuthorizeSomeAsksForAnyScopeOfTheKind) {
  const TokenAuthenticator auth = Make();
  const TokenEntry& admin = **auth.Authenticate("Bearer token-a");
  const TokenEntry& writer = **auth.Authenticate("Bearer token-w");
  const TokenEntry& reader = **auth.Authenticate("Bearer token-r");
  EXPECT_TRUE(TokenAuthenticator::AuthorizeSome(admin, Access::kRead).ok());
  EXPECT_TRUE(TokenAuthenticator::AuthorizeSome(writer, Access::kWrite).ok());
  EXPECT_TRUE(TokenAuthenticator::AuthorizeSome(reader, Access::kRead).ok());
  const absl::Status denied =
      TokenAuthenticator::AuthorizeSome(writer, Access::kRead);
  EXPECT_EQ(denied.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(denied.message(), HasSubstr("no read scope"));
  EXPECT_FALSE(TokenAuthenticator::AuthorizeSome(reader, Access::kWrite).ok());
}

TEST(TokenAuthenticator, FileErrorsAreClear) {
  EXPECT_THAT(TokenAuthenticator::FromYaml("nope: 1").status().message(),
              HasSubstr("tokens:"));
  EXPECT_THAT(TokenAuthenticator::FromYaml(
                  "tokens:\n  - {name: x, sha256: abc, scopes: [admin]}\n")
                  .status()
                  .message(),
              HasSubstr("64 hex digits"));
  EXPECT_THAT(TokenAuthenticator::FromYaml(
                  absl::StrCat("tokens:\n  - {name: x, sha256: ",
                               Sha256Hex("t"), ", scopes: [root]}\n"))
                  .status()
                  .message(),
              HasSubstr("unknown scope 'root'"));
  // A scalar would grant nothing without a word; a list is required.
  EXPECT_THAT(TokenAuthenticator::FromYaml(
                  absl::StrCat("tokens:\n  - {name: x, sha256: ",
                               Sha256Hex("t"), ", scopes: admin}\n"))
                  .status()
                  .message(),
              HasSubstr("scopes must be a list"));
  // Two entries with one hash: which scopes win would depend on order.
  EXPECT_THAT(
      TokenAuthenticator::FromYaml(
          absl::StrCat("tokens:\n  - {name: x, sha256: ", Sha256Hex("t"),
                       ", scopes: [admin]}\n  - {name: y, sha256: ",
                       Sha256Hex("t"), ", scopes: [\"read:*\"]}\n"))
          .status()
          .message(),
      HasSubstr("tokens 'x' and 'y' have the same sha256"));
  EXPECT_EQ(
      TokenAuthenticator::FromFile("/nonexistent/tokens.yaml").status().code(),
      absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace neardup::server

namespace neardup::server {
namespace {

// The metrics scope opens /metrics and nothing else, and nothing else opens
// /metrics.
TEST(TokenAuthenticator, MetricsScopeOpensOnlyMetrics) {
  auto auth = TokenAuthenticator::FromYaml(absl::StrCat(
      "tokens:\n  - {name: prom, sha256: ", Sha256Hex("token-m"),
      ", scopes: [metrics]}\n  - {name: ops, sha256: ", Sha256Hex("token-a"),
      ", scopes: [admin]}\n  - {name: r, sha256: ", Sha256Hex("token-r"),
      ", scopes: [\"read:*\"]}\n"));
  ASSERT_TRUE(auth.ok()) << auth.status();
  const TokenEntry& prom = **auth->Authenticate("Bearer token-m");
  const TokenEntry& admin = **auth->Authenticate("Bearer token-a");
  const TokenEntry& reader = **auth->Authenticate("Bearer token-r");
  EXPECT_TRUE(TokenAuthenticator::Authorize(prom, Access::kMetrics, "*").ok());
  // Not admin either: /metrics is plain HTTP, where an admin token has no
  // business.
  EXPECT_FALSE(
      TokenAuthenticator::Authorize(admin, Access::kMetrics, "*").ok());
  // The metrics token is for /metrics only, not even stateless calls.
  EXPECT_FALSE(TokenAuthenticator::Authorize(prom, Access::kAny, "").ok());
  EXPECT_TRUE(TokenAuthenticator::Authorize(reader, Access::kAny, "").ok());
  EXPECT_FALSE(
      TokenAuthenticator::Authorize(reader, Access::kMetrics, "*").ok());
  EXPECT_FALSE(TokenAuthenticator::Authorize(prom, Access::kRead, "x").ok());
  EXPECT_FALSE(TokenAuthenticator::AuthorizeSome(prom, Access::kRead).ok());
  EXPECT_FALSE(TokenAuthenticator::AuthorizeSome(prom, Access::kWrite).ok());
}

}  // namespace
}  // namespace neardup::server
