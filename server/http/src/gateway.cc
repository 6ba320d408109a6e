#include "neardup/http/gateway.h"

#include <chrono>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/dynamic_message.h"
#include "grpcpp/generic/generic_stub.h"
#include "neardup/base/absl_compat.h"
#include "neardup/http/console.h"
#include "neardup/http/http_errors.h"
#include "neardup/http/json_messages.h"
#include "neardup/http/openapi.h"
#include "neardup/http/routes.h"
#include "neardup/http/rpc_bridge.h"
#include "spdlog/spdlog.h"

namespace neardup::http {
namespace {

using google::protobuf::Message;
using google::protobuf::MethodDescriptor;

constexpr std::string_view kJson = "application/json";
constexpr std::string_view kNdjson = "application/x-ndjson";

// A route's RPC, resolved once at start.
struct Rpc {
  std::string wire_method;
  const Message* request_prototype = nullptr;
  const Message* response_prototype = nullptr;
  bool streaming = false;
};

absl::StatusOr<Rpc> ResolveRpc(const Route& route) {
  const MethodDescriptor* method = FindRpc(route);
  if (method == nullptr) {
    return absl::InternalError(absl::StrCat("route ", AbslView(route.path),
                                            " names unknown RPC ",
                                            AbslView(route.rpc)));
  }
  auto* factory = google::protobuf::MessageFactory::generated_factory();
  Rpc rpc;
  rpc.wire_method = WireMethod(route);
  rpc.request_prototype = factory->GetPrototype(method->input_type());
  rpc.response_prototype = factory->GetPrototype(method->output_type());
  rpc.streaming = method->client_streaming() || method->server_streaming();
  return rpc;
}

void Send(Exchange& exchange, int status, std::string_view content_type,
          std::string_view body, Headers headers = {}) {
  headers.emplace_back("X-Content-Type-Options", "nosniff");
  headers.emplace_back("Cache-Control", "no-store");
  exchange.Respond(status, content_type, body, headers);
}

// An error answered by the gateway itself, before or instead of a call.
void SendError(Exchange& exchange, int http_status, grpc::StatusCode code,
               std::string message, Headers headers = {}) {
  Send(exchange, http_status, kJson,
       ErrorJson(grpc::Status(code, std::move(message))), std::move(headers));
}

void SendStatus(Exchange& exchange, const grpc::Status& status) {
  Send(exchange, HttpStatusOf(status.error_code()), kJson, ErrorJson(status));
}

grpc::StatusCode ToGrpcCode(absl::StatusCode code) {
  return static_cast<grpc::StatusCode>(static_cast<int>(code));
}

// The request body, read as it arrives: whole, or line by line (NDJSON).
class BodyReader {
 public:
  BodyReader(Exchange& exchange, size_t max_bytes)
      : exchange_(exchange), max_bytes_(max_bytes) {}

  // The whole body; ResourceExhausted past max_bytes.
  absl::StatusOr<std::string> ReadAll() {
    std::string body;
    while (true) {
      if (!Fill()) return read_error_;
      if (eof_) break;
      if (buffer_.size() > max_bytes_) return TooLarge("the body");
    }
    body.swap(buffer_);
    return body;
  }

  // The next line that is not blank, without its end; nullopt at the end
  // of the body. A line may not exceed max_bytes.
  absl::StatusOr<std::optional<std::string>> NextLine() {
    while (true) {
      const size_t end = buffer_.find('\n', scanned_);
      if (end != std::string::npos || (eof_ && !buffer_.empty())) {
        const size_t cut = end == std::string::npos ? buffer_.size() : end;
        std::string line = buffer_.substr(0, cut);
        buffer_.erase(0, end == std::string::npos ? cut : cut + 1);
        scanned_ = 0;
        ++line_number_;
        if (absl::StripAsciiWhitespace(line).empty()) continue;
        return std::optional<std::string>(std::move(line));
      }
      if (eof_) return std::optional<std::string>();
      scanned_ = buffer_.size();
      if (buffer_.size() > max_bytes_) {
        return TooLarge(absl::StrCat("line ", line_number_ + 1));
      }
      if (!Fill()) return read_error_;
    }
  }

  int line_number() const { return line_number_; }

 private:
  absl::Status TooLarge(std::string what) const {
    return absl::ResourceExhaustedError(absl::StrCat(
        what, " is larger than ", max_bytes_, " bytes (--max-message-bytes)"));
  }

