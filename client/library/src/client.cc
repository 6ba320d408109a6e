#include "neardup/client/client.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

#include "neardup/base/files.h"

namespace neardup::client {

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      status.error_message());
}

absl::Status LoadTlsFiles(const std::string& ca_path,
                          const std::string& cert_path,
                          const std::string& key_path, ClientOptions& options) {
  auto read = [](const std::string& path, std::string* out) -> absl::Status {
    if (path.empty()) return absl::OkStatus();
    absl::StatusOr<std::string> bytes = ReadFile(path);
    if (!bytes.ok()) return bytes.status();
    *out = *std::move(bytes);
    return absl::OkStatus();
  };
  if (absl::Status s = read(ca_path, &options.tls_ca_pem); !s.ok()) return s;
  if (absl::Status s = read(cert_path, &options.tls_cert_pem); !s.ok()) {
    return s;
  }
  if (absl::Status s = read(key_path, &options.tls_key_pem); !s.ok()) return s;
  options.tls = options.tls || !ca_path.empty() || !cert_path.empty();
  return absl::OkStatus();
}

namespace {

// The host part of a gRPC target: "dns:///h:p", "ipv4:h:p", "[v6]:p", "h:p".
std::string_view TargetHost(std::string_view target) {
  for (std::string_view scheme : {"dns:///", "dns:", "ipv4:", "ipv6:"}) {
    if (target.starts_with(scheme)) {
      target.remove_prefix(scheme.size());
      break;
    }
  }
  if (target.starts_with('[')) {
    const size_t close = target.find(']');
    return close == std::string_view::npos ? target
                                           : target.substr(1, close - 1);
  }
  const size_t colon = target.rfind(':');
  if (colon != std::string_view::npos &&
      target.find(':') == colon) {  // one colon: host:port
    return target.substr(0, colon);
  }
  return target;
}

bool IsLoopbackTarget(std::string_view target) {
  if (target.starts_with("unix:") || target.starts_with("unix-abstract:")) {
    return true;
  }
  // A list ("ipv6:[::1]:1,[2001:db8::1]:1") may fall through to its other
  // addresses: never loopback.
  if (target.find(',') != std::string_view::npos) return false;
  const std::string host(TargetHost(target));
  if (host == "localhost") return true;
  in_addr v4;
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6;
  return inet_pton(AF_INET6, host.c_str(), &v6) == 1 &&
         IN6_IS_ADDR_LOOPBACK(&v6);
}

}  // namespace

absl::Status CheckTokenTransport(const ClientOptions& options) {
  if (options.token.empty() || options.tls ||
      options.allow_token_over_plaintext || IsLoopbackTarget(options.target)) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(
      "refusing to send a bearer token without TLS to " + options.target +
      ": anyone on the path could read it. Connect with TLS (--tls-ca), or "
      "allow it explicitly (--allow-plaintext-token) behind a trusted "
      "TLS-terminating proxy");
}

Client::Client(const ClientOptions& options)
    : options_(options), token_transport_(CheckTokenTransport(options)) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(options.max_message_bytes);
  args.SetMaxSendMessageSize(options.max_message_bytes);
  // One connection per Client: the server's per-client limits see each
  // Client on its own instead of pooled with others in this process.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  if (!options.tls_server_name.empty()) {
    args.SetSslTargetNameOverride(options.tls_server_name);
  }
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  if (options.tls) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = options.tls_ca_pem;
    ssl.pem_cert_chain = options.tls_cert_pem;
    ssl.pem_private_key = options.tls_key_pem;
    credentials = grpc::SslCredentials(ssl);
  } else {
    credentials = grpc::InsecureChannelCredentials();
  }
  channel_ = grpc::CreateCustomChannel(options.target, credentials, args);
  stub_ = v1::NearDup::NewStub(channel_);
  health_ = grpc::health::v1::Health::NewStub(channel_);
}

void Client::AddToken(grpc::ClientContext* context) const {
  if (!options_.token.empty() && token_transport_.ok()) {
    context->AddMetadata("authorization", "Bearer " + options_.token);
  }
}

