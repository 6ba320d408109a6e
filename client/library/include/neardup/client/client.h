#ifndef NEARDUP_CLIENT_CLIENT_H_
#define NEARDUP_CLIENT_CLIENT_H_

// C++ client of neardupd over the generated gRPC stub. Unary calls are
// retried with exponential backoff while the server answers UNAVAILABLE
// (starting up, restarting); every other status is returned as it is.

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "neardup/v1/neardup.grpc.pb.h"

namespace neardup::client {

struct ClientOptions {
  std::string target = "127.0.0.1:50051";
  std::chrono::milliseconds timeout{30000};  // per attempt
  int max_attempts = 5;                      // for UNAVAILABLE
  std::chrono::milliseconds initial_backoff{100};
  std::chrono::milliseconds max_backoff{2000};
  int max_message_bytes = 64 << 20;
  // TLS: set `tls` (server verified against tls_ca_pem, or the system roots
  // when empty); tls_cert_pem/tls_key_pem present a client certificate.
  bool tls = false;
  std::string tls_ca_pem;
  std::string tls_cert_pem;
  std::string tls_key_pem;
  // Name to check the server certificate against instead of the target's
  // host (e.g. "localhost" when probing a pod by its IP).
  std::string tls_server_name;
  // Sent as "authorization: Bearer <token>" on every call; empty: none.
  std::string token;
  // A token travels in clear text without TLS. It is sent so only to a
  // loopback target unless this is set (e.g. a TLS-terminating mesh).
  bool allow_token_over_plaintext = false;
};

// FAILED_PRECONDITION when `options` would send a bearer token without TLS
// to a target that is not loopback (localhost, 127.0.0.0/8, ::1, unix:)
// and allow_token_over_plaintext is not set.
absl::Status CheckTokenTransport(const ClientOptions& options);

// Reads PEM files into `options` and turns TLS on. Empty paths are skipped.
absl::Status LoadTlsFiles(const std::string& ca_path,
                          const std::string& cert_path,
                          const std::string& key_path, ClientOptions& options);

// Maps a gRPC status to absl::Status (same codes, same message).
absl::Status FromGrpcStatus(const grpc::Status& status);

// Thread-safe.
class Client {
 public:
  explicit Client(const ClientOptions& options);

  absl::StatusOr<v1::Collection> CreateCollection(
      const v1::CreateCollectionRequest& request);
  absl::StatusOr<v1::Collection> GetCollection(const std::string& name);
  absl::StatusOr<v1::ListCollectionsResponse> ListCollections();
  absl::Status DropCollection(const std::string& name);
  absl::StatusOr<v1::UpsertResponse> Upsert(const v1::UpsertRequest& request);
  absl::StatusOr<v1::Document> Get(const std::string& collection,
                                   const std::string& id);
  // With every field (a cluster's log_sequence: read your writes).
  absl::StatusOr<v1::Document> Get(const v1::GetRequest& request);
  absl::Status Delete(const std::string& collection, const std::string& id);
  // With the answer (a cluster's log_sequence).
  absl::StatusOr<v1::DeleteResponse> Delete(const v1::DeleteRequest& request);
  absl::StatusOr<v1::QueryResponse> Query(const v1::QueryRequest& request);
  absl::StatusOr<v1::FingerprintResponse> Fingerprint(
      const v1::FingerprintRequest& request);
  absl::StatusOr<v1::CompareResponse> Compare(
      const v1::CompareRequest& request);
  absl::StatusOr<v1::StatsResponse> Stats(const std::string& collection = "");
  // Admin: a checkpoint of the server's whole store into `destination`
  // (under the server's --backup-dir). Not retried; waits up to an hour.
  absl::StatusOr<v1::CreateBackupResponse> CreateBackup(
      const std::string& destination);
  // Streams a collection's documents; `on_message` sees each message in
  // order (the first carries the collection) and may stop the export by
  // returning an error, which is then returned.
  absl::Status Export(
      const v1::ExportRequest& request,
      const std::function<absl::Status(const v1::ExportResponse&)>& on_message);
  // grpc.health.v1 status of the whole server.
  absl::StatusOr<grpc::health::v1::HealthCheckResponse::ServingStatus> Health();

  // How BulkUpsert packs items into stream messages: a message is sent when
  // it holds max_items items or max_bytes bytes (a bigger single item goes
  // alone).
  struct BulkOptions {
    size_t max_items = 256;
    size_t max_bytes = size_t{1} << 20;
  };
  // Streams upserts: `next` fills the next request and returns false when
  // there are no more; `on_result` sees each item's result in request order.
  // The stream's own failure (not an item's) is the returned status.
  absl::Status BulkUpsert(
      const std::function<bool(v1::UpsertRequest*)>& next,
      const std::function<void(const v1::BulkUpsertResult&)>& on_result,
      const BulkOptions& bulk);
  absl::Status BulkUpsert(
      const std::function<bool(v1::UpsertRequest*)>& next,
      const std::function<void(const v1::BulkUpsertResult&)>& on_result) {
    return BulkUpsert(next, on_result, BulkOptions());
  }

  // Streams queries: `next` fills the next probe and returns false when
  // there are no more; `on_response` sees each answer in probe order while
  // later probes are still being sent. A failing probe ends the stream:
  // its status is returned.
  absl::Status BatchQuery(
      const std::function<bool(v1::QueryRequest*)>& next,
      const std::function<void(const v1::QueryResponse&)>& on_response);

  v1::NearDup::Stub& stub() { return *stub_; }

 private:
  template <typename Call>
  grpc::Status WithRetries(Call call);
  void AddToken(grpc::ClientContext* context) const;

  const ClientOptions options_;
  // CheckTokenTransport(options_): every call fails with it when not OK.
  const absl::Status token_transport_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::NearDup::Stub> stub_;
  std::unique_ptr<grpc::health::v1::Health::Stub> health_;
};

}  // namespace neardup::client

#endif  // NEARDUP_CLIENT_CLIENT_H_
