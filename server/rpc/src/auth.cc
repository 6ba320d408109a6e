#include "neardup/server/internal/auth.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/files.h"
#include "neardup/base/status_macros.h"
#include "yaml-cpp/yaml.h"

namespace neardup::server {
namespace {

constexpr std::string_view kBearer = "Bearer ";

std::array<uint8_t, 32> Sha256(std::string_view data) {
  std::array<uint8_t, 32> digest;
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(),
         digest.data());
  return digest;
}

absl::Status CheckScope(const std::string& token, const std::string& scope) {
  if (scope == "admin" || scope == "metrics") return absl::OkStatus();
  for (std::string_view prefix : {"read:", "write:"}) {
    if (scope.starts_with(prefix) && scope.size() > prefix.size()) {
      return absl::OkStatus();
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("token '", token, "': unknown scope '", scope,
                   "' (use admin, metrics, read:<collection|*> or "
                   "write:<collection|*>)"));
}

}  // namespace

std::string Sha256Hex(std::string_view data) {
  const std::array<uint8_t, 32> digest = Sha256(data);
  return absl::BytesToHexString(absl::string_view(
      reinterpret_cast<const char*>(digest.data()), digest.size()));
}

absl::StatusOr<TokenAuthenticator> TokenAuthenticator::FromYaml(
    std::string_view yaml) {
  TokenAuthenticator auth;
  try {
    const YAML::Node root = YAML::Load(std::string(yaml));
    const YAML::Node tokens = root["tokens"];
    if (!tokens || !tokens.IsSequence()) {
      return absl::InvalidArgumentError(
          "token file needs a `tokens:` list of {name, sha256, scopes}");
    }
    for (const YAML::Node& node : tokens) {
      TokenEntry entry;
      entry.name = node["name"].as<std::string>("");
      if (entry.name.empty()) {
        return absl::InvalidArgumentError("every token needs a name");
      }
      const std::string hex =
          absl::AsciiStrToLower(node["sha256"].as<std::string>(""));
      const bool is_hex =
          hex.size() == 64 &&
          hex.find_first_not_of("0123456789abcdef") == std::string::npos;
      if (!is_hex) {
        return absl::InvalidArgumentError(absl::StrCat(
            "token '", entry.name,
            "': sha256 must be 64 hex digits (printf %s \"$TOKEN\" | "
            "sha256sum)"));
      }
      const std::string bytes = absl::HexStringToBytes(hex);
      std::copy(bytes.begin(), bytes.end(), entry.sha256.begin());
      // A scalar (`scopes: admin`) would silently grant nothing: refuse.
      if (node["scopes"] && !node["scopes"].IsSequence()) {
        return absl::InvalidArgumentError(
            absl::StrCat("token '", entry.name,
                         "': scopes must be a list, e.g. scopes: [admin]"));
      }
      if (node["scopes"]) {
        for (const YAML::Node& scope : node["scopes"]) {
          entry.scopes.push_back(scope.as<std::string>());
          if (auto s = CheckScope(entry.name, entry.scopes.back()); !s.ok()) {
            return s;
          }
        }
      }
      // Two entries with one hash: which scopes apply would depend on order.
      for (const TokenEntry& other : auth.entries_) {
        if (other.sha256 == entry.sha256) {
          return absl::InvalidArgumentError(
              absl::StrCat("tokens '", other.name, "' and '", entry.name,
                           "' have the same sha256"));
        }
      }
      auth.entries_.push_back(std::move(entry));
    }
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("token file is not valid YAML: ", e.what()));
  }
  return auth;
}

absl::StatusOr<TokenAuthenticator> TokenAuthenticator::FromFile(
    const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return Prefixed("token file", text.status());
  auto auth = FromYaml(*text);
  if (!auth.ok()) return Prefixed(path, auth.status());
  return auth;
}

absl::StatusOr<const TokenEntry*> TokenAuthenticator::Authenticate(
    std::string_view authorization) const {
  if (authorization.empty()) {
    return absl::UnauthenticatedError(
        "missing token: send metadata \"authorization: Bearer <token>\"");
  }
  if (!authorization.starts_with(kBearer)) {
    return absl::UnauthenticatedError(
        "malformed authorization metadata: expected \"Bearer <token>\"");
  }
  const std::array<uint8_t, 32> presented =
      Sha256(authorization.substr(kBearer.size()));
  // Compare with every entry, without stopping at a match.
  const TokenEntry* match = nullptr;
  for (const TokenEntry& entry : entries_) {
    const bool equal = CRYPTO_memcmp(entry.sha256.data(), presented.data(),
                                     presented.size()) == 0;
    match = equal ? &entry : match;
  }
  if (match == nullptr) return absl::UnauthenticatedError("invalid token");
  return match;
}

absl::Status TokenAuthenticator::AuthorizeSome(const TokenEntry& token,
                                               Access access) {
  const std::string_view kind = access == Access::kRead    ? "read:"
                                : access == Access::kWrite ? "write:"
                                                           : "";
  for (const std::string& scope : token.scopes) {
    if (access == Access::kMetrics && scope == "metrics") {
      return absl::OkStatus();
    }
    if (scope == "admin" || access == Access::kAny ||
        (!kind.empty() && std::string_view(scope).starts_with(kind))) {
      return absl::OkStatus();
    }
  }
  return absl::PermissionDeniedError(absl::StrCat(
      "token '", token.name, "' has no ",
      AbslView(kind.empty() ? "admin" : kind.substr(0, kind.size() - 1)),
      " scope on any collection"));
}

absl::Status TokenAuthenticator::Authorize(const TokenEntry& token,
                                           Access access,
                                           std::string_view collection) {
  auto has = [&](std::string_view scope) {
    for (const std::string& s : token.scopes) {
      if (s == scope) return true;
    }
    return false;
  };
  // A metrics token opens /metrics and nothing else (it is stored in clear
  // for Prometheus); /metrics takes nothing else (plain HTTP).
  const bool metrics_only =
      !token.scopes.empty() &&
      std::all_of(token.scopes.begin(), token.scopes.end(),
                  [](const std::string& s) { return s == "metrics"; });
  if (access == Access::kMetrics) {
    if (has("metrics")) return absl::OkStatus();
    return absl::PermissionDeniedError(
        absl::StrCat("token '", token.name,
                     "' lacks scope metrics (/metrics takes only "
                     "tokens of that scope)"));
  }
  if (metrics_only) {
    return absl::PermissionDeniedError(absl::StrCat(
        "token '", token.name, "' has only the metrics scope: /metrics only"));
  }
  if (has("admin") || access == Access::kAny) return absl::OkStatus();
  std::string needed;
  switch (access) {
    case Access::kAdmin:
      needed = "admin";
      break;
    case Access::kMetrics:  // answered above
      break;
    case Access::kRead:
    case Access::kWrite: {
      const std::string kind = access == Access::kRead ? "read:" : "write:";
      if (has(kind + "*") || (collection != "*" &&
                              has(absl::StrCat(kind, AbslView(collection))))) {
        return absl::OkStatus();
      }
      needed = absl::StrCat(kind, AbslView(collection));
      break;
    }
    case Access::kAny:
      break;
  }
  return absl::PermissionDeniedError(
      absl::StrCat("token '", token.name, "' lacks scope ", needed,
                   collection == "*" ? "" : " (or admin)"));
}

}  // namespace neardup::server
