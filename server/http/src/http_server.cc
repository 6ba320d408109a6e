#include "neardup/http/http_server.h"

#include <sys/socket.h>

#include <atomic>
#include <deque>
#include <limits>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/ssl.hpp"
#include "boost/beast/core.hpp"
#include "boost/beast/http.hpp"
#include "neardup/base/absl_compat.h"
#include "neardup/base/sync.h"

namespace neardup::http {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;

std::string_view View(beast::string_view s) { return {s.data(), s.size()}; }

// The deadline of one connection's blocking socket operation.
struct Deadline {
  Mutex mu;
  int fd ABSL_GUARDED_BY(mu) = -1;
  absl::Time at ABSL_GUARDED_BY(mu) = absl::InfiniteFuture();

  void Arm(absl::Duration within) { ArmAt(absl::Now() + within); }
  void ArmAt(absl::Time when) {
    MutexLock lock(&mu);
    at = when;
  }
  void Disarm() {
    MutexLock lock(&mu);
    at = absl::InfiniteFuture();
  }
};

// Shuts down the socket of a connection whose operation outlived its
// deadline: the blocked read or write then fails, and its thread goes on.
class Watchdog {
 public:
  Watchdog() : thread_([this] { Run(); }) {}
  ~Watchdog() {
    {
      MutexLock lock(&mu_);
      stopping_ = true;
      wake_.SignalAll();
    }
    thread_.join();
  }

  void Add(Deadline* deadline) {
    MutexLock lock(&mu_);
    deadlines_.push_back(deadline);
    if (cut_all_) {
      // Taken after CutAll: cut at once (its thread must not serve on).
      {
        MutexLock inner(&deadline->mu);
        deadline->at = absl::InfinitePast();
      }
      Sweep();
    }
  }
  // After this, the watchdog no longer touches `deadline`.
  void Remove(Deadline* deadline) {
    MutexLock lock(&mu_);
    std::erase(deadlines_, deadline);
  }
  // Cuts every connection (at shutdown).
  void CutAll() {
    MutexLock lock(&mu_);
    cut_all_ = true;
    for (Deadline* deadline : deadlines_) {
      MutexLock inner(&deadline->mu);
      deadline->at = absl::InfinitePast();
    }
    Sweep();
  }

 private:
  void Run() {
    MutexLock lock(&mu_);
    while (!stopping_) {
      Sweep();
      wake_.WaitUntil(&mu_, std::chrono::steady_clock::now() +
                                std::chrono::milliseconds(50));
    }
  }
  void Sweep() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const absl::Time now = absl::Now();
    for (Deadline* deadline : deadlines_) {
      MutexLock inner(&deadline->mu);
      if (deadline->fd >= 0 && now > deadline->at) {
        ::shutdown(deadline->fd, SHUT_RDWR);
        deadline->at = absl::InfiniteFuture();
      }
    }
  }

  Mutex mu_;
  CondVar wake_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool cut_all_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<Deadline*> deadlines_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

template <typename Stream>
class BeastExchange final : public Exchange {
 public:
  BeastExchange(Stream& stream, beast::flat_buffer& buffer,
                bhttp::request_parser<bhttp::buffer_body>& parser,
                Deadline& deadline, const HttpServerOptions& options,
                const std::string& client)
      : stream_(stream),
        buffer_(buffer),
        parser_(parser),
        deadline_(deadline),
        options_(options),
        client_(client) {
    const std::string_view target = View(parser_.get().target());
    const size_t question = target.find('?');
    path_ = target.substr(0, question);
    if (question != std::string_view::npos) {
      query_ = target.substr(question + 1);
    }
  }

  std::string_view method() const override {
    return View(parser_.get().method_string());
  }
  std::string_view path() const override { return path_; }
  std::string_view query() const override { return query_; }
  std::optional<std::string_view> header(std::string_view name) const override {
    auto it = parser_.get().find(beast::string_view(name.data(), name.size()));
    if (it == parser_.get().end()) return std::nullopt;
    return View(it->value());
  }
  const std::string& client_address() const override { return client_; }
  bool has_body() const override {
    return parser_.chunked() || parser_.content_length().value_or(0) > 0;
  }
  std::optional<uint64_t> content_length() const override {
    auto length = parser_.content_length();
    if (!length) return std::nullopt;
    return *length;
  }

