#include "neardup/http/gateway.h"

#include <arpa/inet.h>
#include <netinet/in.h>

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
      const size_t end = buffer_.find('\n', start_ + scanned_);
      if (end != std::string::npos || (eof_ && start_ < buffer_.size())) {
        const size_t cut = end == std::string::npos ? buffer_.size() : end;
        if (cut - start_ > max_bytes_) {
          return TooLarge(absl::StrCat("line ", line_number_ + 1));
        }
        const std::string_view line =
            std::string_view(buffer_).substr(start_, cut - start_);
        // Consumed by moving an offset: erasing each line from the front
        // would copy the rest of the buffer once per (blank) line.
        start_ = end == std::string::npos ? cut : cut + 1;
        scanned_ = 0;
        ++line_number_;
        if (absl::StripAsciiWhitespace(AbslView(line)).empty()) continue;
        std::optional<std::string> out(std::in_place, line);
        Compact();
        return out;
      }
      if (eof_) return std::optional<std::string>();
      scanned_ = buffer_.size() - start_;
      if (scanned_ > max_bytes_) {
        return TooLarge(absl::StrCat("line ", line_number_ + 1));
      }
      Compact();
      if (!Fill()) return read_error_;
    }
  }

  // The whole body has been read.
  bool done() const { return eof_; }

  int64_t line_number() const { return line_number_; }

  // Called before a read that would wait for the client (no body bytes
  // have arrived yet): the moment to send answers a waiting client needs.
  void OnWait(std::function<void()> hook) { on_wait_ = std::move(hook); }

 private:
  absl::Status TooLarge(std::string what) const {
    return absl::ResourceExhaustedError(absl::StrCat(
        what, " is larger than ", max_bytes_, " bytes (--max-message-bytes)"));
  }

  // Reads what arrives next; false on a read error.
  bool Fill() {
    if (on_wait_ && !exchange_.BodyBytesWaiting()) on_wait_();
    char chunk[64 << 10];
    absl::StatusOr<size_t> got = exchange_.ReadBody(chunk, sizeof(chunk));
    if (!got.ok()) {
      read_error_ =
          line_number_ > 0 || start_ < buffer_.size()
              ? absl::Status(got.status().code(),
                             absl::StrCat("at line ", line_number_ + 1, ": ",
                                          got.status().message()))
              : got.status();
      return false;
    }
    if (*got == 0) {
      eof_ = true;
    } else {
      buffer_.append(chunk, *got);
    }
    return true;
  }

  // Drops consumed bytes once they are at least half the buffer.
  void Compact() {
    if (start_ > 0 && start_ >= buffer_.size() / 2) {
      buffer_.erase(0, start_);
      start_ = 0;
    }
  }

  Exchange& exchange_;
  const size_t max_bytes_;
  std::string buffer_;
  size_t start_ = 0;    // where the unread part of buffer_ begins
  size_t scanned_ = 0;  // bytes after start_ known to hold no newline
  bool eof_ = false;
  int64_t line_number_ = 0;
  std::function<void()> on_wait_;
  absl::Status read_error_;
};

// Writes NDJSON lines as chunks, sending 200's headers before the first.
// While a request body still arrives, answers are held (up to hold_limit
// bytes): most HTTP clients read nothing until they have sent their whole
// body, so answers written meanwhile would fill both sides' buffers and
// stall the exchange.
class NdjsonWriter {
 public:
  NdjsonWriter(Exchange& exchange, bool hold, size_t hold_limit)
      : exchange_(exchange), holding_(hold), hold_limit_(hold_limit) {}

  // Some answer line was made (sent or held).
  bool any() const { return started_ || !pending_.empty(); }

  // False when the client is gone.
  bool Line(std::string_view json) {
    pending_.append(json.data(), json.size());
    pending_.push_back('\n');
    if (holding_ && pending_.size() <= hold_limit_) return true;
    return Flush();
  }

  // The client is not sending: a client that waits for its answers before
  // its next line gets them, up to kEarlyBytes in all (more could fill the
  // buffers of a client that only paused while sending, and stall it).
  bool FlushEarly() {
    if (!holding_ || pending_.empty() ||
        early_ + pending_.size() > kEarlyBytes) {
      return ok_;
    }
    early_ += pending_.size();
    return Flush();
  }

  // The body has been read: what is held goes out, and later lines at once.
  bool StopHolding() {
    holding_ = false;
    return pending_.empty() || Flush();
  }

