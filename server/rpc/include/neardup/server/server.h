#ifndef NEARDUP_SERVER_SERVER_H_
#define NEARDUP_SERVER_SERVER_H_

// neardupd in one object: gRPC service with health and reflection, worker
// pool, Prometheus endpoint, and the database, opened in the background so
// that health reports NOT_SERVING while indexes rebuild, then SERVING.

#include <memory>
#include <thread>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"
#include "neardup/base/sync.h"
#include "neardup/base/worker_pool.h"
#include "neardup/server/server_config.h"

namespace prometheus {
class Exposer;
}

namespace neardup {
namespace engine {
class Database;
}
namespace http {
class Gateway;
}
namespace extract {
class ExtractPool;
}
}  // namespace neardup

namespace neardup::cluster {
class ClusterNode;
}  // namespace neardup::cluster

namespace neardup::server {

class NearDupService;
class ServerMetrics;

class NeardupServer {
 public:
  // Listens at once; the database opens on a background thread.
  static absl::StatusOr<std::unique_ptr<NeardupServer>> Start(
      const ServerConfig& config);
  ~NeardupServer();

  // Stops accepting calls, lets in-flight ones finish (up to `grace`), then
  // closes the database. Idempotent; safe from any thread.
  void Shutdown(std::chrono::milliseconds grace = std::chrono::seconds(20));
  // Blocks until Shutdown() finished, or the database failed to open.
  // Returns why the server stopped: OK after a requested shutdown.
  absl::Status Wait();

  int grpc_port() const { return grpc_port_; }
  int metrics_port() const { return metrics_port_; }  // 0 when disabled
  int http_port() const { return http_port_; }        // 0 when disabled
  // True once the indexes are rebuilt and the service answers.
  bool serving() const;

 private:
  explicit NeardupServer(const ServerConfig& config);
  void OpenDatabase();
  absl::Status StartHttp(const std::string& gateway_key);
  // Joins the cluster of config_.cluster_nats: hosts its collections and
  // applies their logs until caught up. Waits for a log that is not up yet;
  // CANCELLED when shut down meanwhile.
  absl::Status JoinCluster();

  const ServerConfig config_;
  std::unique_ptr<ServerMetrics> metrics_;
  // Before pool_: requests running on the pool use it until pool_ is gone.
  std::unique_ptr<extract::ExtractPool> extractor_;
  std::unique_ptr<WorkerPool> pool_;
  // In a cluster: reads of collections of several shards, which wait for
  // other nodes (not behind writes waiting out a log failover on pool_).
  std::unique_ptr<WorkerPool> shard_reads_pool_;
  // In a cluster: runs the requests other nodes send this node's shards;
  // gone after cluster_.
  std::unique_ptr<WorkerPool> shard_pool_;
  std::unique_ptr<NearDupService> service_;
  std::unique_ptr<grpc::Server> grpc_server_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  std::unique_ptr<http::Gateway> gateway_;
  std::unique_ptr<engine::Database> db_;  // set once by the loader thread
  // In a cluster, set once by the loader thread; gone before db_.
  std::unique_ptr<cluster::ClusterNode> cluster_;
  std::thread loader_;
  int grpc_port_ = 0;
  int metrics_port_ = 0;
  int http_port_ = 0;

  mutable Mutex mu_;
  CondVar stopped_cv_;
  bool serving_ ABSL_GUARDED_BY(mu_) = false;
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status stop_status_ ABSL_GUARDED_BY(mu_);
};

}  // namespace neardup::server

#endif  // NEARDUP_SERVER_SERVER_H_
