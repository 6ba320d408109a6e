#include "neardup/server/server.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>

#include "absl/random/random.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/resource_quota.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/files.h"
#include "neardup/base/status_macros.h"
#include "neardup/cluster/cluster_node.h"
#include "neardup/engine/database.h"
#include "neardup/extract/extract_pool.h"
#include "neardup/http/gateway.h"
#include "neardup/server/internal/metrics.h"
#include "neardup/server/internal/resource_limits.h"
#include "neardup/server/internal/service.h"
#include "neardup/server/internal/token_processor.h"
#include "prometheus/exposer.h"
#include "spdlog/spdlog.h"

namespace neardup::server {
namespace {

constexpr const char* kServiceName = "neardup.v1.NearDup";

void SetHealth(grpc::Server* server, bool serving) {
  grpc::HealthCheckServiceInterface* health = server->GetHealthCheckService();
  if (health == nullptr) return;
  health->SetServingStatus(serving);  // "" and every service
  health->SetServingStatus(kServiceName, serving);
}

// A TLS file named by `flag`, or an error that names the flag.
absl::StatusOr<std::string> ReadTlsFile(const std::string& path,
                                        std::string_view flag) {
  absl::StatusOr<std::string> bytes = ReadFile(path);
  if (!bytes.ok()) return Prefixed(flag, bytes.status());
  return bytes;
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentials(
    const ServerConfig& config) {
  if (config.tls_cert.empty()) {
    spdlog::warn(
        "serving gRPC WITHOUT TLS (--plaintext): use only on "
        "loopback or a trusted network");
    return grpc::InsecureServerCredentials();
  }
  grpc::SslServerCredentialsOptions options(
      config.tls_client_ca.empty()
          ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
          : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
  auto key = ReadTlsFile(config.tls_key, "--tls-key");
  if (!key.ok()) return key.status();
  auto cert = ReadTlsFile(config.tls_cert, "--tls-cert");
  if (!cert.ok()) return cert.status();
  pair.private_key = *std::move(key);
  pair.cert_chain = *std::move(cert);
  options.pem_key_cert_pairs.push_back(std::move(pair));
  if (!config.tls_client_ca.empty()) {
    auto ca = ReadTlsFile(config.tls_client_ca, "--tls-client-ca");
    if (!ca.ok()) return ca.status();
    options.pem_root_certs = *std::move(ca);
  }
  spdlog::info("TLS on{}", config.tls_client_ca.empty()
                               ? ""
                               : ", client certificates required (mTLS)");
  return grpc::SslServerCredentials(options);
}

}  // namespace

NeardupServer::NeardupServer(const ServerConfig& config) : config_(config) {}

absl::StatusOr<std::unique_ptr<NeardupServer>> NeardupServer::Start(
    const ServerConfig& config) {
  std::unique_ptr<NeardupServer> server(new NeardupServer(config));
  server->metrics_ = std::make_unique<ServerMetrics>();
  // Extraction: sandboxed children sized to the container, not the node.
  const ResourceLimits limits = DetectResourceLimits();
  const ExtractSizing sizing = SizeExtraction(limits, config.extract_workers,
                                              config.extract_memory_bytes);
  if (sizing.memory_bytes / static_cast<size_t>(sizing.workers) <
      (size_t{64} << 20)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--extract-workers ", sizing.workers, " with ",
        sizing.memory_bytes >> 20,
        " MiB of extraction memory leaves each worker under 64 MiB: give "
        "fewer workers or more --extract-memory-bytes"));
  }
  extract::ExtractPoolOptions extract;
  extract.workers = sizing.workers;
  extract.memory_bytes_per_worker =
      sizing.memory_bytes / static_cast<size_t>(sizing.workers);
  extract.timeout = absl::Seconds(config.extract_timeout_seconds);
  extract.max_input_bytes = config.max_document_bytes;
  // Extracted text is a document like any other.
  extract.max_text_bytes = config.max_document_bytes;
  server->extractor_ = std::make_unique<extract::ExtractPool>(extract);
  spdlog::info(
      "extraction: {} sandboxed workers, {} MiB each, {} s per parse ({} "
      "cores{}, {} MiB memory{})",
      sizing.workers, extract.memory_bytes_per_worker >> 20,
      config.extract_timeout_seconds, limits.cpus,
      limits.cpus_from_cgroup ? " by the cgroup" : "",
      limits.memory_bytes >> 20,
      limits.memory_from_cgroup ? " by the cgroup" : "");
  // Requests waiting on an extraction child hold a worker thread without
  // using its core: one thread more for each, so that they cannot hold
  // back everything else.
  const int workers =
      (config.worker_threads > 0
           ? config.worker_threads
           : std::max(2, static_cast<int>(std::ceil(limits.cpus)))) +
      sizing.workers;
  server->pool_ = std::make_unique<WorkerPool>(
      workers, static_cast<size_t>(config.max_queued_requests));
  if (!config.cluster_nats.empty()) {
    server->shard_pool_ = std::make_unique<WorkerPool>(
        workers, static_cast<size_t>(config.max_queued_requests));
    server->shard_reads_pool_ = std::make_unique<WorkerPool>(
        workers, static_cast<size_t>(config.max_queued_requests));
  }
  ServiceOptions options;
  if (!config.auth_tokens.empty()) {
    auto auth = TokenAuthenticator::FromFile(config.auth_tokens);
    if (!auth.ok()) return auth.status();
    spdlog::info("authentication on: {} tokens from {}", auth->size(),
                 config.auth_tokens);
    options.auth = std::make_shared<TokenAuthenticator>(*std::move(auth));
  } else {
    spdlog::warn(
        "authentication off: every caller may read and write "
        "(give --auth-tokens to require tokens)");
  }
  options.max_concurrent_streams = config.max_concurrent_streams;
  options.max_stream_items = config.max_stream_items;
  options.max_calls_per_client = config.max_calls_per_client;
  options.max_streams_per_client = config.max_streams_per_client;
  options.stream_idle_seconds = config.stream_idle_seconds;
  options.export_min_bytes_per_second = config.export_min_bytes_per_second;
  options.max_message_bytes = config.max_message_bytes;
  options.handler.max_document_bytes = config.max_document_bytes;
  options.handler.extractor = server->extractor_.get();
  options.handler.max_pdf_bytes = config.pdf_max_bytes;
  options.max_extractions_per_client = config.max_extractions_per_client > 0
                                           ? config.max_extractions_per_client
                                           : std::max(1, sizing.workers / 2);
  options.handler.max_metadata_keys = config.max_metadata_keys;
  options.handler.max_metadata_bytes = config.max_metadata_bytes;
  options.handler.max_response_bytes = config.max_message_bytes;
  options.handler.sync_writes = config.sync_writes;
  options.handler.models_dir = config.models_dir;
  options.handler.cluster_write_timeout =
      absl::Seconds(config.default_deadline_seconds);
  options.default_deadline_seconds = config.default_deadline_seconds;
  if (!config.backup_dir.empty()) {
    // Created now, so that a typo shows at start and not at the first
    // backup; resolved, so that destinations compare against its real path.
    std::error_code error;
    std::filesystem::create_directories(config.backup_dir, error);
    if (error) {
      return absl::InvalidArgumentError(
          absl::StrCat("--backup-dir ", config.backup_dir,
                       " cannot be created: ", error.message()));
    }
    options.backup_root = config.backup_dir;
    spdlog::info("backups: CreateBackup writes under {}", config.backup_dir);
  }
  server->metrics_->SetBackupsEnabled(!config.backup_dir.empty());
  if (!config.http_address.empty()) {
    absl::BitGen random;
    options.gateway_key =
        absl::StrCat(absl::Hex(absl::Uniform<uint64_t>(random)),
                     absl::Hex(absl::Uniform<uint64_t>(random)));
  }
  server->service_ = std::make_unique<NearDupService>(
      options, server->pool_.get(), server->metrics_.get());