  // Reads what arrives next; false on a read error.
  bool Fill() {
    char chunk[64 << 10];
    absl::StatusOr<size_t> got = exchange_.ReadBody(chunk, sizeof(chunk));
    if (!got.ok()) {
      read_error_ = got.status();
      return false;
    }
    if (*got == 0) {
      eof_ = true;
    } else {
      buffer_.append(chunk, *got);
    }
    return true;
  }

  Exchange& exchange_;
  const size_t max_bytes_;
  std::string buffer_;
  size_t scanned_ = 0;  // bytes of buffer_ known to hold no newline
  bool eof_ = false;
  int line_number_ = 0;
  absl::Status read_error_;
};

// Writes NDJSON lines as chunks, sending 200's headers before the first.
class NdjsonWriter {
 public:
  explicit NdjsonWriter(Exchange& exchange) : exchange_(exchange) {}

  bool started() const { return started_; }

  // False when the client is gone.
  bool Line(std::string_view json) {
    if (!Start()) return false;
    std::string line(json);
    line.push_back('\n');
    return exchange_.Chunk(line);
  }

  void End() {
    if (Start()) exchange_.EndChunks();
  }

 private:
  bool Start() {
    if (!started_) {
      started_ = true;
      ok_ = exchange_.StartChunks(200, kNdjson);
    }
    return ok_;
  }

  Exchange& exchange_;
  bool started_ = false;
  bool ok_ = true;
};

std::string Lower(std::string_view text) {
  return absl::AsciiStrToLower(AbslView(text));
}

}  // namespace

struct Gateway::State {
  GatewayOptions options;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<grpc::GenericStub> stub;
  absl::flat_hash_map<const Route*, Rpc> rpcs;
  std::string openapi;

  // Answers one request; returns its HTTP status.
  int Handle(Exchange& exchange) const {
    const std::string_view verb = exchange.method();
    const std::string_view path = exchange.path();
    if (path == "/v1/openapi.json" && verb == "GET") {
      Send(exchange, 200, kJson, openapi);
      return 200;
    }
    if (verb == "GET") {
      if (std::optional<ConsoleFile> file = FindConsoleFile(path)) {
        Send(exchange, 200, file->content_type, file->bytes,
             {{"Content-Security-Policy", kConsoleSecurityPolicy},
              {"X-Frame-Options", "DENY"},
              {"Referrer-Policy", "no-referrer"}});
        return 200;
      }
    }
    absl::StatusOr<RouteMatch> match = MatchRoute(verb, path);
    if (!match.ok()) {
      Headers headers;
      int status = absl::IsInvalidArgument(match.status()) ? 400 : 404;
      if (absl::IsUnimplemented(match.status())) {
        status = 405;
        std::vector<std::string> allowed;
        for (const char* other : {"GET", "POST", "PUT", "DELETE"}) {
          if (MatchRoute(other, path).ok()) allowed.emplace_back(other);
        }
        headers.emplace_back("Allow", absl::StrJoin(allowed, ", "));
      }
      SendError(exchange, status, ToGrpcCode(match.status().code()),
                std::string(match.status().message()), std::move(headers));
      return status;
    }
    const Rpc& rpc = rpcs.at(match->route);
    return rpc.streaming ? Stream(exchange, *match, rpc)
                         : Unary(exchange, *match, rpc);
  }

  // Sets what every call carries; false (answered) on a bad header.
  bool PrepareContext(Exchange& exchange, grpc::ClientContext* context) const {
    if (auto auth = exchange.header("Authorization")) {
      context->AddMetadata("authorization", std::string(*auth));
    }
    context->AddMetadata(kGatewayKeyMetadata, options.gateway_key);
    context->AddMetadata(kHttpClientMetadata, exchange.client_address());
    if (auto timeout = exchange.header("X-Server-Timeout")) {
      double seconds = 0;
      if (!absl::SimpleAtod(AbslView(*timeout), &seconds) || !(seconds > 0) ||
          seconds > 86400 * 365) {
        SendError(exchange, 400, grpc::StatusCode::INVALID_ARGUMENT,
                  absl::StrCat("X-Server-Timeout: \"", AbslView(*timeout),
                               "\" is not a number of seconds > 0"));
        return false;
      }
      context->set_deadline(
          std::chrono::system_clock::now() +
          std::chrono::duration_cast<std::chrono::system_clock::duration>(
              std::chrono::duration<double>(seconds)));
    }
    return true;
  }