  bool BodyBytesWaiting() const override {
    // Only the socket counts: what the buffer holds may be framing (a
    // chunk's CRLF) that parses to no body at all. A wrong "no" costs an
    // early flush, a wrong "yes" a client left waiting.
    if (parser_.is_done()) return true;
    beast::error_code error;
    return beast::get_lowest_layer(stream_).available(error) > 0 && !error;
  }

  absl::StatusOr<size_t> ReadBody(char* buffer, size_t size) override {
    if (failed_ || read_failed_) {
      return absl::UnavailableError("the connection failed");
    }
    if (body_bytes_ == 0 && body_start_ == absl::InfinitePast()) {
      body_start_ = absl::Now();
    }
    while (!parser_.is_done()) {
      if (!continued_) {
        continued_ = true;
        auto expect = header("Expect");
        if (expect.has_value() &&
            beast::iequals(beast::string_view(expect->data(), expect->size()),
                           "100-continue")) {
          if (!WriteAll(std::string_view("HTTP/1.1 100 Continue\r\n\r\n"))) {
            return absl::UnavailableError("the client is gone");
          }
        }
      }
      parser_.get().body().data = buffer;
      parser_.get().body().size = size;
      parser_.get().body().more = true;
      beast::error_code error;
      // Each read within request_timeout, and the body as a whole at
      // min_body_bytes_per_second past its first request_timeout.
      const absl::Time by_rate =
          body_start_ + options_.request_timeout +
          absl::Seconds(static_cast<double>(body_bytes_ + 1) /
                        options_.min_body_bytes_per_second);
      deadline_.ArmAt(
          std::min(absl::Now() + options_.request_timeout, by_rate));
      // What has arrived, not a full buffer: a client may wait for answers
      // before it sends more.
      bhttp::read_some(stream_, buffer_, parser_, error);
      deadline_.Disarm();
      if (error == bhttp::error::need_buffer) error = {};
      if (error) {
        read_failed_ = true;
        return absl::DeadlineExceededError(absl::StrCat(
            "the request body stopped arriving or came too slowly (",
            error.message(), ")"));
      }
      const size_t got = size - parser_.get().body().size;
      body_bytes_ += got;
      if (got > 0) return got;
    }
    return 0;
  }

  void Respond(int status, std::string_view content_type, std::string_view body,
               const Headers& headers) override {
    responded_ = true;
    bhttp::response<bhttp::string_body> response;
    response.version(11);
    response.result(static_cast<unsigned>(status));
    response.set(bhttp::field::content_type,
                 beast::string_view(content_type.data(), content_type.size()));
    for (const auto& [name, value] : headers) response.set(name, value);
    response.body().assign(body.data(), body.size());
    response.keep_alive(reusable());
    response.prepare_payload();
    Write(response);
  }

  bool StartChunks(int status, std::string_view content_type) override {
    responded_ = true;
    bhttp::response<bhttp::empty_body> response;
    response.version(11);
    response.result(static_cast<unsigned>(status));
    response.set(bhttp::field::content_type,
                 beast::string_view(content_type.data(), content_type.size()));
    response.set(bhttp::field::cache_control, "no-store");
    response.set("X-Content-Type-Options", "nosniff");
    if (parser_.get().version() >= 11) {
      response.chunked(true);
      // The body may still be arriving: the connection closes after this
      // answer unless it has all been read by then (see EndChunks).
      response.keep_alive(parser_.get().keep_alive());
    } else {
      // HTTP/1.0 has no chunks: the answer ends when the connection does.
      raw_ = true;
      response.keep_alive(false);
    }
    bhttp::response_serializer<bhttp::empty_body> serializer(response);
    beast::error_code error;
    deadline_.Arm(options_.request_timeout);
    bhttp::write_header(stream_, serializer, error);
    deadline_.Disarm();
    if (error) failed_ = true;
    return !failed_;
  }

  bool Chunk(std::string_view data) override {
    if (failed_ || data.empty()) return !failed_;
    beast::error_code error;
    deadline_.Arm(options_.request_timeout);
    if (raw_) {
      net::write(stream_, net::buffer(data.data(), data.size()), error);
    } else {
      net::write(stream_,
                 bhttp::make_chunk(net::buffer(data.data(), data.size())),
                 error);
    }
    deadline_.Disarm();
    if (error) failed_ = true;
    return !failed_;
  }

