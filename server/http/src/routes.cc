#include "neardup/http/routes.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "grpc/health/v1/health.pb.h"
#include "neardup/base/absl_compat.h"
#include "neardup/v1/neardup.pb.h"

namespace neardup::http {
namespace {

constexpr Route kRoutes[] = {
    {"GET", "/v1/health", "grpc.health.v1.Health.Check",
     "Whether the server serves (SERVING once its indexes are rebuilt)"},
    {"POST", "/v1/collections", "neardup.v1.NearDup.CreateCollection",
     "Create a collection"},
    {"GET", "/v1/collections", "neardup.v1.NearDup.ListCollections",
     "List the collections"},
    {"GET", "/v1/collections/{name}", "neardup.v1.NearDup.GetCollection",
     "A collection's config"},
    {"DELETE", "/v1/collections/{name}", "neardup.v1.NearDup.DropCollection",
     "Drop a collection and its documents"},
    {"PUT", "/v1/collections/{collection}/documents/{id}",
     "neardup.v1.NearDup.Upsert", "Insert or replace a document"},
    {"POST", "/v1/collections/{collection}/documents:bulkUpsert",
     "neardup.v1.NearDup.BulkUpsert",
     "Upsert many documents: NDJSON, one BulkUpsertRequest per line; one "
     "BulkUpsertResponse line per request line"},
    {"GET", "/v1/collections/{collection}/documents/{id}",
     "neardup.v1.NearDup.Get", "A stored document"},
    {"DELETE", "/v1/collections/{collection}/documents/{id}",
     "neardup.v1.NearDup.Delete", "Delete a document"},
    {"POST", "/v1/collections/{collection}/documents:query",
     "neardup.v1.NearDup.Query", "Near-duplicates of a text or signatures"},
    {"POST", "/v1/collections/{collection}/documents:batchQuery",
     "neardup.v1.NearDup.BatchQuery",
     "Many queries: NDJSON, one QueryRequest per line; one QueryResponse "
     "line per request line, in order"},
    {"GET", "/v1/collections/{collection}/documents:export",
     "neardup.v1.NearDup.Export",
     "Every document: NDJSON of ExportResponse messages"},
    {"POST", "/v1:fingerprint", "neardup.v1.NearDup.Fingerprint",
     "Fingerprint a text without storing it"},
    {"POST", "/v1:compare", "neardup.v1.NearDup.Compare",
     "Compare two texts (estimates, exact Jaccard, shared passages)"},
    {"GET", "/v1/stats", "neardup.v1.NearDup.Stats",
     "Store and collection statistics (?collection= for one)"},
    {"POST", "/v1/backups", "neardup.v1.NearDup.CreateBackup",
     "Write a consistent checkpoint under --backup-dir"},
};

bool IsField(std::string_view segment) {
  return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

std::vector<std::string_view> Split(std::string_view path) {
  std::vector<std::string_view> parts;
  for (absl::string_view part : absl::StrSplit(AbslView(path), '/')) {
    parts.push_back(StdView(part));
  }
  return parts;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::span<const Route> Routes() { return kRoutes; }

const google::protobuf::MethodDescriptor* FindRpc(const Route& route) {
  // Named, so that the linker keeps the generated files that put the
  // services in the descriptor pool.
  (void)v1::QueryRequest::descriptor();
  (void)grpc::health::v1::HealthCheckRequest::descriptor();
  return google::protobuf::DescriptorPool::generated_pool()->FindMethodByName(
      std::string(route.rpc));
}

std::string WireMethod(const Route& route) {
  const size_t dot = route.rpc.rfind('.');
  return absl::StrCat("/", AbslView(route.rpc.substr(0, dot)), "/",
                      AbslView(route.rpc.substr(dot + 1)));
}

absl::StatusOr<std::string> PercentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    const int high = i + 2 < text.size() ? HexValue(text[i + 1]) : -1;
    const int low = i + 2 < text.size() ? HexValue(text[i + 2]) : -1;
    if (high < 0 || low < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bad percent-encoding at byte ", i, " of \"", AbslView(text), "\""));
    }
    out.push_back(static_cast<char>(high * 16 + low));
    i += 2;
  }
  return out;
}

absl::StatusOr<RouteMatch> MatchRoute(std::string_view verb,
                                      std::string_view raw_path) {
  const std::vector<std::string_view> segments = Split(raw_path);
  std::vector<std::string> other_verbs;
  for (const Route& route : kRoutes) {
    const std::vector<std::string_view> pattern = Split(route.path);
    if (pattern.size() != segments.size()) continue;
    RouteMatch match;
    match.route = &route;
    bool matches = true;
    for (size_t i = 0; i < pattern.size() && matches; ++i) {
      if (!IsField(pattern[i])) {
        matches = pattern[i] == segments[i];
        continue;
      }
      // A field's segment ends before a custom verb's colon only in the
      // pattern: ids may hold colons (sent as %3A or not).
      absl::StatusOr<std::string> value = PercentDecode(segments[i]);
      if (!value.ok()) return value.status();
      if (value->empty()) {
        matches = false;
        continue;
      }
      match.path_fields.emplace_back(
          std::string(pattern[i].substr(1, pattern[i].size() - 2)),
          *std::move(value));
    }
    if (!matches) continue;
    if (route.verb == verb) return match;
    other_verbs.emplace_back(route.verb);
  }
  if (!other_verbs.empty()) {
    return absl::UnimplementedError(
        absl::StrCat(AbslView(verb), " is not allowed on ", AbslView(raw_path),
                     "; use ", absl::StrJoin(other_verbs, " or ")));
  }
  return absl::NotFoundError(
      absl::StrCat("no route ", AbslView(raw_path),
                   " (GET /v1/openapi.json lists the routes)"));
}

}  // namespace neardup::http