template <typename Call>
grpc::Status Client::WithRetries(Call call) {
  if (!token_transport_.ok()) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        std::string(token_transport_.message()));
  }
  std::chrono::milliseconds backoff = options_.initial_backoff;
  grpc::Status status;
  for (int attempt = 1;; ++attempt) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + options_.timeout);
    AddToken(&context);
    status = call(&context);
    if (status.error_code() != grpc::StatusCode::UNAVAILABLE ||
        attempt >= options_.max_attempts) {
      return status;
    }
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, options_.max_backoff);
  }
}

absl::StatusOr<v1::Collection> Client::CreateCollection(
    const v1::CreateCollectionRequest& request) {
  v1::Collection response;
  grpc::Status status = WithRetries([&](grpc::ClientContext* context) {
    return stub_->CreateCollection(context, request, &response);
  });
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::StatusOr<v1::Collection> Client::GetCollection(const std::string& name) {
  v1::GetCollectionRequest request;
  request.set_name(name);
  v1::Collection response;
  grpc::Status status = WithRetries([&](grpc::ClientContext* context) {
    return stub_->GetCollection(context, request, &response);
  });
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::StatusOr<v1::ListCollectionsResponse> Client::ListCollections() {
  v1::ListCollectionsResponse response;
  grpc::Status status = WithRetries([&](grpc::ClientContext* context) {
    return stub_->ListCollections(context, v1::ListCollectionsRequest(),
                                  &response);
  });
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::Status Client::DropCollection(const std::string& name) {
  v1::DropCollectionRequest request;
  request.set_name(name);
  v1::DropCollectionResponse response;
  return FromGrpcStatus(WithRetries([&](grpc::ClientContext* context) {
    return stub_->DropCollection(context, request, &response);
  }));
}

absl::StatusOr<v1::UpsertResponse> Client::Upsert(
    const v1::UpsertRequest& request) {
  v1::UpsertResponse response;
  grpc::Status status = WithRetries([&](grpc::ClientContext* context) {
    return stub_->Upsert(context, request, &response);
  });
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::StatusOr<v1::Document> Client::Get(const std::string& collection,
                                         const std::string& id) {
  v1::GetRequest request;
  request.set_collection(collection);
  request.set_id(id);
  return Get(request);
}

absl::StatusOr<v1::Document> Client::Get(const v1::GetRequest& request) {
  v1::Document response;
  grpc::Status status = WithRetries([&](grpc::ClientContext* context) {
    return stub_->Get(context, request, &response);
  });
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::Status Client::Delete(const std::string& collection,
                            const std::string& id) {
  v1::DeleteRequest request;
  request.set_collection(collection);
  request.set_id(id);
  return Delete(request).status();
}

absl::StatusOr<v1::DeleteResponse> Client::Delete(
    const v1::DeleteRequest& request) {
  v1::DeleteResponse response;
  grpc::Status status = WithRetries([&](grpc::ClientContext* context) {
    return stub_->Delete(context, request, &response);
  });
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::StatusOr<v1::QueryResponse> Client::Query(
    const v1::QueryRequest& request) {
  v1::QueryResponse response;
  grpc::Status status = WithRetries([&](grpc::ClientContext* context) {
    return stub_->Query(context, request, &response);
  });
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::StatusOr<v1::FingerprintResponse> Client::Fingerprint(
    const v1::FingerprintRequest& request) {
  v1::FingerprintResponse response;
  grpc::Status status = WithRetries([&](grpc::ClientContext* context) {
    return stub_->Fingerprint(context, request, &response);
  });
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::StatusOr<v1::CompareResponse> Client::Compare(
    const v1::CompareRequest& request) {
  v1::CompareResponse response;
  grpc::Status status = WithRetries([&](grpc::ClientContext* context) {
    return stub_->Compare(context, request, &response);
  });
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::StatusOr<v1::StatsResponse> Client::Stats(const std::string& collection) {
  v1::StatsRequest request;
  request.set_collection(collection);
  v1::StatsResponse response;
  grpc::Status status = WithRetries([&](grpc::ClientContext* context) {
    return stub_->Stats(context, request, &response);
  });
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::StatusOr<v1::CreateBackupResponse> Client::CreateBackup(
    const std::string& destination) {
  if (!token_transport_.ok()) return token_transport_;
  v1::CreateBackupRequest request;
  request.set_destination(destination);
  v1::CreateBackupResponse response;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::max<std::chrono::system_clock::duration>(
                           options_.timeout, std::chrono::hours(1)));
  AddToken(&context);
  const grpc::Status status = stub_->CreateBackup(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::Status Client::Export(
    const v1::ExportRequest& request,
    const std::function<absl::Status(const v1::ExportResponse&)>& on_message) {
  if (!token_transport_.ok()) return token_transport_;
  grpc::ClientContext context;  // no deadline: an export can run for hours
  AddToken(&context);
  std::unique_ptr<grpc::ClientReader<v1::ExportResponse>> reader =
      stub_->Export(&context, request);
  v1::ExportResponse message;
  absl::Status stopped;
  while (reader->Read(&message)) {
    stopped = on_message(message);
    if (!stopped.ok()) {
      context.TryCancel();
      break;
    }
  }
  const grpc::Status status = reader->Finish();
  if (!stopped.ok()) return stopped;
  return FromGrpcStatus(status);
}

absl::StatusOr<grpc::health::v1::HealthCheckResponse::ServingStatus>
Client::Health() {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + options_.timeout);
  grpc::health::v1::HealthCheckResponse response;
  const grpc::Status status = health_->Check(
      &context, grpc::health::v1::HealthCheckRequest(), &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response.status();
}

absl::Status Client::BulkUpsert(
    const std::function<bool(v1::UpsertRequest*)>& next,
    const std::function<void(const v1::BulkUpsertResult&)>& on_result,
    const BulkOptions& bulk) {
  if (!token_transport_.ok()) return token_transport_;
  grpc::ClientContext context;  // no deadline: a stream can run for hours
  AddToken(&context);
  auto stream = stub_->BulkUpsert(&context);
  // Write on a second thread so that results are read while we send;
  // otherwise both sides could stall on full flow-control windows.
  std::thread writer([&] {
    v1::BulkUpsertRequest batch;
    size_t batch_bytes = 0;
    auto send = [&] {
      const bool sent = batch.items_size() == 0 || stream->Write(batch);
      batch.Clear();
      batch_bytes = 0;
      return sent;
    };
    v1::UpsertRequest item;
    while (true) {
      item.Clear();
      if (!next(&item)) break;
      const size_t item_bytes = item.ByteSizeLong();
      if (batch.items_size() > 0 && batch_bytes + item_bytes > bulk.max_bytes &&
          !send()) {
        break;  // the stream failed; Finish says why
      }
      *batch.add_items() = std::move(item);
      batch_bytes += item_bytes;
      if (static_cast<size_t>(batch.items_size()) >= bulk.max_items &&
          !send()) {
        break;
      }
    }
    send();
    stream->WritesDone();
  });
  v1::BulkUpsertResponse response;
  while (stream->Read(&response)) {
    for (const v1::BulkUpsertResult& result : response.results()) {
      on_result(result);
    }
  }
  writer.join();
  return FromGrpcStatus(stream->Finish());
}

absl::Status Client::BatchQuery(
    const std::function<bool(v1::QueryRequest*)>& next,
    const std::function<void(const v1::QueryResponse&)>& on_response) {
  if (!token_transport_.ok()) return token_transport_;
  grpc::ClientContext context;  // no deadline: a stream can run for hours
  AddToken(&context);
  auto stream = stub_->BatchQuery(&context);
  std::thread writer([&] {  // as in BulkUpsert: send while reading
    v1::QueryRequest request;
    while (true) {
      request.Clear();
      if (!next(&request)) break;
      if (!stream->Write(request)) break;  // the stream failed; Finish says why
    }
    stream->WritesDone();
  });
  v1::QueryResponse response;
  while (stream->Read(&response)) on_response(response);
  writer.join();
  return FromGrpcStatus(stream->Finish());
}

}  // namespace neardup::client