  void EndChunks() override {
    if (raw_) failed_ = true;  // closing the connection ends the answer
    if (failed_) return;
    beast::error_code error;
    deadline_.Arm(options_.request_timeout);
    net::write(stream_, bhttp::make_chunk_last(), error);
    deadline_.Disarm();
    if (error) failed_ = true;
    // Chunked answers said keep-alive before the body was read through.
    if (!parser_.is_done()) failed_ = true;
  }

  bool responded() const override { return responded_; }

  // The handler failed half-way: the connection may not carry more.
  void Abandon() { failed_ = true; }

  // Whether the connection may carry another request.
  bool reusable() const {
    return !failed_ && !read_failed_ && parser_.is_done() &&
           parser_.get().keep_alive();
  }

 private:
  template <typename Message>
  void Write(Message& message) {
    beast::error_code error;
    deadline_.Arm(options_.request_timeout);
    bhttp::write(stream_, message, error);
    deadline_.Disarm();
    if (error) failed_ = true;
  }
  bool WriteAll(std::string_view bytes) {
    beast::error_code error;
    deadline_.Arm(options_.request_timeout);
    net::write(stream_, net::buffer(bytes.data(), bytes.size()), error);
    deadline_.Disarm();
    if (error) failed_ = true;
    return !failed_;
  }

  Stream& stream_;
  beast::flat_buffer& buffer_;
  bhttp::request_parser<bhttp::buffer_body>& parser_;
  Deadline& deadline_;
  const HttpServerOptions& options_;
  const std::string& client_;
  std::string_view path_;
  std::string_view query_;
  bool continued_ = false;
  bool responded_ = false;
  bool failed_ = false;       // a write failed: nothing more reaches the client
  bool read_failed_ = false;  // the body did not arrive: answers still go out
  bool raw_ = false;          // an HTTP/1.0 stream: no chunks
  absl::Time body_start_ = absl::InfinitePast();
  uint64_t body_bytes_ = 0;
};

// A short answer written by the server itself (malformed requests).
template <typename Stream>
void WriteBare(Stream& stream, Deadline& deadline, absl::Duration timeout,
               int status, std::string_view message,
               const std::function<void(int)>& counted) {
  bhttp::response<bhttp::string_body> response;
  response.version(11);
  response.result(static_cast<unsigned>(status));
  response.set(bhttp::field::content_type, "application/json");
  response.body() =
      absl::StrCat(R"({"code":3,"status":"INVALID_ARGUMENT",)",
                   R"("message":")", AbslView(message), R"(","details":[]})");
  response.keep_alive(false);
  response.prepare_payload();
  beast::error_code error;
  deadline.Arm(timeout);
  bhttp::write(stream, response, error);
  deadline.Disarm();
  if (counted) counted(status);
}

}  // namespace

struct HttpServer::Impl {
  HttpServerOptions options;
  Handler handler;
  net::io_context io;
  tcp::acceptor acceptor{io};
  std::optional<net::ssl::context> tls;
  Watchdog watchdog;
  int port = 0;

  Mutex mu;
  CondVar changed;
  bool stopping ABSL_GUARDED_BY(mu) = false;
  // Read without the lock between requests of a kept-alive connection.
  std::atomic<bool> stopping_requests{false};
  std::deque<tcp::socket> waiting ABSL_GUARDED_BY(mu);
  size_t serving ABSL_GUARDED_BY(mu) = 0;  // connections a worker holds
  std::thread acceptor_thread;
  std::vector<std::thread> workers;