  // A JSON body must say so: browsers send other types across origins
  // without asking first (CSRF), never this one.
  bool CheckContentType(Exchange& exchange, bool streaming) const {
    const std::string type(exchange.header("Content-Type").value_or(""));
    const std::string media = Lower(StdView(
        absl::StripAsciiWhitespace(AbslView(type).substr(0, type.find(';')))));
    if (media == kJson || (streaming && media == kNdjson)) return true;
    SendError(exchange, 415, grpc::StatusCode::INVALID_ARGUMENT,
              absl::StrCat("Content-Type must be application/json",
                           streaming ? " or application/x-ndjson" : "",
                           " (curl: -H 'Content-Type: application/json'), "
                           "not \"",
                           type, "\""));
    return false;
  }

  int Unary(Exchange& exchange, const RouteMatch& match, const Rpc& rpc) const {
    std::unique_ptr<Message> request(rpc.request_prototype->New());
    if (exchange.has_body()) {
      if (!CheckContentType(exchange, false)) return 415;
      const std::optional<uint64_t> length = exchange.content_length();
      if (length.has_value() && *length > options.max_body_bytes) {
        SendError(
            exchange, 413, grpc::StatusCode::RESOURCE_EXHAUSTED,
            absl::StrCat("the body's ", *length, " bytes exceed ",
                         options.max_body_bytes, " (--max-message-bytes)"));
        return 413;
      }
      BodyReader reader(exchange, options.max_body_bytes);
      absl::StatusOr<std::string> body = reader.ReadAll();
      if (!body.ok()) {
        const int status = absl::IsResourceExhausted(body.status()) ? 413 : 408;
        SendError(exchange, status, ToGrpcCode(body.status().code()),
                  std::string(body.status().message()));
        return status;
      }
      if (absl::Status parsed = MergeJson(*body, request.get()); !parsed.ok()) {
        SendError(exchange, 400, grpc::StatusCode::INVALID_ARGUMENT,
                  std::string(parsed.message()));
        return 400;
      }
    }
    absl::Status fields = ApplyQueryString(exchange.query(), request.get());
    if (fields.ok()) fields = ApplyPathFields(match.path_fields, request.get());
    if (!fields.ok()) {
      SendError(exchange, 400, ToGrpcCode(fields.code()),
                std::string(fields.message()));
      return 400;
    }
    grpc::ClientContext context;
    if (!PrepareContext(exchange, &context)) return 400;
    std::string answer;
    const grpc::Status status =
        CallUnary(*stub, &context, rpc.wire_method,
                  request->SerializeAsString(), &answer);
    if (!status.ok()) {
      SendStatus(exchange, status);
      return HttpStatusOf(status.error_code());
    }
    std::unique_ptr<Message> response(rpc.response_prototype->New());
    if (!response->ParseFromString(answer)) {
      SendError(exchange, 500, grpc::StatusCode::INTERNAL,
                "the service's answer did not parse");
      return 500;
    }
    Send(exchange, 200, kJson, ToJson(*response));
    return 200;
  }

