#include "neardup/server/internal/metrics.h"

#include <map>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "neardup/base/sync.h"
#include "neardup/engine/database.h"

namespace neardup::server {
namespace {

constexpr const char* kMethodNames[] = {"CreateCollection",
                                        "GetCollection",
                                        "ListCollections",
                                        "DropCollection",
                                        "Upsert",
                                        "BulkUpsert",
                                        "Get",
                                        "Delete",
                                        "Query",
                                        "BatchQuery",
                                        "Fingerprint",
                                        "Compare",
                                        "Stats",
                                        "CreateBackup",
                                        "Export"};
static_assert(std::size(kMethodNames) == static_cast<size_t>(Method::kCount));

// "NOT_FOUND": gRPC's codes are google.rpc.Code, as absl::StatusCode's are.
std::string CodeLabel(int code) {
  return absl::StatusCodeToString(static_cast<absl::StatusCode>(code));
}

int CodeIndex(grpc::StatusCode code) {
  const int index = static_cast<int>(code);
  return index >= 0 && index < kNumStatusCodes ? index : 2;  // UNKNOWN
}

prometheus::ClientMetric Gauge(
    double value, std::vector<prometheus::ClientMetric::Label> labels = {}) {
  prometheus::ClientMetric metric;
  metric.label = std::move(labels);
  metric.gauge.value = value;
  return metric;
}

prometheus::ClientMetric Counter(
    double value, std::vector<prometheus::ClientMetric::Label> labels = {}) {
  prometheus::ClientMetric metric;
  metric.label = std::move(labels);
  metric.counter.value = value;
  return metric;
}

// Reads collection sizes, index memory and RocksDB figures at scrape time.
class StateCollector : public prometheus::Collectable {
 public:
  void SetDatabase(std::function<const engine::Database*()> database) {
    MutexLock lock(&mu_);
    database_ = std::move(database);
  }
  void SetCluster(std::function<std::vector<cluster::ReplicaState>()> states) {
    MutexLock lock(&mu_);
    cluster_ = std::move(states);
  }
  // Kept here (not in the registry) so the family is exported before any
  // shard went unanswered, as dashboards and alerts expect.
  void AddUnanswered(const std::string& collection, int shard) {
    MutexLock lock(&mu_);
    ++unanswered_[{collection, shard}];
  }

  std::vector<prometheus::MetricFamily> Collect() const override {
    std::function<const engine::Database*()> get;
    std::function<std::vector<cluster::ReplicaState>()> replicas;
    std::map<std::pair<std::string, int>, uint64_t> unanswered;
    {
      MutexLock lock(&mu_);
      get = database_;
      replicas = cluster_;
      unanswered = unanswered_;
    }
    const engine::Database* db = get ? get() : nullptr;
    if (db == nullptr) return {};
    std::vector<prometheus::MetricFamily> families = CollectStore(*db);
    // Empty on a single node; the families are there for dashboards and
    // alerts all the same.
    prometheus::MetricFamily applied{
        "neardup_cluster_applied_sequence",
        "A cluster's collection: the last log sequence this node applied.",
        prometheus::MetricType::Gauge,
        {}};
    prometheus::MetricFamily pending{
        "neardup_cluster_pending_entries",
        "A cluster's collection: log entries not yet applied on this node "
        "(its lag), as the log last counted.",
        prometheus::MetricType::Gauge,
        {}};
    prometheus::MetricFamily stalled{
        "neardup_cluster_apply_stalled",
        "A cluster's collection: 1 while this node's applier fails on an "
        "entry (the store refuses it, or this build cannot apply it) and "
        "retries, falling behind.",
        prometheus::MetricType::Gauge,
        {}};
    prometheus::MetricFamily snapshots{
        "neardup_cluster_snapshots_loaded_total",
        "A cluster's collection: snapshots of a peer this node loaded since "
        "it started (it joined empty, or the log was trimmed past it).",
        prometheus::MetricType::Counter,
        {}};
    for (const cluster::ReplicaState& state :
         replicas ? replicas() : std::vector<cluster::ReplicaState>()) {
      const std::vector<prometheus::ClientMetric::Label> labels = {
          {"collection", state.collection}};
      applied.metric.push_back(
          Gauge(static_cast<double>(state.applied_sequence), labels));
      pending.metric.push_back(
          Gauge(static_cast<double>(state.pending_entries), labels));
      stalled.metric.push_back(Gauge(state.stalled ? 1 : 0, labels));
      prometheus::ClientMetric loaded;
      loaded.label = labels;
      loaded.counter.value = static_cast<double>(state.snapshots_loaded);
      snapshots.metric.push_back(std::move(loaded));
      // Every shard from 0 on, so that an alert sees its first increase.
      for (int shard = 0; shard < state.shards; ++shard) {
        unanswered.emplace(std::make_pair(state.collection, shard), 0);
      }
    }
    families.push_back(std::move(applied));
    families.push_back(std::move(pending));
    families.push_back(std::move(stalled));
    families.push_back(std::move(snapshots));
    prometheus::MetricFamily shards_unanswered{
        "neardup_cluster_shard_unanswered_total",
        "A cluster: requests to a shard that no replica answered in time "
        "(none caught up and reachable), by collection and shard.",
        prometheus::MetricType::Counter,
        {}};
    for (const auto& [key, count] : unanswered) {
      prometheus::ClientMetric metric;
      metric.label = {{"collection", key.first},
                      {"shard", absl::StrCat(key.second)}};
      metric.counter.value = static_cast<double>(count);
      shards_unanswered.metric.push_back(std::move(metric));
    }
    families.push_back(std::move(shards_unanswered));
    return families;
  }

