#ifndef NEARDUP_SERVER_INTERNAL_METRICS_H_
#define NEARDUP_SERVER_INTERNAL_METRICS_H_

// Prometheus metrics of neardupd. Every family (and every method x code
// series) is created once at start, so recording is lock-free in
// prometheus-cpp's counters and histograms. Per-collection and RocksDB
// gauges are read at scrape time by a collector over the live database.

#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "grpcpp/support/status.h"
#include "neardup/cluster/cluster_node.h"
#include "neardup/core/index/query_stats.h"
#include "neardup/engine/database.h"
#include "prometheus/collectable.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace neardup::storage {
class Database;
}

namespace neardup::server {

enum class Method : int {
  kCreateCollection,
  kGetCollection,
  kListCollections,
  kDropCollection,
  kUpsert,
  kBulkUpsert,
  kGet,
  kDelete,
  kQuery,
  kBatchQuery,
  kFingerprint,
  kCompare,
  kStats,
  kCreateBackup,
  kExport,
  kCount,
};
const char* MethodName(Method method);

// How a call reached the service: directly, or through the HTTP/JSON
// gateway (the `protocol` label).
enum class Protocol : int { kGrpc, kHttp, kCount };

inline constexpr int kNumStatusCodes = 17;  // google.rpc.Code 0..16

class ServerMetrics {
 public:
  ServerMetrics();

  void RecordRpc(Method method, Protocol protocol, grpc::StatusCode code,
                 double seconds);
  // An answer of the HTTP gateway, by HTTP status (its calls also count as
  // RPCs with protocol="http").
  void RecordHttpResponse(int status);
  // One BulkUpsert item or BatchQuery probe.
  void RecordStreamItem(Method method, grpc::StatusCode code);
  void RecordQuery(const IndexQueryStats& stats);
  void RecordRebuild(const std::string& collection, uint64_t documents,
                     double seconds);
  // A finished CreateBackup; `bytes` only counts when it succeeded.
  void RecordBackup(bool ok, double seconds, uint64_t bytes);
  // Whether --backup-dir is set: the backup-age alert only watches servers
  // that can make backups.
  void SetBackupsEnabled(bool enabled);
  // The database whose state the scrape-time collector reads; null while
  // starting.
  void SetDatabase(std::function<const engine::Database*()> database);
  // In a cluster: the replicas' state the collector reads (applied
  // sequence, entries pending, stalled), and each append to the log.
  void SetCluster(std::function<std::vector<cluster::ReplicaState>()> states);
  void RecordLogAppend(double seconds, bool stored);
  // A request sent to shards (cluster::FanOut).
  void RecordFanOut(const char* kind, double seconds,
                    const std::string& collection,
                    const std::vector<int>& unanswered);

  std::shared_ptr<prometheus::Registry> registry() const { return registry_; }
  std::shared_ptr<prometheus::Collectable> state_collector() const {
    return state_collector_;
  }

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  static constexpr int kProtocols = static_cast<int>(Protocol::kCount);
  static constexpr int kMethods = static_cast<int>(Method::kCount);
  std::array<
      std::array<std::array<prometheus::Counter*, kNumStatusCodes>, kMethods>,
      kProtocols>
      rpcs_;
  std::array<std::array<prometheus::Counter*, kNumStatusCodes>,
             static_cast<int>(Method::kCount)>
      stream_items_;
  std::array<std::array<prometheus::Histogram*, kMethods>, kProtocols> latency_;
  // One counter per status seen (Add finds it again; it is thread-safe).
  prometheus::Family<prometheus::Counter>* http_responses_;
  prometheus::Histogram* candidates_;
  prometheus::Counter* verified_accepted_;
  prometheus::Counter* verified_rejected_;
  prometheus::Histogram* evidence_reads_;
  prometheus::Counter* hot_bands_skipped_;
  prometheus::Counter* evidence_bytes_;
  prometheus::Family<prometheus::Gauge>* rebuild_seconds_;
  prometheus::Family<prometheus::Gauge>* rebuild_documents_;
  prometheus::Counter* backups_ok_;
  prometheus::Counter* backups_failed_;
  prometheus::Gauge* backup_seconds_;
  prometheus::Gauge* backup_bytes_;
  prometheus::Gauge* backup_last_success_;
  prometheus::Gauge* backups_enabled_;
  prometheus::Histogram* log_appends_;
  prometheus::Counter* log_append_failures_;
  prometheus::Family<prometheus::Histogram>* fan_out_seconds_;
  prometheus::Histogram::BucketBoundaries fan_out_buckets_;
  std::shared_ptr<prometheus::Collectable> state_collector_;
};

}  // namespace neardup::server

#endif  // NEARDUP_SERVER_INTERNAL_METRICS_H_
