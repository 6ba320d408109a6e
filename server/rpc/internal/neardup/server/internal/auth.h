#ifndef NEARDUP_SERVER_INTERNAL_AUTH_H_
#define NEARDUP_SERVER_INTERNAL_AUTH_H_

// Bearer-token authentication and scope checks.
//
// Tokens live in a YAML file as SHA-256 hashes, never in clear:
//   tokens:
//     - name: ingest-bot            # shown in logs instead of the token
//       sha256: 9f86d081...         # printf %s "$TOKEN" | sha256sum
//       scopes: ["write:news", "read:*"]
// Scopes: `admin` (everything, including creating and dropping
// collections), `read:<collection|*>`, `write:<collection|*>`, `metrics`
// (the /metrics endpoint only, for Prometheus).
// Every presented token is hashed and compared with every entry in constant
// time, so timing does not reveal which entry (or how much of it) matched.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace neardup::server {

enum class Access {
  kAny,      // any valid token (stateless calls)
  kRead,     // read:<collection> (collection "*": read:*)
  kWrite,    // write:<collection>
  kAdmin,    // admin
  kMetrics,  // metrics: /metrics, and a metrics-only token nothing else
};

struct TokenEntry {
  std::string name;
  std::array<uint8_t, 32> sha256;
  std::vector<std::string> scopes;
};

class TokenAuthenticator {
 public:
  static absl::StatusOr<TokenAuthenticator> FromYaml(std::string_view yaml);
  static absl::StatusOr<TokenAuthenticator> FromFile(const std::string& path);

  // `authorization` is the request's "authorization" metadata value,
  // "Bearer <token>". UNAUTHENTICATED when missing, malformed or unknown.
  absl::StatusOr<const TokenEntry*> Authenticate(
      std::string_view authorization) const;

  // OK, or PERMISSION_DENIED naming the scope that is missing.
  // OK when `token` may `access` at least one collection (admin, or a
  // read:/write: scope of that kind): what opening a stream needs, before
  // each item is checked against its own collection.
  static absl::Status AuthorizeSome(const TokenEntry& token, Access access);
  static absl::Status Authorize(const TokenEntry& token, Access access,
                                std::string_view collection);

  size_t size() const { return entries_.size(); }

 private:
  std::vector<TokenEntry> entries_;
};

// Lowercase hex SHA-256 of `data` (for tests and token tooling).
std::string Sha256Hex(std::string_view data);

}  // namespace neardup::server

#endif  // NEARDUP_SERVER_INTERNAL_AUTH_H_