 private:
  // Collections, indexes and RocksDB.
  static std::vector<prometheus::MetricFamily> CollectStore(
      const engine::Database& database) {
    const engine::Database* db = &database;
    prometheus::MetricFamily documents{
        "neardup_collection_documents",
        "Documents in each collection's in-memory index.",
        prometheus::MetricType::Gauge,
        {}};
    prometheus::MetricFamily index_bytes{
        "neardup_index_memory_bytes",
        "Heap bytes of each collection's in-memory indexes.",
        prometheus::MetricType::Gauge,
        {}};
    prometheus::MetricFamily semantic_vectors{
        "neardup_semantic_vectors",
        "Vectors in the HNSW graphs of each collection with an embedding "
        "space.",
        prometheus::MetricType::Gauge,
        {}};
    prometheus::MetricFamily semantic_bytes{
        "neardup_semantic_index_memory_bytes",
        "Heap bytes of the HNSW graphs (vectors and links) of each collection "
        "with an embedding space; also counted in neardup_index_memory_bytes.",
        prometheus::MetricType::Gauge,
        {}};
    for (const auto& collection : db->ListCollections()) {
      const std::vector<prometheus::ClientMetric::Label> labels = {
          {"collection", collection->name()}};
      documents.metric.push_back(
          Gauge(static_cast<double>(collection->num_documents()), labels));
      index_bytes.metric.push_back(
          Gauge(static_cast<double>(collection->index_bytes()), labels));
      if (const SemanticIndex* semantic = collection->semantic_index()) {
        semantic_vectors.metric.push_back(
            Gauge(static_cast<double>(semantic->size()), labels));
        semantic_bytes.metric.push_back(
            Gauge(static_cast<double>(semantic->memory_bytes()), labels));
      }
    }
    const storage::StoreStats stats = db->store().Stats();
    return {
        std::move(documents),
        std::move(index_bytes),
        std::move(semantic_vectors),
        std::move(semantic_bytes),
        {"neardup_store_live_sst_bytes",
         "Bytes of RocksDB SST files in the live version.",
         prometheus::MetricType::Gauge,
         {Gauge(static_cast<double>(stats.live_sst_bytes))}},
        {"neardup_store_live_blob_bytes",
         "Bytes of RocksDB blob files (stored evidence) in the live version.",
         prometheus::MetricType::Gauge,
         {Gauge(static_cast<double>(stats.live_blob_bytes))}},
        {"neardup_store_blob_garbage_bytes",
         "Bytes of those blob files that belong to replaced or deleted "
         "documents and are not reclaimed yet.",
         prometheus::MetricType::Gauge,
         {Gauge(static_cast<double>(stats.blob_garbage_bytes))}},
        {"neardup_store_pending_compaction_bytes",
         "RocksDB's estimate of bytes compaction still has to rewrite.",
         prometheus::MetricType::Gauge,
         {Gauge(
             static_cast<double>(stats.estimated_pending_compaction_bytes))}},
        {"neardup_data_dir_available_bytes",
         "Bytes free for neardupd on the data directory's filesystem.",
         prometheus::MetricType::Gauge,
         {Gauge(static_cast<double>(stats.disk_available_bytes))}},
        {"neardup_data_dir_capacity_bytes",
         "Size of the data directory's filesystem.",
         prometheus::MetricType::Gauge,
         {Gauge(static_cast<double>(stats.disk_capacity_bytes))}},
        {"neardup_disk_full",
         "1 while writes that grow the store are refused for lack of disk "
         "space (below --min-free-disk-bytes, or RocksDB ran out); they "
         "resume by themselves once space is freed.",
         prometheus::MetricType::Gauge,
         {Gauge(stats.disk_full ? 1 : 0)}},
        {"neardup_quarantined_collections",
         "Stored collections not served because their record or index "
         "rebuild failed (see Stats and the log).",
         prometheus::MetricType::Gauge,
         {Gauge(static_cast<double>(db->QuarantinedCollections().size()))}},
        {"neardup_store_memtable_bytes",
         "Bytes in RocksDB memtables (not yet flushed).",
         prometheus::MetricType::Gauge,
         {Gauge(static_cast<double>(stats.memtable_bytes))}},
        {"neardup_store_write_stall_seconds_total",
         "Seconds writes waited on RocksDB's write controller (delayed or "
         "stopped) since the process opened the store.",
         prometheus::MetricType::Counter,
         {Counter(static_cast<double>(stats.write_stall_micros) / 1e6)}},
        {"neardup_store_write_stalls_total",
         "Times a column family slowed (kind=slowdown) or stopped "
         "(kind=stop) writes since the store was opened: too many L0 files, "
         "memtables or pending compaction bytes.",
         prometheus::MetricType::Counter,
         {Counter(static_cast<double>(stats.write_slowdowns),
                  {{"kind", "slowdown"}}),
          Counter(static_cast<double>(stats.write_stops), {{"kind", "stop"}})}},
    };
  }

