#include "neardup/server/server_config.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "neardup/base/files.h"
#include "neardup/base/version.h"
#include "yaml-cpp/yaml.h"

namespace neardup::server {
namespace {

constexpr const char* kEnvPrefix = "NEARDUPD_";

// Environment variable of a flag: --data-dir -> NEARDUPD_DATA_DIR.
std::string EnvName(std::string flag) {
  for (char& c : flag) c = c == '-' ? '_' : static_cast<char>(std::toupper(c));
  return kEnvPrefix + flag;
}

// The --config path, looked for before the full parse so that the file can
// provide defaults that flags and environment variables override.
std::string FindConfigPath(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--config" && i + 1 < argc) return argv[i + 1];
    if (arg.starts_with("--config=")) return std::string(arg.substr(9));
  }
  const char* env = std::getenv(EnvName("config").c_str());
  return env ? env : "";
}

// Each setting once: its flag, where it lives, and its help text.
template <typename Visitor>
void ForEachSetting(ServerConfig& c, Visitor&& visit) {
  visit("listen", c.listen_address, "gRPC listen address (host:port)");
  visit("data-dir", c.data_dir, "RocksDB data directory (created if missing)");
  visit("metrics-listen", c.metrics_address,
        "Prometheus /metrics address (host:port); off disables");
  visit("http-listen", c.http_address,
        "HTTP/JSON API and web console address (host:port); empty or off: "
        "none. Same TLS, tokens, limits and metrics as gRPC (docs/http.md)");
  visit("http-threads", c.http_threads,
        "HTTP connections served at once; more wait in a queue");
  visit("http-max-waiting-connections", c.http_max_waiting_connections,
        "HTTP connections that may wait for a thread; more are answered 503 "
        "and closed");
  visit("http-request-timeout", c.http_request_timeout_seconds,
        "seconds an HTTP client may take to send a request's headers, and "
        "for each read or write after them, before its connection is closed");
  visit("shards", c.shards,
        "in-memory MinHash and SimHash index shards per collection: each one "
        "speeds up index rebuilds on a core of its own and costs every query "
        "a probe of every band table (the semantic index uses this clamped "
        "to 4-8 parts)");
  visit("hot-band-rows", c.hot_band_rows,
        "0 (off) or N: queries leave out a MinHash band key more than N "
        "documents of an index shard share (boilerplate) while their other "
        "bands would still find a match at the query's threshold with "
        "probability >= 0.995 if bands were independent; bounds a query's "
        "cost as boilerplate grows, at a recall cost where documents are "
        "mostly boilerplate (docs/architecture.md, \"Hot band keys\")");
  visit("workers", c.worker_threads,
        "worker threads for requests; 0 = one per hardware thread");
  visit("max-queued-requests", c.max_queued_requests,
        "requests waiting for a worker before RESOURCE_EXHAUSTED");
  visit("max-message-bytes", c.max_message_bytes,
        "largest gRPC message accepted or sent");
  visit("max-document-bytes", c.max_document_bytes,
        "largest document text accepted");
  visit("max-metadata-keys", c.max_metadata_keys,
        "metadata entries one document may carry");
  visit("max-metadata-bytes", c.max_metadata_bytes,
        "bytes of metadata (keys and values) one document may carry");
  visit("default-deadline", c.default_deadline_seconds,
        "deadline in seconds for calls that set none");
  visit("sync-writes", c.sync_writes,
        "fsync the write-ahead log on every write (slower, survives power "
        "loss)");
  visit("block-cache-bytes", c.block_cache_bytes,
        "RocksDB block cache (also bounds memtables)");
  visit("min-free-disk-bytes", c.min_free_disk_bytes,
        "free space the data directory's filesystem must keep; below it "
        "upserts and creates get RESOURCE_EXHAUSTED until space is freed "
        "(0 disables)");
  visit("backup-dir", c.backup_dir,
        "directory under which CreateBackup (neardup backup) writes "
        "checkpoints; empty: backups are off");
  visit("models-dir", c.models_dir,
        "directory of fastText model files (.bin) that collections may name "
        "to embed texts themselves; empty: local embeddings are off");
  visit("extract-workers", c.extract_workers,
        "sandboxed processes that turn HTML, Markdown and PDF into text, "
        "parses at once (more are refused with RESOURCE_EXHAUSTED); 0 = one "
        "per core of the container's CPU limit, at most 8");
  visit("extract-memory-bytes", c.extract_memory_bytes,
        "memory all extraction processes may hold together, split evenly "
        "among them; 0 = a quarter of the container's memory limit, 256 MiB "
        "to 2 GiB");
  visit("extract-timeout", c.extract_timeout_seconds,
        "seconds one HTML, Markdown or PDF parse may take before its process "
        "is killed and the request refused");
  visit("max-extractions-per-client", c.max_extractions_per_client,
        "parses one client (token, or connection) may run at once; 0 = half "
        "of --extract-workers, at least 1");
  visit("pdf-max-bytes", c.pdf_max_bytes,
        "largest PDF accepted (also bounded by --max-document-bytes)");
  visit("pdf-timeout", c.pdf_timeout_seconds,
        "deprecated: use --extract-timeout");
  visit("pdf-memory-bytes", c.pdf_memory_bytes,
        "deprecated and ignored: use --extract-memory-bytes");
  visit("log-level", c.log_level, "trace|debug|info|warn|error|off");
  visit("tls-cert", c.tls_cert, "PEM server certificate (chain) for TLS");
  visit("tls-key", c.tls_key, "PEM private key of --tls-cert");
  visit("tls-client-ca", c.tls_client_ca,
        "PEM CA bundle: require client certificates signed by it (mTLS)");
  visit("plaintext", c.plaintext,
        "serve gRPC without TLS (only for loopback or a trusted network)");
  visit("auth-tokens", c.auth_tokens,
        "YAML file of SHA-256-hashed bearer tokens and their scopes; empty: "
        "no authentication. With tokens, /metrics asks for HTTP basic auth "
        "whose password is a token with scope metrics");
  visit("reflection", c.reflection,
        "serve gRPC reflection (the API schema, for grpcurl); "
        "--reflection=false turns it off");
  visit("max-concurrent-streams", c.max_concurrent_streams,
        "BulkUpsert/BatchQuery streams open at once");
  visit("max-stream-items", c.max_stream_items, "items one stream may carry");
  visit("max-calls-per-client", c.max_calls_per_client,
        "calls one connection may have queued or running");
  visit("max-streams-per-client", c.max_streams_per_client,
        "BulkUpsert/BatchQuery streams one client (token, or connection) "
        "may have open at once");
  visit("stream-idle-seconds", c.stream_idle_seconds,
        "end a stream that got no message for this long (DEADLINE_EXCEEDED); "
        "0 never");
  visit("export-min-bytes-per-second", c.export_min_bytes_per_second,
        "an Export read slower than this on average, past its first "
        "--stream-idle-seconds, is ended (it holds a snapshot of the store "
        "while it runs); 0 = no minimum");
  visit("max-streams-per-connection", c.max_streams_per_connection,
        "HTTP/2 streams (calls) one connection may have open at once");
  visit("request-memory-bytes", c.request_memory_bytes,
        "memory all in-flight requests may hold (gRPC resource quota)");
  visit("keepalive", c.keepalive_seconds,
        "seconds between keepalive pings on idle connections");
  visit("max-connection-age", c.max_connection_age_seconds,
        "seconds after which a connection is asked to reconnect (its calls "
        "get 5 more minutes)");
  visit("cluster-nats", c.cluster_nats,
        "comma-separated nats:// URLs of the NATS JetStream servers holding "
        "the cluster's log; empty: a single node (docs/cluster.md)");
  visit("node-id", c.node_id,
        "this node's name in the cluster, unique among its nodes; empty: the "
        "host name");
  visit("cluster-log-replicas", c.cluster_log_replicas,
        "NATS servers that keep each log entry (1, 3 or 5)");
  visit("cluster-shard-index", c.cluster_shard_index,
        "this node holds shard (index mod S) of a collection of S cluster "
        "shards; give nodes 0, 1, 2, ...; -1: the number --node-id ends "
        "with (a StatefulSet pod's ordinal)");
  visit("cluster-log-keep-entries", c.cluster_log_keep_entries,
        "log entries each collection keeps behind its slowest replica; the "
        "older ones are trimmed (a replica behind them copies a peer's "
        "snapshot); -1: never trim");
  visit("cluster-trim-seconds", c.cluster_trim_seconds,
        "how often a node trims its collections' logs");
  visit("cluster-report-ttl-seconds", c.cluster_report_ttl_seconds,
        "a replica silent this long (its node gone) no longer holds the log "
        "back; set by the cluster's first node");
  visit("cluster-join-snapshot-entries", c.cluster_join_snapshot_entries,
        "an empty replica copies a caught-up peer's snapshot when the log "
        "holds at least this many entries, and replays a shorter one; 0: "
        "always replays");
}

template <typename T>
absl::Status FromYaml(const YAML::Node& node, const std::string& key,
                      T& value) {
  try {
    value = node.as<T>();
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("config key '", key, "': ", e.what()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ApplyYamlConfig(const std::string& yaml_text,
                             ServerConfig& config) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("config file is not valid YAML: ", e.what()));
  }
  if (root.IsNull()) return absl::OkStatus();
  if (!root.IsMap()) {
    return absl::InvalidArgumentError(
        "config file must be a YAML mapping of flag names to values");
  }
  for (const auto& entry : root) {
    const std::string key = entry.first.as<std::string>();
    bool known = false;
    absl::Status status;
    ForEachSetting(config, [&](const char* flag, auto& value, const char*) {
      if (key != flag) return;
      known = true;
      status = FromYaml(entry.second, key, value);
    });
    if (!known) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown config key '", key,
                       "' (keys are the long flag names, e.g. data-dir)"));
    }
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status ValidateServerConfig(const ServerConfig& c) {
  if (c.listen_address.empty()) {
    return absl::InvalidArgumentError("--listen must not be empty");
  }
  if (c.cluster_shard_index < -1) {
    return absl::InvalidArgumentError(
        "--cluster-shard-index must be at least 0 (or -1: from --node-id)");
  }
  if (c.cluster_log_keep_entries < -1) {
    return absl::InvalidArgumentError(
        "--cluster-log-keep-entries must be at least 0 (or -1: never trim)");
  }
  if (!(c.cluster_trim_seconds > 0) || !(c.cluster_report_ttl_seconds >= 1)) {
    return absl::InvalidArgumentError(
        "--cluster-trim-seconds must be above 0 and "
        "--cluster-report-ttl-seconds at least 1");
  }
  if (c.cluster_join_snapshot_entries < 0) {
    return absl::InvalidArgumentError(
        "--cluster-join-snapshot-entries must be at least 0");
  }
  if (c.cluster_log_replicas < 1 || c.cluster_log_replicas > 5) {
    return absl::InvalidArgumentError(
        "--cluster-log-replicas must be in [1, 5]");
  }
  if (c.data_dir.empty()) {
    return absl::InvalidArgumentError("--data-dir must not be empty");
  }
  if (c.hot_band_rows < 0) {
    return absl::InvalidArgumentError("--hot-band-rows must be 0 or more");
  }
  if (c.shards < 1 || c.shards > 4096) {
    return absl::InvalidArgumentError("--shards must be in [1, 4096]");
  }
  if (c.worker_threads < 0 || c.worker_threads > 1024) {
    return absl::InvalidArgumentError("--workers must be in [0, 1024]");
  }
  if (c.max_queued_requests < 1) {
    return absl::InvalidArgumentError("--max-queued-requests must be >= 1");
  }
  if (c.max_message_bytes < 1024 ||
      c.max_message_bytes > (size_t{1} << 31) - 1) {
    return absl::InvalidArgumentError(
        "--max-message-bytes must be in [1024, 2^31 - 1]");
  }
  if (c.max_document_bytes < 1 || c.max_document_bytes > c.max_message_bytes) {
    return absl::InvalidArgumentError(
        "--max-document-bytes must be in [1, --max-message-bytes]");
  }
  if (c.max_metadata_keys < 0 || c.max_metadata_keys > 100000) {
    return absl::InvalidArgumentError(
        "--max-metadata-keys must be in [0, 100000]");
  }
  if (c.max_metadata_bytes > c.max_message_bytes) {
    return absl::InvalidArgumentError(
        "--max-metadata-bytes must be at most --max-message-bytes");
  }
  if (c.max_streams_per_connection < 1) {
    return absl::InvalidArgumentError(
        "--max-streams-per-connection must be >= 1");
  }
  if (c.request_memory_bytes < c.max_message_bytes) {
    return absl::InvalidArgumentError(
        "--request-memory-bytes must be at least --max-message-bytes");
  }
  if (c.keepalive_seconds < 1 || c.max_connection_age_seconds < 1) {
    return absl::InvalidArgumentError(
        "--keepalive and --max-connection-age must be >= 1 second");
  }
  if (!(c.extract_timeout_seconds > 0 && c.extract_timeout_seconds <= 3600) ||
      !(c.pdf_timeout_seconds >= 0 && c.pdf_timeout_seconds <= 3600) ||
      c.pdf_max_bytes < 1) {
    return absl::InvalidArgumentError(
        "--extract-timeout (and the deprecated --pdf-timeout) must be in (0, "
        "3600] and --pdf-max-bytes >= 1");
  }
  if (c.extract_workers < 0 || c.extract_workers > 256 ||
      c.max_extractions_per_client < 0) {
    return absl::InvalidArgumentError(
        "--extract-workers must be in [0, 256] and "
        "--max-extractions-per-client >= 0");
  }
  if (c.extract_memory_bytes != 0 &&
      c.extract_memory_bytes <
          (size_t{64} << 20) *
              static_cast<size_t>(std::max(1, c.extract_workers))) {
    return absl::InvalidArgumentError(
        "--extract-memory-bytes must give each extraction worker at least "
        "64 MiB (or be 0 for the default)");
  }
  if (!(c.default_deadline_seconds > 0)) {
    return absl::InvalidArgumentError("--default-deadline must be > 0");
  }
  if (c.tls_cert.empty() != c.tls_key.empty()) {
    return absl::InvalidArgumentError("--tls-cert and --tls-key go together");
  }
  if (!c.tls_client_ca.empty() && c.tls_cert.empty()) {
    return absl::InvalidArgumentError(
        "--tls-client-ca (mTLS) needs --tls-cert and --tls-key");
  }
  if (c.tls_cert.empty() && !c.plaintext) {
    return absl::InvalidArgumentError(
        "no TLS configured: give --tls-cert and --tls-key, or --plaintext to "
        "serve without TLS on a trusted network");
  }
  if (!c.tls_cert.empty() && c.plaintext) {
    return absl::InvalidArgumentError(
        "--plaintext contradicts --tls-cert; choose one");
  }
  if (c.http_threads < 1 || c.http_threads > 1024) {
    return absl::InvalidArgumentError("--http-threads must be in [1, 1024]");
  }
  if (c.http_max_waiting_connections < 0 ||
      c.http_max_waiting_connections > 65536) {
    return absl::InvalidArgumentError(
        "--http-max-waiting-connections must be in [0, 65536]");
  }
  if (!(c.http_request_timeout_seconds >= 0.1) ||
      c.http_request_timeout_seconds > 3600) {
    return absl::InvalidArgumentError(
        "--http-request-timeout must be in [0.1, 3600] seconds");
  }
  if (c.max_streams_per_client < 1) {
    return absl::InvalidArgumentError("--max-streams-per-client must be >= 1");
  }
  if (!(c.export_min_bytes_per_second >= 0)) {
    return absl::InvalidArgumentError(
        "--export-min-bytes-per-second must be >= 0");
  }
  if (!(c.stream_idle_seconds >= 0)) {
    return absl::InvalidArgumentError("--stream-idle-seconds must be >= 0");
  }
  if (c.max_concurrent_streams < 1 || c.max_calls_per_client < 1 ||
      c.max_stream_items < 1) {
    return absl::InvalidArgumentError(
        "--max-concurrent-streams, --max-stream-items and "
        "--max-calls-per-client must be >= 1");
  }
  return absl::OkStatus();
}

