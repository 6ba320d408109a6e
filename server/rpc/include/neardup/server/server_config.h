#ifndef NEARDUP_SERVER_SERVER_CONFIG_H_
#define NEARDUP_SERVER_SERVER_CONFIG_H_

// neardupd's settings. Precedence: command-line flag > environment variable
// (NEARDUPD_<FLAG>) > YAML config file (--config) > built-in default.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

#include "absl/status/statusor.h"

namespace neardup::server {

struct ServerConfig {
  std::string listen_address = "127.0.0.1:50051";
  std::string data_dir = "./neardup-data";
  // Prometheus /metrics endpoint; empty (or "off" on the command line)
  // disables it.
  std::string metrics_address = "127.0.0.1:9464";
  // HTTP/JSON API and web console (docs/http.md); empty: off. Same TLS,
  // tokens and limits as gRPC.
  std::string http_address;
  int http_threads = 16;  // HTTP connections served at once
  // Connections waiting for one of them; more are refused with a 503.
  int http_max_waiting_connections = 64;
  // Reading one HTTP request's headers, and each read or write after them.
  double http_request_timeout_seconds = 30;
  int shards = 1;  // index shards per collection (see MinHashIndexOptions)
  // Queries leave out hot MinHash band keys (MinHashIndexOptions); 0: off.
  int hot_band_rows = 0;
  int worker_threads = 0;  // 0: one per hardware thread
  int max_queued_requests = 1024;
  size_t max_message_bytes = size_t{64} << 20;
  size_t max_document_bytes = size_t{16} << 20;
  int max_metadata_keys = 64;                    // per document
  size_t max_metadata_bytes = size_t{64} << 10;  // keys + values, per document
  double default_deadline_seconds = 30;          // for calls that set none
  bool sync_writes = false;                      // fsync every write
  size_t block_cache_bytes = size_t{256} << 20;
  // HTML, Markdown and PDF (content_type) are parsed by sandboxed child
  // processes: this many at once (0: one per core of the cgroup's CPU
  // limit, at most 8), holding this much memory in all (0: a quarter of the
  // cgroup's memory limit, 256 MiB to 2 GiB), each parse stopped after
  // this long. A client may run at most max_extractions_per_client parses
  // at once (0: half the workers, at least one).
  int extract_workers = 0;
  size_t extract_memory_bytes = 0;
  double extract_timeout_seconds = 30;
  int max_extractions_per_client = 0;
  size_t pdf_max_bytes = size_t{50} << 20;
  // Deprecated (one release): --pdf-timeout sets extract_timeout_seconds;
  // --pdf-memory-bytes is ignored (see extract_memory_bytes). 0: not given.
  double pdf_timeout_seconds = 0;
  size_t pdf_memory_bytes = 0;
  uint64_t min_free_disk_bytes = uint64_t{256} << 20;
  // Root of CreateBackup destinations; empty: backups are off.
  std::string backup_dir;
  // Root of the fastText model files collections may embed with; empty:
  // local embeddings are off.
  std::string models_dir;
  std::string log_level = "info";
  // Security: TLS (and mTLS with a client CA), or plaintext when asked for.
  std::string tls_cert;
  std::string tls_key;
  std::string tls_client_ca;
  bool plaintext = false;
  std::string auth_tokens;  // YAML file of hashed tokens; empty: no auth
  // gRPC server reflection (the schema, for grpcurl and the like).
  bool reflection = true;
  // Limits that keep one client from taking the server.
  int max_concurrent_streams = 64;
  uint64_t max_stream_items = 10'000'000;
  int max_calls_per_client = 256;
  int max_streams_per_client = 8;
  double stream_idle_seconds = 60;
  // An export slower than this on average past its first
  // stream_idle_seconds is ended (it pins a store snapshot); 0: no minimum.
  double export_min_bytes_per_second = 65536;
  // Connections: HTTP/2 streams one connection may open, memory all
  // in-flight requests may hold (a gRPC ResourceQuota), keepalive pings and
  // the age after which a connection is asked to reconnect (clients spread
  // over replicas; a parked connection does not live forever).
  int max_streams_per_connection = 100;
  size_t request_memory_bytes = size_t{512} << 20;
  int keepalive_seconds = 60;
  int max_connection_age_seconds = 3600;
  // A cluster (docs/cluster.md): the NATS servers of its log
  // (comma-separated nats:// URLs); empty: a single node. This node's name
  // in the cluster (empty: the host name), and how many NATS servers keep
  // each log entry (3 or 5 in production).
  std::string cluster_nats;
  std::string node_id;
  int cluster_log_replicas = 3;
  // This node holds shard (cluster_shard_index mod S) of a collection of S
  // cluster shards: nodes 0..R*S-1 give R replicas of each.
  int cluster_shard_index = 0;
  // Log trimming and snapshots (docs/cluster.md): a collection's log keeps
  // this many entries behind its slowest replica (-1: never trimmed),
  // trimmed every cluster_trim_seconds; a replica silent longer than
  // cluster_report_ttl_seconds stops holding the log back. An empty replica
  // copies a peer's snapshot when the log holds at least
  // cluster_join_snapshot_entries (0: replays it whole).
  int64_t cluster_log_keep_entries = 10000;
  double cluster_trim_seconds = 60;
  double cluster_report_ttl_seconds = 600;
  int64_t cluster_join_snapshot_entries = 10000;
  // Not a flag: lets in-process tests observe NOT_SERVING while starting.
  std::chrono::milliseconds open_delay_for_tests{0};
};

// Either a config to run with, or an exit code (after --help, --version or
// a usage error, whose text was already printed).
using ParsedCommandLine = std::variant<ServerConfig, int>;

ParsedCommandLine ParseCommandLine(int argc, char** argv);

// Applies a YAML document's keys (the long flag names, e.g. `data-dir`) to
// `config`. INVALID_ARGUMENT names an unknown key or a bad value.
absl::Status ApplyYamlConfig(const std::string& yaml_text,
                             ServerConfig& config);

// INVALID_ARGUMENT for values neardupd cannot run with.
absl::Status ValidateServerConfig(const ServerConfig& config);

}  // namespace neardup::server

#endif  // NEARDUP_SERVER_SERVER_CONFIG_H_