  grpc::EnableDefaultHealthCheckService(true);
  if (config.reflection) {
    grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  }
  grpc::ServerBuilder builder;
  auto credentials = ServerCredentials(config);
  if (!credentials.ok()) return credentials.status();
  if (options.auth != nullptr && !config.tls_cert.empty()) {
    // Tokens checked on the headers, before a body is read (TLS only: gRPC's
    // insecure credentials take no processor).
    (*credentials)
        ->SetAuthMetadataProcessor(
            std::make_shared<TokenMetadataProcessor>(options.auth));
  }
  builder.AddListeningPort(config.listen_address, *credentials,
                           &server->grpc_port_);
  builder.SetMaxReceiveMessageSize(static_cast<int>(config.max_message_bytes));
  builder.SetMaxSendMessageSize(static_cast<int>(config.max_message_bytes));
  // Bounds on what connections may hold (see ServerConfig).
  grpc::ResourceQuota quota("neardupd-requests");
  quota.Resize(config.request_memory_bytes);
  builder.SetResourceQuota(quota);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS,
                             config.max_streams_per_connection);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS,
                             config.keepalive_seconds * 1000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 20'000);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_MS,
                             config.max_connection_age_seconds * 1000);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_GRACE_MS, 300'000);
  builder.RegisterService(server->service_.get());
  server->grpc_server_ = builder.BuildAndStart();
  if (server->grpc_server_ == nullptr || server->grpc_port_ == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", config.listen_address,
                     " (in use, or not a valid host:port)"));
  }
  SetHealth(server->grpc_server_.get(), false);

  if (!config.metrics_address.empty()) {
    try {
      server->exposer_ =
          std::make_unique<prometheus::Exposer>(config.metrics_address, 1);
    } catch (const std::exception& e) {
      server->grpc_server_->Shutdown();
      return absl::UnavailableError(absl::StrCat(
          "cannot serve metrics on ", config.metrics_address, ": ", e.what()));
    }
    if (options.auth != nullptr) {
      // The same token file as gRPC: Prometheus sends one with scope metrics
      // as the basic-auth password (the user name is not checked).
      server->exposer_->RegisterAuth(
          [auth = options.auth](const std::string&,
                                const std::string& password) {
            const absl::StatusOr<const TokenEntry*> token =
                auth->Authenticate(absl::StrCat("Bearer ", password));
            return token.ok() && *token != nullptr &&
                   TokenAuthenticator::Authorize(**token, Access::kMetrics, "*")
                       .ok();
          },
          "neardupd");
    }
    server->exposer_->RegisterCollectable(server->metrics_->registry());
    server->exposer_->RegisterCollectable(server->metrics_->state_collector());
    const std::vector<int> ports = server->exposer_->GetListeningPorts();
    server->metrics_port_ = ports.empty() ? 0 : ports.front();
  }
  if (!config.http_address.empty()) {
    if (absl::Status started = server->StartHttp(options.gateway_key);
        !started.ok()) {
      server->grpc_server_->Shutdown();
      return started;
    }
  }
  spdlog::info(
      "listening for gRPC on port {}, metrics on port {}, HTTP on port {}",
      server->grpc_port_, server->metrics_port_, server->http_port_);
  server->loader_ = std::thread([s = server.get()] { s->OpenDatabase(); });
  return server;
}