  // Streams: request messages are the body's NDJSON lines (a GET has one,
  // from the path and query), answers go out as NDJSON lines as they come.
  // A bad line ends the requests: the lines before it are still answered,
  // then a last line {"error": ...} says why (or, when nothing was
  // answered yet, a plain error answer).
  int Stream(Exchange& exchange, const RouteMatch& match,
             const Rpc& rpc) const {
    const bool has_body = exchange.has_body();
    if (has_body && !CheckContentType(exchange, true)) return 415;
    grpc::ClientContext context;
    if (!PrepareContext(exchange, &context)) return 400;
    StreamCall call(*stub, &context, rpc.wire_method);
    NdjsonWriter out(exchange);
    std::optional<grpc::Status> bad_request;
    std::optional<grpc::Status> relay_failure;
    bool client_gone = false;
    auto relay = [&](const std::string& bytes) {
      std::unique_ptr<Message> answer(rpc.response_prototype->New());
      if (!answer->ParseFromString(bytes)) {
        relay_failure = grpc::Status(grpc::StatusCode::INTERNAL,
                                     "the service's answer did not parse");
        return false;
      }
      if (!out.Line(ToJson(*answer))) client_gone = true;
      return !client_gone;
    };
    // Sends one request message and relays answers until it went out.
    auto send = [&](const Message& request) {
      call.Write(request.SerializeAsString());
      std::string bytes;
      while (true) {
        switch (call.Next(&bytes)) {
          case StreamCall::Event::kAnswer:
            if (!relay(bytes)) return false;
            break;
          case StreamCall::Event::kWritten:
            return true;
          case StreamCall::Event::kWriteFailed:
          case StreamCall::Event::kAnswersDone:
            return false;  // the call ended: Finish says why
        }
      }
    };
    auto invalid = [&](const absl::Status& status, int line) {
      bad_request = grpc::Status(
          ToGrpcCode(status.code()),
          line > 0 ? absl::StrCat("line ", line, ": ", status.message())
                   : std::string(status.message()));
    };
    if (!has_body) {
      std::unique_ptr<Message> request(rpc.request_prototype->New());
      absl::Status fields = ApplyQueryString(exchange.query(), request.get());
      if (fields.ok())
        fields = ApplyPathFields(match.path_fields, request.get());
      if (!fields.ok()) {
        invalid(fields, 0);
      } else {
        send(*request);
      }
    } else if (!exchange.query().empty()) {
      invalid(absl::InvalidArgumentError(
                  "a streaming body's lines carry the fields; the query "
                  "string must be empty"),
              0);
    } else {
      BodyReader reader(exchange, options.max_body_bytes);
      while (!client_gone && !relay_failure.has_value()) {
        absl::StatusOr<std::optional<std::string>> line = reader.NextLine();
        if (!line.ok()) {
          invalid(line.status(), reader.line_number() + 1);
          break;
        }
        if (!line->has_value()) break;
        std::unique_ptr<Message> request(rpc.request_prototype->New());
        absl::Status parsed = MergeJson(**line, request.get());
        if (parsed.ok()) {
          parsed = ApplyPathFields(match.path_fields, request.get());
        }
        if (!parsed.ok()) {
          invalid(parsed, reader.line_number());
          break;
        }
        if (!send(*request)) break;
      }
    }
    if (client_gone || relay_failure.has_value()) {
      context.TryCancel();
    } else {
      // The requests sent so far are answered, also before a bad line: they
      // may have been applied.
      call.CloseWrites();
      std::string bytes;
      bool reading = true;
      while (reading) {
        switch (call.Next(&bytes)) {
          case StreamCall::Event::kAnswer:
            if (!relay(bytes)) {
              context.TryCancel();
              reading = false;
            }
            break;
          case StreamCall::Event::kWritten:
          case StreamCall::Event::kWriteFailed:
            break;  // the last write's end, after the call's
          case StreamCall::Event::kAnswersDone:
            reading = false;
            break;
        }
      }
    }
    const grpc::Status status = call.Finish();
    if (client_gone) return 499;
    std::optional<grpc::Status> failure = relay_failure;
    if (!failure.has_value() && !status.ok()) failure = status;
    if (!failure.has_value()) failure = bad_request;
    if (!failure.has_value()) {
      out.End();
      return 200;
    }
    if (!out.started()) {
      const int http_status = HttpStatusOf(failure->error_code());
      SendStatus(exchange, *failure);
      return http_status;
    }
    out.Line(absl::StrCat(R"({"error":)", ErrorJson(*failure), "}"));
    out.End();
    return 200;
  }
};

absl::StatusOr<std::unique_ptr<Gateway>> Gateway::Start(
    GatewayOptions options, std::shared_ptr<grpc::Channel> channel) {
  std::unique_ptr<Gateway> gateway(new Gateway());
  gateway->state_ = std::make_unique<State>();
  State& state = *gateway->state_;
  for (const Route& route : Routes()) {
    absl::StatusOr<Rpc> rpc = ResolveRpc(route);
    if (!rpc.ok()) return rpc.status();
    state.rpcs.emplace(&route, *std::move(rpc));
  }
  absl::StatusOr<std::string> openapi = OpenApiJson();
  if (!openapi.ok()) return openapi.status();
  state.openapi = *std::move(openapi);
  state.channel = std::move(channel);
  state.stub = std::make_unique<grpc::GenericStub>(state.channel);
  state.options = std::move(options);
  absl::StatusOr<std::unique_ptr<HttpServer>> server =
      HttpServer::Start(state.options.server, [&state](Exchange& exchange) {
        const int status = state.Handle(exchange);
        if (state.options.on_response) state.options.on_response(status);
      });
  if (!server.ok()) return server.status();
  gateway->server_ = *std::move(server);
  return gateway;
}

Gateway::~Gateway() { server_.reset(); }

}  // namespace neardup::http