  void Accept() {
    while (true) {
      tcp::socket socket(io);
      beast::error_code error;
      acceptor.accept(socket, error);
      MutexLock lock(&mu);
      if (stopping) return;
      if (error) {
        // Out of descriptors, or a connection reset before it was taken:
        // wait a moment rather than spin.
        changed.WaitUntil(&mu, std::chrono::steady_clock::now() +
                                   std::chrono::milliseconds(10));
        continue;
      }
      // Counted with the connections in service: a worker may not have
      // taken the previous one yet.
      if (serving + waiting.size() >=
          static_cast<size_t>(options.threads +
                              options.max_waiting_connections)) {
        if (!tls.has_value()) {
          static const std::string kBusy = [] {
            const std::string body =
                R"({"code":14,"status":"UNAVAILABLE","message":"too many )"
                R"(HTTP connections; retry later","details":[]})";
            return absl::StrCat(
                "HTTP/1.1 503 Service Unavailable\r\nContent-Type: "
                "application/json\r\nConnection: close\r\nContent-Length: ",
                body.size(), "\r\n\r\n", body);
          }();
          (void)::send(socket.native_handle(), kBusy.data(), kBusy.size(),
                       MSG_DONTWAIT | MSG_NOSIGNAL);
          if (options.on_own_answer) options.on_own_answer(503);
        }
        continue;  // closed as `socket` goes
      }
      waiting.push_back(std::move(socket));
      changed.Signal();
    }
  }

  void Work() {
    while (true) {
      std::optional<tcp::socket> socket;
      {
        MutexLock lock(&mu);
        while (!stopping && waiting.empty()) changed.Wait(&mu);
        if (stopping) return;
        socket.emplace(std::move(waiting.front()));
        waiting.pop_front();
        ++serving;
      }
      Serve(std::move(*socket));
      MutexLock lock(&mu);
      --serving;
    }
  }

  void Serve(tcp::socket socket) {
    beast::error_code error;
    const tcp::endpoint peer = socket.remote_endpoint(error);
    const std::string client = error ? "unknown" : peer.address().to_string();
    Deadline deadline;
    {
      MutexLock lock(&deadline.mu);
      deadline.fd = socket.native_handle();
    }
    watchdog.Add(&deadline);
    if (tls.has_value()) {
      net::ssl::stream<tcp::socket> stream(std::move(socket), *tls);
      deadline.Arm(options.request_timeout);
      stream.handshake(net::ssl::stream_base::server, error);
      deadline.Disarm();
      if (!error) {
        const bool unread = Requests(stream, deadline, client);
        deadline.Arm(absl::Seconds(1));
        stream.shutdown(error);
        deadline.Disarm();
        if (unread) Linger(deadline, stream.next_layer());
      }
      Close(deadline, stream.next_layer());
    } else {
      if (Requests(socket, deadline, client)) Linger(deadline, socket);
      Close(deadline, socket);
    }
  }

  // The answer went out before the body was read (413, a bad line): the
  // rest is read and dropped for a moment before closing, or the client,
  // still sending, would get a reset instead of the answer.
  void Linger(Deadline& deadline, tcp::socket& socket) {
    beast::error_code error;
    socket.shutdown(tcp::socket::shutdown_send, error);
    char sink[64 << 10];
    size_t dropped = 0;
    deadline.Arm(absl::Seconds(2));
    while (!error && dropped < (size_t{256} << 20)) {
      dropped += socket.read_some(net::buffer(sink), error);
    }
    deadline.Disarm();
  }

  void Close(Deadline& deadline, tcp::socket& socket) {
    {
      MutexLock lock(&deadline.mu);
      deadline.fd = -1;
    }
    watchdog.Remove(&deadline);
    beast::error_code ignored;
    socket.close(ignored);
  }

  // Serves requests until the connection ends; true when its last request's
  // body was left unread.
  template <typename Stream>
  bool Requests(Stream& stream, Deadline& deadline, const std::string& client) {
    // Bounded: Beast's header limit does not cover chunk-size lines and
    // trailers, which would otherwise grow the buffer without end.
    beast::flat_buffer buffer(options.max_header_bytes + (64 << 10));
    bool first = true;
    while (true) {
      bhttp::request_parser<bhttp::buffer_body> parser;
      parser.header_limit(static_cast<uint32_t>(options.max_header_bytes));
      // The handler bounds each body (per message, not per stream).
      parser.body_limit(std::numeric_limits<std::uint64_t>::max());
      beast::error_code error;
      deadline.Arm(first ? options.request_timeout
                         : options.keep_alive_timeout);
      bhttp::read_header(stream, buffer, parser, error);
      deadline.Disarm();
      if (error == bhttp::error::header_limit) {
        WriteBare(stream, deadline, options.request_timeout, 431,
                  absl::StrCat("the request's headers exceed ",
                               options.max_header_bytes, " bytes"),
                  options.on_own_answer);
        return true;
      }
      if (error) {
        if (error != bhttp::error::end_of_stream && error != net::error::eof &&
            buffer.size() > 0) {
          WriteBare(stream, deadline, options.request_timeout, 400,
                    absl::StrCat("malformed HTTP request: ", error.message()),
                    options.on_own_answer);
        }
        return false;
      }
      first = false;
      if (parser.get().method() == bhttp::verb::head) {
        // An answer to HEAD has no body; none of the routes serves one.
        bhttp::response<bhttp::empty_body> response(
            bhttp::status::method_not_allowed, parser.get().version());
        response.set(bhttp::field::allow, "GET, POST, PUT, DELETE");
        response.keep_alive(false);
        response.content_length(0);
        deadline.Arm(options.request_timeout);
        bhttp::write(stream, response, error);
        deadline.Disarm();
        if (options.on_own_answer) options.on_own_answer(405);
        return !parser.is_done();
      }
      BeastExchange<Stream> exchange(stream, buffer, parser, deadline, options,
                                     client);
      try {
        handler(exchange);
      } catch (const std::exception& e) {
        exchange.Abandon();
        if (!exchange.responded()) {
          exchange.Respond(500, "application/json",
                           R"({"code":13,"status":"INTERNAL",)"
                           R"("message":"internal error","details":[]})",
                           {});
        }
      }
      if (!exchange.reusable()) return !parser.is_done();
      if (stopping_requests.load(std::memory_order_acquire)) return false;
    }
  }
};

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(
    HttpServerOptions options, Handler handler) {
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  impl->handler = std::move(handler);
  const HttpServerOptions& o = impl->options;
  const size_t colon = o.listen.rfind(':');
  int port = -1;
  if (colon == std::string::npos ||
      !absl::SimpleAtoi(o.listen.substr(colon + 1), &port) || port < 0 ||
      port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("--http-listen ", o.listen, " is not host:port"));
  }
  std::string host = o.listen.substr(0, colon);
  if (host.size() > 1 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  try {
    if (!o.tls_cert.empty()) {
      net::ssl::context& tls = impl->tls.emplace(net::ssl::context::tls_server);
      tls.set_options(
          net::ssl::context::default_workarounds | net::ssl::context::no_sslv2 |
          net::ssl::context::no_sslv3 | net::ssl::context::no_tlsv1 |
          net::ssl::context::no_tlsv1_1);
      tls.use_certificate_chain_file(o.tls_cert);
      tls.use_private_key_file(o.tls_key, net::ssl::context::pem);
      if (!o.tls_client_ca.empty()) {
        tls.load_verify_file(o.tls_client_ca);
        tls.set_verify_mode(net::ssl::verify_peer |
                            net::ssl::verify_fail_if_no_peer_cert);
      }
    }
    tcp::resolver resolver(impl->io);
    const tcp::endpoint endpoint =
        resolver.resolve(host.empty() ? "0.0.0.0" : host, std::to_string(port))
            ->endpoint();
    impl->acceptor.open(endpoint.protocol());
    impl->acceptor.set_option(net::socket_base::reuse_address(true));
    impl->acceptor.bind(endpoint);
    impl->acceptor.listen(net::socket_base::max_listen_connections);
    impl->port = impl->acceptor.local_endpoint().port();
  } catch (const std::exception& e) {
    return absl::UnavailableError(
        absl::StrCat("cannot serve HTTP on ", o.listen, ": ", e.what()));
  }
  Impl* raw = impl.get();
  impl->acceptor_thread = std::thread([raw] { raw->Accept(); });
  for (int i = 0; i < o.threads; ++i) {
    impl->workers.emplace_back([raw] { raw->Work(); });
  }
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::~HttpServer() {
  {
    MutexLock lock(&impl_->mu);
    impl_->stopping = true;
    impl_->changed.SignalAll();
  }
  impl_->stopping_requests.store(true, std::memory_order_release);
  // Wakes the blocked accept (Linux: a shut-down listening socket fails it).
  ::shutdown(impl_->acceptor.native_handle(), SHUT_RDWR);
  impl_->acceptor_thread.join();
  impl_->watchdog.CutAll();
  for (std::thread& worker : impl_->workers) worker.join();
  beast::error_code ignored;
  impl_->acceptor.close(ignored);
  MutexLock lock(&impl_->mu);
  impl_->waiting.clear();
}

int HttpServer::port() const { return impl_->port; }

}  // namespace neardup::http
