#ifndef NEARDUP_SERVER_HANDLERS_H_
#define NEARDUP_SERVER_HANDLERS_H_

// What each RPC does, over the database, as plain functions returning
// absl::Status: no gRPC types beyond the messages, so they are tested
// directly as well as through the server.

#include <cstddef>

#include "absl/status/status.h"
#include "neardup/core/index/query_stats.h"
#include "neardup/storage/database.h"
#include "neardup/v1/neardup.pb.h"

namespace neardup::server {

struct HandlerLimits {
  size_t max_document_bytes = size_t{16} << 20;
  bool sync_writes = false;  // fsync every write, whatever the request says
};

inline constexpr uint32_t kDefaultTopK = 10;
inline constexpr uint32_t kMaxTopK = 10000;

class Handlers {
 public:
  Handlers(storage::Database* db, HandlerLimits limits)
      : db_(db), limits_(limits) {}

  absl::Status CreateCollection(const v1::CreateCollectionRequest& request,
                                v1::Collection* response);
  absl::Status GetCollection(const v1::GetCollectionRequest& request,
                             v1::Collection* response);
  absl::Status ListCollections(const v1::ListCollectionsRequest& request,
                               v1::ListCollectionsResponse* response);
  absl::Status DropCollection(const v1::DropCollectionRequest& request,
                              v1::DropCollectionResponse* response);
  absl::Status Upsert(const v1::UpsertRequest& request,
                      v1::UpsertResponse* response);
  absl::Status Get(const v1::GetRequest& request, v1::Document* response);
  absl::Status Delete(const v1::DeleteRequest& request,
                      v1::DeleteResponse* response);
  absl::Status Query(const v1::QueryRequest& request,
                     v1::QueryResponse* response, IndexQueryStats* stats);
  absl::Status Stats(const v1::StatsRequest& request,
                     v1::StatsResponse* response);

  // Stateless; no database needed.
  static absl::Status Fingerprint(const v1::FingerprintRequest& request,
                                  v1::FingerprintResponse* response,
                                  const HandlerLimits& limits);
  static absl::Status Compare(const v1::CompareRequest& request,
                              v1::CompareResponse* response,
                              const HandlerLimits& limits);

 private:
  absl::StatusOr<std::shared_ptr<storage::Collection>> FindCollection(
      std::string_view name) const;

  storage::Database* const db_;
  const HandlerLimits limits_;
};

}  // namespace neardup::server

#endif  // NEARDUP_SERVER_HANDLERS_H_