absl::Status NeardupServer::StartHttp(const std::string& gateway_key) {
  http::GatewayOptions options;
  options.server.listen = config_.http_address;
  options.server.threads = config_.http_threads;
  options.server.max_waiting_connections = config_.http_max_waiting_connections;
  options.server.request_timeout =
      absl::Seconds(config_.http_request_timeout_seconds);
  options.server.keep_alive_timeout =
      std::min(absl::Seconds(5), options.server.request_timeout);
  options.server.tls_cert = config_.tls_cert;
  options.server.tls_key = config_.tls_key;
  options.server.tls_client_ca = config_.tls_client_ca;
  options.max_body_bytes = config_.max_message_bytes;
  {
    // On a loopback address, API requests must name a loopback host.
    std::string host =
        config_.http_address.substr(0, config_.http_address.rfind(':'));
    options.loopback_hosts_only =
        host == "localhost" || host == "[::1]" || host.starts_with("127.");
  }
  options.gateway_key = gateway_key;
  options.on_response = [metrics = metrics_.get()](int status) {
    metrics->RecordHttpResponse(status);
  };
  // The gateway's calls are limited by the service, as gRPC clients' are,
  // not by the channel.
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(-1);
  arguments.SetMaxSendMessageSize(-1);
  absl::StatusOr<std::unique_ptr<http::Gateway>> gateway = http::Gateway::Start(
      std::move(options), grpc_server_->InProcessChannel(arguments));
  if (!gateway.ok()) return gateway.status();
  gateway_ = *std::move(gateway);
  http_port_ = gateway_->port();
  spdlog::info("HTTP/JSON API and console on {} ({})", config_.http_address,
               config_.tls_cert.empty() ? "http, no TLS" : "https");
  return absl::OkStatus();
}