  void End() {
    if (Flush()) exchange_.EndChunks();
  }

 private:
  bool Flush() {
    if (!started_) {
      started_ = true;
      ok_ = exchange_.StartChunks(200, kNdjson);
    }
    if (ok_ && !pending_.empty()) ok_ = exchange_.Chunk(pending_);
    pending_.clear();
    return ok_;
  }

  static constexpr size_t kEarlyBytes = 64 << 10;

  Exchange& exchange_;
  bool holding_;
  const size_t hold_limit_;
  size_t early_ = 0;
  std::string pending_;
  bool started_ = false;
  bool ok_ = true;
};

// localhost, *.localhost, 127.0.0.0/8 or [::1]: names and addresses only a
// local client uses.
bool IsLoopbackHost(const std::string& host) {
  if (host == "localhost" || host.ends_with(".localhost")) return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    in6_addr v6{};
    return inet_pton(AF_INET6, host.substr(1, host.size() - 2).c_str(), &v6) ==
               1 &&
           IN6_IS_ADDR_LOOPBACK(&v6);
  }
  return false;
}

// POST and PUT carry the request in their body; a body sent with GET or
// DELETE is not read.
bool TakesBody(const Exchange& exchange) {
  return exchange.has_body() &&
         (exchange.method() == "POST" || exchange.method() == "PUT");
}

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
    if (const int refused = RefuseUnsafe(exchange, rpc); refused != 0) {
      return refused;
    }
    return rpc.streaming ? Stream(exchange, *match, rpc)
                         : Unary(exchange, *match, rpc);
  }

  // Requests a browser could be made to send from another site, and
  // headers that cannot become gRPC metadata. Returns the status answered,
  // or 0 to go on.
  int RefuseUnsafe(Exchange& exchange, const Rpc& rpc) const {
    if (exchange.header("Sec-Fetch-Site").has_value() &&
        Lower(*exchange.header("Sec-Fetch-Site")) == "cross-site") {
      SendError(exchange, 403, grpc::StatusCode::PERMISSION_DENIED,
                "a page of another site may not call this API");
      return 403;
    }
    if (options.loopback_hosts_only) {
      // A DNS-rebinding page reaches a loopback listener under its own
      // name; a real local client says localhost or the address.
      std::string host(exchange.header("Host").value_or("localhost"));
      if (!host.empty() && host.front() == '[') {
        host = host.substr(0, host.find(']') + 1);
      } else {
        host = host.substr(0, host.find(':'));
      }
      host = Lower(host);
      if (!IsLoopbackHost(host)) {
        SendError(exchange, 403, grpc::StatusCode::PERMISSION_DENIED,
                  absl::StrCat("Host \"", host,
                               "\" is not a loopback name, and this listener "
                               "is on a loopback address"));
        return 403;
      }
    }
    if (auto auth = exchange.header("Authorization")) {
      for (char c : *auth) {
        if (c < 0x20 || c > 0x7e) {
          SendError(exchange, 401, grpc::StatusCode::UNAUTHENTICATED,
                    "the Authorization header may hold printable ASCII "
                    "only");
          return 401;
        }
      }
    }
    const std::string_view verb = exchange.method();
    if (verb == "POST" || verb == "PUT") {
      // Every POST and PUT, with a body or not: a form or a no-cors fetch
      // from another site can send neither this type nor custom headers.
      if (!CheckContentType(exchange, rpc.streaming)) return 415;
      if (!exchange.query().empty()) {
        SendError(exchange, 400, grpc::StatusCode::INVALID_ARGUMENT,
                  absl::StrCat(AbslView(verb),
                               " takes its fields in the JSON body, not in "
                               "the query string"));
        return 400;
      }
    }
    return 0;
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

  // Sets the query string's and the path's fields; false (answered 400)
  // when one is wrong.
  bool ApplyUrlFields(Exchange& exchange, const RouteMatch& match,
                      Message* request) const {
    absl::Status fields = ApplyQueryString(exchange.query(), request);
    if (fields.ok()) fields = ApplyPathFields(match.path_fields, request);
    if (fields.ok()) return true;
    SendError(exchange, 400, ToGrpcCode(fields.code()),
              std::string(fields.message()));
    return false;
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
    if (TakesBody(exchange)) {
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
    if (!ApplyUrlFields(exchange, match, request.get())) return 400;
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
  // from the path and query), answers go out as NDJSON lines. A bad line
  // ends the requests: the lines before it are still answered (they may
  // have been applied), then a last line {"error": ...} says why (or, when
  // nothing was answered, a plain error answer).
  int Stream(Exchange& exchange, const RouteMatch& match,
             const Rpc& rpc) const {
    // POST streams take their requests from the body (none when it is
    // empty); a GET's one request comes from the path and query, checked
    // before any call starts.
    const bool has_body =
        exchange.method() == "POST" || exchange.method() == "PUT";
    std::unique_ptr<Message> only(rpc.request_prototype->New());
    if (!has_body && !ApplyUrlFields(exchange, match, only.get())) return 400;
    grpc::ClientContext context;
    if (!PrepareContext(exchange, &context)) return 400;
    StreamCall call(*stub, &context, rpc.wire_method);
    NdjsonWriter out(exchange, has_body, options.max_held_answer_bytes);
    std::optional<grpc::Status> bad_request;
    int bad_request_http = 400;
    std::optional<grpc::Status> relay_failure;
    bool client_gone = false;
    int64_t sent = 0;
    int64_t answered = 0;
    auto relay = [&](const std::string& bytes) {
      std::unique_ptr<Message> answer(rpc.response_prototype->New());
      if (!answer->ParseFromString(bytes)) {
        relay_failure = grpc::Status(grpc::StatusCode::INTERNAL,
                                     "the service's answer did not parse");
        return false;
      }
      ++answered;
      if (!out.Line(ToJson(*answer))) client_gone = true;
      return !client_gone;
    };
    // Sends one request message and relays answers until it went out.
    auto send = [&](const Message& request) {
      ++sent;
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
    if (!has_body) {
      send(*only);
    } else {
      BodyReader reader(exchange, options.max_body_bytes);
      // Before waiting for the client: the answers of what it sent (the
      // body streams answer each request with one message), flushed if
      // small, for a client that waits for them before its next line.
      bool call_ended = false;
      reader.OnWait([&] {
        std::string bytes;
        while (answered < sent && !call_ended && !client_gone &&
               !relay_failure.has_value()) {
          switch (call.Next(&bytes)) {
            case StreamCall::Event::kAnswer:
              relay(bytes);
              break;
            case StreamCall::Event::kAnswersDone:
              call_ended = true;
              break;
            case StreamCall::Event::kWritten:
            case StreamCall::Event::kWriteFailed:
              break;
          }
        }
        if (!client_gone && !out.FlushEarly()) client_gone = true;
      });
      while (!client_gone && !relay_failure.has_value() && !call_ended) {
        absl::StatusOr<std::optional<std::string>> line = reader.NextLine();
        if (!line.ok()) {
          // The message names the line; a line too long is 413, a body
          // that stopped arriving 408.
          bad_request = grpc::Status(ToGrpcCode(line.status().code()),
                                     std::string(line.status().message()));
          bad_request_http = absl::IsResourceExhausted(line.status()) ? 413
                             : absl::IsInvalidArgument(line.status()) ? 400
                                                                      : 408;
          break;
        }
        if (!line->has_value()) break;
        std::unique_ptr<Message> request(rpc.request_prototype->New());
        absl::Status parsed = MergeJson(**line, request.get());
        if (parsed.ok()) {
          parsed = ApplyPathFields(match.path_fields, request.get());
        }
        if (!parsed.ok()) {
          bad_request = grpc::Status(ToGrpcCode(parsed.code()),
                                     absl::StrCat("line ", reader.line_number(),
                                                  ": ", parsed.message()));
          break;
        }
        if (!send(*request)) break;
      }
      // The body is read (or abandoned): held answers may go out now.
      if (!client_gone && !out.StopHolding()) client_gone = true;
    }
    if (client_gone || relay_failure.has_value()) {
      context.TryCancel();
    } else {
      // The requests sent so far are answered, also before a bad line.
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
    // What the client did wrong comes first: the call's status may only be
    // its consequence (a cancelled or short stream).
    std::optional<grpc::Status> failure = relay_failure;
    if (!failure.has_value()) failure = bad_request;
    if (!failure.has_value() && !status.ok()) failure = status;
    if (!failure.has_value()) {
      out.End();
      return 200;
    }
    if (!out.any()) {
      const int http_status =
          !relay_failure.has_value() && bad_request.has_value()
              ? bad_request_http
              : HttpStatusOf(failure->error_code());
      Send(exchange, http_status, kJson, ErrorJson(*failure));
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
  state.options.server.on_own_answer = state.options.on_response;
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