ParsedCommandLine ParseCommandLine(int argc, char** argv) {
  ServerConfig config;
  const std::string config_path = FindConfigPath(argc, argv);
  if (!config_path.empty()) {
    const absl::StatusOr<std::string> text = ReadFile(config_path);
    if (!text.ok()) {
      std::fprintf(stderr, "neardupd: config file: %s\n",
                   std::string(text.status().message()).c_str());
      return 2;
    }
    if (absl::Status s = ApplyYamlConfig(*text, config); !s.ok()) {
      std::fprintf(stderr, "neardupd: %s: %s\n", config_path.c_str(),
                   std::string(s.message()).c_str());
      return 2;
    }
  }

  CLI::App app{
      "neardupd: near-duplicate text detection over gRPC.\n"
      "Every flag can also come from the environment (NEARDUPD_<FLAG>, e.g. "
      "NEARDUPD_DATA_DIR) or from a YAML file given with --config whose keys "
      "are the flag names. Flags win over the environment, which wins over "
      "the file."};
  app.set_version_flag("--version", absl::StrCat("neardupd ", kVersion));
  std::string unused_config_path = config_path;
  app.add_option("--config", unused_config_path, "YAML config file")
      ->envname(EnvName("config"));
  ForEachSetting(config, [&](const char* flag, auto& value, const char* help) {
    using T = std::decay_t<decltype(value)>;
    const std::string name = std::string("--") + flag;
    if constexpr (std::is_same_v<T, bool>) {
      app.add_flag(name, value, help)
          ->envname(EnvName(flag))
          ->capture_default_str();
    } else {
      app.add_option(name, value, help)
          ->envname(EnvName(flag))
          ->capture_default_str();
    }
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (config.http_address == "off" || config.http_address == "none") {
    config.http_address.clear();
  }
  if (config.metrics_address == "off" || config.metrics_address == "none") {
    config.metrics_address.clear();
  }
  if (config.pdf_timeout_seconds > 0) {
    std::fprintf(stderr,
                 "neardupd: --pdf-timeout is deprecated; use "
                 "--extract-timeout (it now applies to HTML and Markdown "
                 "too)\n");
    config.extract_timeout_seconds = config.pdf_timeout_seconds;
  }
  if (config.pdf_memory_bytes > 0) {
    std::fprintf(stderr,
                 "neardupd: --pdf-memory-bytes is deprecated and ignored; "
                 "--extract-memory-bytes sets the memory of all extraction "
                 "workers\n");
  }
  if (absl::Status s = ValidateServerConfig(config); !s.ok()) {
    std::fprintf(stderr, "neardupd: %s\n", std::string(s.message()).c_str());
    return 2;
  }
  return config;
}

}  // namespace neardup::server