void NeardupServer::OpenDatabase() {
  std::this_thread::sleep_for(config_.open_delay_for_tests);
  spdlog::info("opening store in {} and rebuilding indexes", config_.data_dir);
  const auto start = std::chrono::steady_clock::now();
  engine::DatabaseOptions options;
  options.store.block_cache_bytes = config_.block_cache_bytes;
  options.store.min_free_disk_bytes = config_.min_free_disk_bytes;
  options.store.write_buffer_bytes =
      std::min(config_.block_cache_bytes / 2, size_t{64} << 20);
  options.index_shards = config_.shards;
  options.hot_band_rows = static_cast<size_t>(config_.hot_band_rows);
  auto db = engine::Database::Open(
      config_.data_dir, options, [this](const engine::RebuildReport& r) {
        spdlog::info(
            "collection '{}': {} documents indexed in {:.2f} s ({:.0f} docs/s)",
            r.collection, r.documents, r.seconds, r.docs_per_second());
        metrics_->RecordRebuild(r.collection, r.documents, r.seconds);
      });
  if (!db.ok()) {
    spdlog::error("cannot open the store: {}", db.status().ToString());
    MutexLock lock(&mu_);
    stop_status_ = db.status();
    stopped_ = true;
    stopped_cv_.SignalAll();
    return;
  }
  db_ = std::move(*db);
  for (const engine::QuarantinedCollection& bad :
       db_->QuarantinedCollections()) {
    spdlog::error(
        "collection '{}' is quarantined and not served: {}; every other "
        "collection serves. Drop it or restore the store from a backup.",
        bad.name, bad.reason.ToString());
  }
  if (!config_.cluster_nats.empty()) {
    if (absl::Status joined = JoinCluster(); !joined.ok()) {
      if (absl::IsCancelled(joined)) return;  // shut down while waiting
      spdlog::error("cannot join the cluster: {}", joined.ToString());
      MutexLock lock(&mu_);
      stop_status_ = joined;
      stopped_ = true;
      stopped_cv_.SignalAll();
      return;
    }
  }
  service_->SetDatabase(db_.get(), cluster_.get(), shard_reads_pool_.get());
  if (cluster_ != nullptr) {
    metrics_->SetCluster(
        [node = cluster_.get()] { return node->ReplicaStates(); });
  }
  metrics_->SetDatabase([db = db_.get()] { return db; });
  {
    MutexLock lock(&mu_);
    if (shutting_down_) return;
    serving_ = true;
  }
  SetHealth(grpc_server_.get(), true);
  spdlog::info(
      "serving: {} collections ready ({} quarantined) after {:.2f} s",
      db_->ListCollections().size(), db_->QuarantinedCollections().size(),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count());
}

namespace {

// --cluster-shard-index, or (-1) the number the node id ends with: a
// StatefulSet's pods are <name>-<ordinal>.
absl::StatusOr<int> ShardIndexOf(int flag, const std::string& node_id) {
  if (flag >= 0) return flag;
  size_t digits = node_id.size();
  while (digits > 0 && absl::ascii_isdigit(node_id[digits - 1])) --digits;
  int index = 0;
  if (digits == node_id.size() || node_id.size() - digits > 6 ||
      !absl::SimpleAtoi(node_id.substr(digits), &index)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--cluster-shard-index=-1 takes the number --node-id ends with, but "
        "node id \"",
        node_id, "\" ends with none"));
  }
  return index;
}

}  // namespace