 private:
  mutable Mutex mu_;
  std::function<const engine::Database*()> database_ ABSL_GUARDED_BY(mu_);
  std::function<std::vector<cluster::ReplicaState>()> cluster_
      ABSL_GUARDED_BY(mu_);
  std::map<std::pair<std::string, int>, uint64_t> unanswered_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace

const char* MethodName(Method method) {
  return kMethodNames[static_cast<int>(method)];
}

ServerMetrics::ServerMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      state_collector_(std::make_shared<StateCollector>()) {
  auto& rpcs = prometheus::BuildCounter()
                   .Name("neardup_rpcs_total")
                   .Help(
                       "Finished RPCs by method, gRPC status code and "
                       "protocol (grpc, or http through the HTTP/JSON "
                       "listener).")
                   .Register(*registry_);
  auto& items = prometheus::BuildCounter()
                    .Name("neardup_stream_items_total")
                    .Help(
                        "BulkUpsert items and BatchQuery probes by method "
                        "and per-item status code.")
                    .Register(*registry_);
  auto& latency =
      prometheus::BuildHistogram()
          .Name("neardup_rpc_duration_seconds")
          .Help(
              "RPC latency from arrival to completion, by method and "
              "protocol.")
          .Register(*registry_);
  const prometheus::Histogram::BucketBoundaries latency_buckets = {
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
      0.05,   0.1,     0.25,   0.5,   1,      2.5,   5,    10};
  static constexpr const char* kProtocolNames[] = {"grpc", "http"};
  for (int p = 0; p < kProtocols; ++p) {
    for (int m = 0; m < kMethods; ++m) {
      for (int c = 0; c < kNumStatusCodes; ++c) {
        rpcs_[p][m][c] = &rpcs.Add({{"method", kMethodNames[m]},
                                    {"code", CodeLabel(c)},
                                    {"protocol", kProtocolNames[p]}});
      }
      latency_[p][m] = &latency.Add(
          {{"method", kMethodNames[m]}, {"protocol", kProtocolNames[p]}},
          latency_buckets);
    }
  }
  for (auto& codes : stream_items_) codes.fill(nullptr);
  http_responses_ = &prometheus::BuildCounter()
                         .Name("neardup_http_responses_total")
                         .Help(
                             "Answers of the HTTP/JSON listener by HTTP "
                             "status, including requests refused before "
                             "any RPC (bad JSON, unknown route).")
                         .Register(*registry_);
  for (Method m : {Method::kBulkUpsert, Method::kBatchQuery}) {
    for (int c = 0; c < kNumStatusCodes; ++c) {
      stream_items_[static_cast<int>(m)][c] =
          &items.Add({{"method", MethodName(m)}, {"code", CodeLabel(c)}});
    }
  }
  candidates_ = &prometheus::BuildHistogram()
                     .Name("neardup_query_candidates")
                     .Help("Index candidates verified per query.")
                     .Register(*registry_)
                     .Add({}, prometheus::Histogram::BucketBoundaries{
                                  0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000,
                                  5000, 10000});
  auto& verified =
      prometheus::BuildCounter()
          .Name("neardup_query_candidates_verified_total")
          .Help(
              "Index candidates verified against the stored signature, by "
              "outcome (accepted: at or above the threshold).")
          .Register(*registry_);
  verified_accepted_ = &verified.Add({{"result", "accepted"}});
  verified_rejected_ = &verified.Add({{"result", "rejected"}});
  evidence_reads_ = &prometheus::BuildHistogram()
                         .Name("neardup_query_evidence_reads")
                         .Help(
                             "Shingle sets read from the store per query by "
                             "exact verification (a twin class once; 0 for "
                             "queries that verify none: SimHash, semantic, "
                             "estimate collections).")
                         .Register(*registry_)
                         .Add({}, prometheus::Histogram::BucketBoundaries{
                                      0, 1, 2, 5, 10, 20, 50, 100, 200, 500,
                                      1000, 5000, 10000});
  evidence_bytes_ = &prometheus::BuildCounter()
                         .Name("neardup_query_evidence_bytes_total")
                         .Help(
                             "Bytes of the shingle sets exact verification "
                             "read (8 per shingle hash).")
                         .Register(*registry_)
                         .Add({});
  hot_bands_skipped_ =
      &prometheus::BuildCounter()
           .Name("neardup_query_hot_bands_skipped_total")
           .Help(
               "With --hot-band-rows N: hot MinHash band keys (more than N "
               "rows of an index shard, as boilerplate makes them) that "
               "queries left out, once per index shard.")
           .Register(*registry_)
           .Add({});
  rebuild_seconds_ = &prometheus::BuildGauge()
                          .Name("neardup_index_rebuild_seconds")
                          .Help(
                              "Seconds the last start-up spent rebuilding "
                              "each collection's index from RocksDB.")
                          .Register(*registry_);
  rebuild_documents_ = &prometheus::BuildGauge()
                            .Name("neardup_index_rebuild_documents")
                            .Help(
                                "Documents indexed by the last start-up "
                                "rebuild, per collection.")
                            .Register(*registry_);
  auto& backups = prometheus::BuildCounter()
                      .Name("neardup_backups_total")
                      .Help("CreateBackup calls by result (ok, error).")
                      .Register(*registry_);
  backups_ok_ = &backups.Add({{"result", "ok"}});
  backups_failed_ = &backups.Add({{"result", "error"}});
  auto gauge = [&](const char* name, const char* help) {
    return &prometheus::BuildGauge()
                .Name(name)
                .Help(help)
                .Register(*registry_)
                .Add({});
  };
  backup_seconds_ = gauge("neardup_backup_last_duration_seconds",
                          "Seconds the last successful backup took.");
  backup_bytes_ = gauge("neardup_backup_last_bytes",
                        "Bytes of the last successful backup's files.");
  backup_last_success_ =
      gauge("neardup_backup_last_success_timestamp_seconds",
            "Unix time of the last successful backup by this process (0: "
            "none since it started).");
  backups_enabled_ =
      gauge("neardup_backup_enabled", "1 when --backup-dir is set.");
  gauge("neardup_process_start_time_seconds",
        "Unix time this neardupd process started.")
      ->SetToCurrentTime();
  log_appends_ =
      &prometheus::BuildHistogram()
           .Name("neardup_cluster_log_append_seconds")
           .Help(
               "A cluster: appends of writes to the log that a quorum of NATS "
               "servers stored, from publish to acknowledgement.")
           .Register(*registry_)
           .Add({}, latency_buckets);
  log_append_failures_ =
      &prometheus::BuildCounter()
           .Name("neardup_cluster_log_append_failures_total")
           .Help(
               "A cluster: append attempts the log did not acknowledge "
               "(no quorum, a leader being elected); retried within the "
               "write's deadline.")
           .Register(*registry_)
           .Add({});
  fan_out_buckets_ = latency_buckets;
  fan_out_seconds_ =
      &prometheus::BuildHistogram()
           .Name("neardup_cluster_fanout_seconds")
           .Help(
               "A cluster: requests this node sent the shards of a "
               "collection (as a router), from asking to the last answer, "
               "by kind (query, get, collection, blocking, outcome, "
               "snapshot).")
           .Register(*registry_);
  for (const char* kind :
       {"query", "get", "collection", "blocking", "outcome", "snapshot"}) {
    fan_out_seconds_->Add({{"kind", kind}}, fan_out_buckets_);
  }
}

void ServerMetrics::RecordFanOut(const char* kind, double seconds,
                                 const std::string& collection,
                                 const std::vector<int>& unanswered) {
  fan_out_seconds_->Add({{"kind", kind}}, fan_out_buckets_).Observe(seconds);
  for (int shard : unanswered) {
    static_cast<StateCollector*>(state_collector_.get())
        ->AddUnanswered(collection, shard);
  }
}

void ServerMetrics::RecordLogAppend(double seconds, bool stored) {
  if (stored) {
    log_appends_->Observe(seconds);
  } else {
    log_append_failures_->Increment();
  }
}

void ServerMetrics::SetCluster(
    std::function<std::vector<cluster::ReplicaState>()> states) {
  static_cast<StateCollector*>(state_collector_.get())
      ->SetCluster(std::move(states));
}

void ServerMetrics::RecordBackup(bool ok, double seconds, uint64_t bytes) {
  if (!ok) {
    backups_failed_->Increment();
    return;
  }
  backups_ok_->Increment();
  backup_seconds_->Set(seconds);
  backup_bytes_->Set(static_cast<double>(bytes));
  backup_last_success_->SetToCurrentTime();
}

void ServerMetrics::SetBackupsEnabled(bool enabled) {
  backups_enabled_->Set(enabled ? 1 : 0);
}

void ServerMetrics::RecordRpc(Method method, Protocol protocol,
                              grpc::StatusCode code, double seconds) {
  const int m = static_cast<int>(method);
  const int p = static_cast<int>(protocol);
  rpcs_[p][m][CodeIndex(code)]->Increment();
  latency_[p][m]->Observe(seconds);
}

void ServerMetrics::RecordHttpResponse(int status) {
  http_responses_->Add({{"status", absl::StrCat(status)}}).Increment();
}

void ServerMetrics::RecordStreamItem(Method method, grpc::StatusCode code) {
  prometheus::Counter* counter =
      stream_items_[static_cast<int>(method)][CodeIndex(code)];
  if (counter) counter->Increment();
}

void ServerMetrics::RecordQuery(const IndexQueryStats& stats) {
  candidates_->Observe(static_cast<double>(stats.candidates));
  verified_accepted_->Increment(static_cast<double>(stats.accepted));
  // (A sharded query counts its shards' matches as accepted, and hybrid
  // ones add semantic hits that were no MinHash candidate.)
  verified_rejected_->Increment(static_cast<double>(
      stats.candidates > stats.accepted ? stats.candidates - stats.accepted
                                        : 0));
  evidence_reads_->Observe(static_cast<double>(stats.evidence_reads));
  evidence_bytes_->Increment(static_cast<double>(stats.evidence_bytes));
  hot_bands_skipped_->Increment(static_cast<double>(stats.hot_bands_skipped));
}

void ServerMetrics::RecordRebuild(const std::string& collection,
                                  uint64_t documents, double seconds) {
  rebuild_seconds_->Add({{"collection", collection}}).Set(seconds);
  rebuild_documents_->Add({{"collection", collection}})
      .Set(static_cast<double>(documents));
}

void ServerMetrics::SetDatabase(
    std::function<const engine::Database*()> database) {
  static_cast<StateCollector*>(state_collector_.get())
      ->SetDatabase(std::move(database));
}

}  // namespace neardup::server
