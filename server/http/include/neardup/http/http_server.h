#ifndef NEARDUP_HTTP_HTTP_SERVER_H_
#define NEARDUP_HTTP_HTTP_SERVER_H_

// A small HTTP/1.1 server (Boost.Beast, blocking, one thread per
// connection in service) with the bounds a public listener needs: header
// size, a deadline on every socket operation (slow or idle clients are cut
// off), a cap on connections waiting for a thread (more are refused at
// once), TLS and mTLS. What it serves is up to a handler, which sees one
// request at a time through Exchange.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace neardup::http {

using Headers = std::vector<std::pair<std::string, std::string>>;

// One request and its answer.
class Exchange {
 public:
  virtual ~Exchange() = default;

  virtual std::string_view method() const = 0;
  // The target's path, still percent-encoded, and what follows '?'.
  virtual std::string_view path() const = 0;
  virtual std::string_view query() const = 0;
  virtual std::optional<std::string_view> header(
      std::string_view name) const = 0;
  // "203.0.113.7" (no port).
  virtual const std::string& client_address() const = 0;
  virtual bool has_body() const = 0;
  // When the client announced it.
  virtual std::optional<uint64_t> content_length() const = 0;

  // The body's next bytes: 0 at its end; an error when the client is gone
  // or too slow.
  virtual absl::StatusOr<size_t> ReadBody(char* buffer, size_t size) = 0;
  // Body bytes have arrived and wait to be read: ReadBody would not block.
  virtual bool BodyBytesWaiting() const = 0;

  // A whole answer.
  virtual void Respond(int status, std::string_view content_type,
                       std::string_view body, const Headers& headers = {}) = 0;
  // An answer in chunks: StartChunks, Chunk..., EndChunks. False: the
  // client is gone (nothing more reaches it).
  virtual bool StartChunks(int status, std::string_view content_type) = 0;
  virtual bool Chunk(std::string_view data) = 0;
  virtual void EndChunks() = 0;
  virtual bool responded() const = 0;
};

struct HttpServerOptions {
  std::string listen;  // host:port; port 0 picks a free one
  int threads = 16;    // connections served at once
  // Accepted connections waiting for a thread; past this, new ones are
  // closed at once (after a 503 on plaintext).
  int max_waiting_connections = 64;
  size_t max_header_bytes = 16 << 10;  // request line and headers
  // The TLS handshake, a request's headers, and each read or write after
  // them must finish within this; an idle kept-alive connection is closed
  // after keep_alive_timeout.
  absl::Duration request_timeout = absl::Seconds(30);
  absl::Duration keep_alive_timeout = absl::Seconds(5);
  // A body must also arrive at this rate on average once request_timeout
  // has passed, or its connection is cut: a trickle of a byte now and then
  // would otherwise hold a thread for ever.
  double min_body_bytes_per_second = 64 << 10;
  // Answers the server writes itself (400, 431, 503, HEAD), by status.
  std::function<void(int)> on_own_answer;
  // PEM files: TLS when tls_cert is set; mTLS when tls_client_ca is too.
  std::string tls_cert;
  std::string tls_key;
  std::string tls_client_ca;
};

class HttpServer {
 public:
  using Handler = std::function<void(Exchange&)>;

  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(
      HttpServerOptions options, Handler handler);
  // Stops listening, cuts open connections, waits for their threads.
  ~HttpServer();

  int port() const;

 private:
  struct Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace neardup::http

#endif  // NEARDUP_HTTP_HTTP_SERVER_H_