absl::Status NeardupServer::JoinCluster() {
  cluster::ClusterNodeOptions options;
  for (absl::string_view url :
       absl::StrSplit(config_.cluster_nats, ',', absl::SkipWhitespace())) {
    options.log.servers.emplace_back(url);
  }
  options.log_replicas = config_.cluster_log_replicas;
  options.node_id = config_.node_id;
  if (options.node_id.empty()) {
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    options.node_id = host;
  }
  options.registry_poll = absl::Seconds(2);
  options.trim_every = config_.cluster_log_keep_entries < 0
                           ? absl::ZeroDuration()
                           : absl::Seconds(config_.cluster_trim_seconds);
  options.trim_keep_entries = static_cast<uint64_t>(
      std::max<int64_t>(config_.cluster_log_keep_entries, 0));
  options.report_ttl = absl::Seconds(config_.cluster_report_ttl_seconds);
  // Often enough that a report never outlives its TTL, and that trimming
  // sees fresh ones.
  options.report_every =
      std::min({absl::Seconds(5), options.report_ttl / 4,
                absl::Seconds(config_.cluster_trim_seconds) / 2});
  options.join_snapshot_entries =
      static_cast<uint64_t>(config_.cluster_join_snapshot_entries);
  ASSIGN_OR_RETURN(options.shard_index,
                   ShardIndexOf(config_.cluster_shard_index, options.node_id));
  // Requests for this node's shards run on a pool of their own: a query
  // holding a request worker while it waits for the shards must not keep
  // them from answering it.
  options.shard_service = [service =
                               service_.get()](const cluster::ShardCall& call) {
    return service->ServeShard(call);
  };
  options.run = [pool = shard_pool_.get()](std::function<void()> work) {
    return pool->TrySubmit(std::move(work));
  };
  options.on_warning = [](const std::string& what) {
    spdlog::warn("cluster: {}", what);
  };
  options.on_append = [metrics = metrics_.get()](absl::Duration took,
                                                 bool stored) {
    metrics->RecordLogAppend(absl::ToDoubleSeconds(took), stored);
  };
  options.on_fan_out = [metrics =
                            metrics_.get()](const cluster::FanOut& fan_out) {
    metrics->RecordFanOut(cluster::ShardCallKindName(fan_out.kind),
                          absl::ToDoubleSeconds(fan_out.took),
                          std::string(fan_out.collection), fan_out.unanswered);
  };
  spdlog::info("joining the cluster as node '{}' (log on {})", options.node_id,
               config_.cluster_nats);
  // The log may come up after this node (compose, Kubernetes): it is
  // waited for; an error of another kind stops the start.
  std::unique_ptr<cluster::ClusterNode> node;
  while (true) {
    absl::Status status;
    if (node == nullptr) {
      absl::StatusOr<std::unique_ptr<cluster::ClusterNode>> started =
          cluster::ClusterNode::Start(*db_, options);
      status = started.status();
      if (started.ok()) node = *std::move(started);
    }
    if (node != nullptr) {
      status = node->HostRegistered();
      if (!status.ok() && !absl::IsUnavailable(status) &&
          !absl::IsDeadlineExceeded(status)) {
        // A collection this node cannot host is not served here; the
        // others are.
        spdlog::error("not serving a collection of the cluster: {}",
                      status.ToString());
        status = absl::OkStatus();
      }
      if (status.ok()) status = node->CatchUp(absl::Now() + absl::Seconds(10));
      if (status.ok()) {
        cluster_ = std::move(node);
        spdlog::info("caught up with the cluster's log");
        return absl::OkStatus();
      }
    }
    if (!absl::IsUnavailable(status) && !absl::IsDeadlineExceeded(status)) {
      return status;
    }
    spdlog::warn("waiting for the cluster's log: {}", status.ToString());
    MutexLock lock(&mu_);
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (!shutting_down_ && stopped_cv_.WaitUntil(&mu_, until)) {
    }
    if (shutting_down_) return absl::CancelledError("shutting down");
  }
}

bool NeardupServer::serving() const {
  MutexLock lock(&mu_);
  return serving_;
}

void NeardupServer::Shutdown(std::chrono::milliseconds grace) {
  {
    MutexLock lock(&mu_);
    if (shutting_down_) return;
    shutting_down_ = true;
    serving_ = false;
  }
  spdlog::info("shutting down: draining in-flight calls");
  if (service_) service_->StopAccepting();
  if (grpc_server_) {
    SetHealth(grpc_server_.get(), false);
    // Waits for in-flight calls until the deadline, then cancels the rest.
    grpc_server_->Shutdown(std::chrono::system_clock::now() + grace);
  }
  // After gRPC's shutdown: its calls in flight have ended, new ones fail at
  // once.
  gateway_.reset();
  if (loader_.joinable()) loader_.join();
  pool_.reset();  // runs whatever is still queued, then joins
  shard_reads_pool_.reset();
  if (grpc_server_) grpc_server_->Wait();
  exposer_.reset();
  if (metrics_) {
    metrics_->SetDatabase(nullptr);
    metrics_->SetCluster(nullptr);
  }
  cluster_.reset();     // its appliers write to db_
  shard_pool_.reset();  // after cluster_, which waits for its requests
  db_.reset();          // closes RocksDB (the WAL already holds every write)
  spdlog::info("shut down cleanly");
  MutexLock lock(&mu_);
  stopped_ = true;
  stopped_cv_.SignalAll();
}

absl::Status NeardupServer::Wait() {
  MutexLock lock(&mu_);
  while (!stopped_) stopped_cv_.Wait(&mu_);
  return stop_status_;
}

NeardupServer::~NeardupServer() { Shutdown(std::chrono::milliseconds(0)); }

}  // namespace neardup::server
