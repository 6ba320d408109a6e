// Drives a running neardupd with N concurrent clients and prints ingest
// docs/s, query QPS and latency percentiles. Run by hand:
//   build/release/server/neardupd --data-dir /tmp/nd &
//   build/release/bench/load_generator --server 127.0.0.1:50051
//       --docs 100000 --clients 4 --queries 20000
// --query-mode http sends the same probes to neardupd's HTTP/JSON listener
// (--http, neardupd --http-listen) from --clients threads, each on one
// kept-alive connection: HTTP against gRPC on the same store.
// Documents are generated English-like texts of about 2 KB (300 words),
// made by the ingest clients as they send them (document i is always the
// same text, so --first-doc continues an earlier run's collection); every
// query is a near copy of a stored document (one word in 100 replaced:
// Jaccard about 0.9), made before the query clock starts. --json adds one
// line of figures for scripts (bench/ten_million.py). --shared-words
// and --shared-every give documents boilerplate: every k-th one begins
// with the same paragraph, the pathological case of LSH band keys.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "boost/asio/connect.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/beast/core.hpp"
#include "boost/beast/http.hpp"
#include "neardup/base/absl_compat.h"
#include "neardup/client/client.h"
#include "support/corpus.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// True when the answer to a probe names the document it was copied from.
bool FoundSource(const neardup::v1::QueryResponse& response,
                 const std::string& source_id) {
  for (const auto& match : response.matches()) {
    if (match.id() == source_id) return true;
  }
  return false;
}

// Keeps `slots` unary Query calls in flight with gRPC's callback API: each
// completion records its latency and starts the next probe.
// Stops starting calls at `stop` (a time limit), with `queries` the most.
void RunAsyncQueries(const neardup::client::ClientOptions& options,
                     const std::string& collection,
                     const std::vector<std::string>& probes,
                     const std::vector<std::string>& sources, int queries,
                     Clock::time_point stop, int slots,
                     std::vector<std::vector<double>>* latencies,
                     std::atomic<int>* found, std::atomic<int>* errors,
                     std::atomic<int>* sent,
                     std::vector<std::atomic<bool>>* missed) {
  neardup::client::Client client(options);
  struct Slot {
    std::unique_ptr<grpc::ClientContext> context;
    neardup::v1::QueryRequest request;
    neardup::v1::QueryResponse response;
    Clock::time_point sent;
    int probe = 0;
  };
  std::vector<Slot> all(slots);
  std::atomic<int> next{0};
  std::mutex mu;
  std::condition_variable idle;
  int running = slots;
  std::function<void(int)> start = [&](int s) {
    Slot& slot = all[s];
    const int q = next++;
    if (q >= queries || Clock::now() >= stop) {
      std::lock_guard<std::mutex> lock(mu);
      if (--running == 0) idle.notify_one();
      return;
    }
    slot.context = std::make_unique<grpc::ClientContext>();
    slot.request.set_collection(collection);
    slot.probe = static_cast<int>(q % probes.size());
    slot.request.set_text(probes[slot.probe]);
    slot.response.Clear();
    slot.sent = Clock::now();
    ++*sent;
    client.stub().async()->Query(
        slot.context.get(), &slot.request, &slot.response,
        [&, s](grpc::Status status) {
          Slot& done = all[s];
          (*latencies)[s].push_back(Seconds(done.sent) * 1e3);
          if (!status.ok()) {
            ++*errors;
          } else if (FoundSource(done.response, sources[done.probe])) {
            ++*found;
          } else {
            (*missed)[done.probe] = true;
          }
          start(s);
        });
  };
  for (int s = 0; s < slots; ++s) start(s);
  std::unique_lock<std::mutex> lock(mu);
  idle.wait(lock, [&] { return running == 0; });
}

// Document `doc`'s text: `words` generated words, after the shared
// paragraph when `doc` is a multiple of `shared_every` (0: never).
std::string DocumentText(uint64_t doc, int words, const std::string& shared,
                         int shared_every) {
  std::string text = neardup::testing::GeneratedText(doc, words);
  if (shared_every > 0 && doc % shared_every == 0) {
    return absl::StrCat(shared, " ", text);
  }
  return text;
}

}  // namespace

// One client thread of --query-mode http: POSTs each probe's proto3 JSON
// (bodies made before the clock starts, as the gRPC modes build their
// messages) on one kept-alive connection; an answer names the source when
// its JSON holds "id":"<source>" (no JSON parse: the client's cost stays
// small, like a gRPC client's binary parse).
void RunHttpClient(const std::string& address, const std::string& target,
                   const std::vector<std::string>& bodies,
                   const std::vector<std::string>& sources, int first, int step,
                   int queries, std::vector<double>* latencies,
                   std::atomic<int>* found, std::atomic<int>* errors) {
  namespace net = boost::asio;
  namespace bhttp = boost::beast::http;
  net::io_context io;
  const size_t colon = address.rfind(':');
  net::ip::tcp::resolver resolver(io);
  boost::beast::tcp_stream stream(io);
  boost::beast::error_code error;
  stream.connect(
      resolver.resolve(address.substr(0, colon), address.substr(colon + 1)),
      error);
  if (error) {
    ++*errors;
    return;
  }
  boost::beast::flat_buffer buffer;
  for (int q = first; q < queries; q += step) {
    const size_t probe = static_cast<size_t>(q) % bodies.size();
    bhttp::request<bhttp::string_body> request(bhttp::verb::post, target, 11);
    request.set(bhttp::field::host, address);
    request.set(bhttp::field::content_type, "application/json");
    request.keep_alive(true);
    request.body() = bodies[probe];
    request.prepare_payload();
    const auto t0 = Clock::now();
    bhttp::write(stream, request, error);
    bhttp::response<bhttp::string_body> response;
    if (!error) bhttp::read(stream, buffer, response, error);
    latencies->push_back(Seconds(t0) * 1e3);
    if (error || response.result_int() != 200) {
      ++*errors;
      if (error) return;
      continue;
    }
    if (response.body().find(absl::StrCat("\"id\":\"", sources[probe], "\"")) !=
        std::string::npos) {
      ++*found;
    }
  }
}

int main(int argc, char** argv) {
  neardup::SkipAbslLockOrderChecks();  // as the neardup CLI does
  std::string server = "127.0.0.1:50051";
  std::string collection = "loadgen";
  int docs = 100000;
  int clients = 4;
  int queries = 20000;
  int words = 300;
  bool keep = false;
  std::string query_mode = "unary";
  int stream_window = 8;
  int first_doc = 0;
  int probe_docs = 0;
  int max_probes = 100000;
  double max_seconds = 0;
  bool json = false;
  int shared_words = 0;
  int shared_every = 0;
  CLI::App app{"neardupd load generator"};
  app.add_option("--server", server)->capture_default_str();
  app.add_option("--collection", collection)->capture_default_str();
  app.add_option("--docs", docs, "documents to ingest")->capture_default_str();
  app.add_option("--clients", clients, "concurrent clients")
      ->capture_default_str();
  app.add_option("--queries", queries)->capture_default_str();
  app.add_option("--words", words, "words per document (~8 bytes each)")
      ->capture_default_str();
  app.add_flag("--keep", keep, "reuse an existing collection; skip ingest");
  bool keep_collection = false;
  app.add_flag("--keep-collection", keep_collection,
               "reuse an existing collection and ingest into it");
  app.add_option("--query-mode", query_mode,
                 "unary: one blocking Query call at a time per client "
                 "thread; async: --clients Query calls kept in flight by "
                 "gRPC's callback API (cheaper on the client); stream: each "
                 "client pipelines its probes on one BatchQuery stream; "
                 "http: one POST .../documents:query at a time per client "
                 "thread on a kept-alive HTTP connection to --http")
      ->check(CLI::IsMember({"unary", "async", "stream", "http"}))
      ->capture_default_str();
  app.add_option("--stream-window", stream_window,
                 "stream mode: probes a client keeps unanswered at most")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  std::string verification = "exact";
  app.add_option("--verification", verification,
                 "the collection's: exact (default) or estimate")
      ->check(CLI::IsMember({"exact", "estimate"}))
      ->capture_default_str();
  std::string http_address = "127.0.0.1:8080";
  app.add_option("--http", http_address,
                 "neardupd's --http-listen address (query mode http)")
      ->capture_default_str();
  int cluster_shards = 0;
  app.add_option("--cluster-shards", cluster_shards,
                 "create the collection with this many cluster shards (a "
                 "cluster node; 0: not set)")
      ->capture_default_str();
  app.add_option("--first-doc", first_doc,
                 "ingest documents first-doc .. first-doc + docs - 1 (ids "
                 "d<i>), continuing a collection an earlier run filled")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--probe-docs", probe_docs,
                 "probes copy documents 0 .. probe-docs - 1 (0: first-doc + "
                 "docs, every document of the collection)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  std::string missed_path;
  app.add_option("--missed", missed_path,
                 "async mode: write the probes whose answer did not name "
                 "their source to this file, a line each: the source's id, "
                 "a tab, the probe's text");
  app.add_option("--max-probes", max_probes,
                 "distinct probes made before the clock starts (queries "
                 "cycle through them)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--max-seconds", max_seconds,
                 "async mode: start no query after this many seconds (0: "
                 "none); QPS counts the queries sent")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_flag("--json", json, "also print the figures as one JSON line");
  app.add_option("--shared-words", shared_words,
                 "length of the paragraph --shared-every documents share")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--shared-every", shared_every,
                 "documents 0, k, 2k, ... begin with the shared paragraph "
                 "(0: none)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (probe_docs == 0) probe_docs = first_doc + docs;
  // Seeded apart from every document's own words.
  const std::string shared =
      shared_words > 0
          ? neardup::testing::GeneratedText(uint64_t{1} << 62, shared_words)
          : "";

  neardup::client::ClientOptions options;
  options.target = server;
  neardup::client::Client admin(options);
  if (!keep && !keep_collection) {
    (void)admin.DropCollection(collection);
    neardup::v1::CreateCollectionRequest create;
    create.set_name(collection);
    create.mutable_config()->set_threshold(0.8);
    if (cluster_shards > 0) {
      create.set_cluster_shards(static_cast<uint32_t>(cluster_shards));
    }
    create.mutable_config()->set_verification(
        verification == "estimate" ? neardup::v1::VERIFICATION_ESTIMATE
                                   : neardup::v1::VERIFICATION_EXACT);
    auto created = admin.CreateCollection(create);
    if (!created.ok()) {
      std::fprintf(stderr, "create: %s\n", created.status().ToString().c_str());
      return 1;
    }
  }

  double ingest_rate = 0;
  if (!keep) {
    std::atomic<int> failed{0};
    std::atomic<size_t> bytes{0};
    const auto start = Clock::now();
    std::vector<std::thread> threads;
    for (int c = 0; c < clients; ++c) {
      threads.emplace_back([&, c] {
        neardup::client::Client client(options);
        int next = c;
        size_t sent_bytes = 0;
        const absl::Status status = client.BulkUpsert(
            [&](neardup::v1::UpsertRequest* request) {
              if (next >= docs) return false;
              const int doc = first_doc + next;
              request->set_collection(collection);
              request->set_id(absl::StrCat("d", doc));
              request->set_text(DocumentText(doc, words, shared, shared_every));
              sent_bytes += request->text().size();
              next += clients;
              return true;
            },
            [&](const neardup::v1::BulkUpsertResult& result) {
              if (result.code() != 0) ++failed;
            });
        if (!status.ok()) ++failed;
        bytes += sent_bytes;
      });
    }
    for (auto& t : threads) t.join();
    const double seconds = Seconds(start);
    ingest_rate = docs / seconds;
    std::printf(
        "ingest: %d docs (%.1f MB) with %d BulkUpsert streams in %.2f s = "
        "%.0f docs/s, %.1f MB/s, %d failed\n",
        docs, bytes / 1e6, clients, seconds, docs / seconds,
        bytes / 1e6 / seconds, failed.load());
    if (failed > 0) return 1;
  }

  std::vector<std::string> probes(std::min({queries, probe_docs, max_probes}));
  std::vector<std::string> sources(probes.size());  // id each probe copies
  for (size_t i = 0; i < probes.size(); ++i) {
    const uint64_t source = (i * uint64_t{7919}) % probe_docs;
    probes[i] = neardup::testing::NearCopy(
        DocumentText(source, words, shared, shared_every), 100);
    sources[i] = absl::StrCat("d", source);
  }
  std::vector<std::vector<double>> latencies(clients);
  std::atomic<int> found{0}, errors{0}, sent{0};
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  if (query_mode == "async") {
    const Clock::time_point stop =
        max_seconds > 0 ? start + std::chrono::microseconds(
                                      static_cast<int64_t>(max_seconds * 1e6))
                        : Clock::time_point::max();
    std::vector<std::atomic<bool>> missed(probes.size());
    RunAsyncQueries(options, collection, probes, sources, queries, stop,
                    clients, &latencies, &found, &errors, &sent, &missed);
    queries = sent;
    if (!missed_path.empty()) {
      std::ofstream out(missed_path);
      for (size_t i = 0; i < probes.size(); ++i) {
        if (missed[i]) out << sources[i] << "\t" << probes[i] << "\n";
      }
    }
  }
  std::vector<std::string> http_bodies;
  if (query_mode == "http") {
    for (const std::string& probe : probes) {
      http_bodies.push_back(
          absl::StrCat(R"({"text":")", absl::Base64Escape(probe), R"("})"));
    }
  }
  const auto http_start = Clock::now();
  for (int c = 0; query_mode == "http" && c < clients; ++c) {
    threads.emplace_back([&, c] {
      RunHttpClient(
          http_address,
          absl::StrCat("/v1/collections/", collection, "/documents:query"),
          http_bodies, sources, c, clients, queries, &latencies[c], &found,
          &errors);
    });
  }
  for (int c = 0;
       (query_mode == "unary" || query_mode == "stream") && c < clients; ++c) {
    threads.emplace_back([&, c] {
      neardup::client::Client client(options);
      if (query_mode == "stream") {
        // Latency of a probe: from handing it to the stream until its
        // answer arrives (answers come in probe order).
        std::vector<Clock::time_point> sent;
        std::vector<size_t> sent_probe;
        std::mutex sent_mu;            // the stream's writer and reader threads
        std::condition_variable room;  // an answer freed a window place
        int next = c;
        size_t answered = 0;
        const absl::Status status = client.BatchQuery(
            [&](neardup::v1::QueryRequest* request) {
              if (next >= queries) return false;
              request->set_collection(collection);
              const size_t probe = next % probes.size();
              request->set_text(probes[probe]);
              next += clients;
              std::unique_lock<std::mutex> lock(sent_mu);
              // No answer for 30 s: the stream has ended (its status comes
              // back from BatchQuery); stop sending instead of waiting on.
              if (!room.wait_for(lock, std::chrono::seconds(30), [&] {
                    return sent.size() - answered <
                           static_cast<size_t>(stream_window);
                  })) {
                return false;
              }
              sent.push_back(Clock::now());
              sent_probe.push_back(probe);
              return true;
            },
            [&](const neardup::v1::QueryResponse& response) {
              Clock::time_point t0;
              size_t probe;
              {
                std::lock_guard<std::mutex> lock(sent_mu);
                t0 = sent[answered];
                probe = sent_probe[answered++];
              }
              room.notify_one();
              latencies[c].push_back(Seconds(t0) * 1e3);
              if (FoundSource(response, sources[probe])) ++found;
            });
        if (!status.ok()) ++errors;
        return;
      }
      neardup::v1::QueryRequest request;
      request.set_collection(collection);
      for (int q = c; q < queries; q += clients) {
        const size_t probe = q % probes.size();
        request.set_text(probes[probe]);
        const auto t0 = Clock::now();
        auto response = client.Query(request);
        latencies[c].push_back(Seconds(t0) * 1e3);
        if (!response.ok()) {
          ++errors;
        } else if (FoundSource(*response, sources[probe])) {
          ++found;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  const double seconds =
      query_mode == "http" ? Seconds(http_start) : Seconds(start);
  std::vector<double> all;
  for (auto& v : latencies) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  if (all.empty()) all.push_back(0);  // --queries 0: ingest only
  std::printf(
      "query (%s): %d queries with %d clients in %.2f s = %.0f QPS; latency "
      "p50 %.2f ms p99 %.2f ms; %d found their source, %d errors\n",
      query_mode.c_str(), queries, clients, seconds, queries / seconds,
      all[all.size() / 2], all[all.size() * 99 / 100], found.load(),
      errors.load());
  if (json) {
    std::printf(
        "{\"ingest_docs_per_second\": %.1f, \"queries\": %d, \"seconds\": "
        "%.3f, \"qps\": %.1f, \"p50_ms\": %.3f, \"p99_ms\": %.3f, "
        "\"found\": %d, \"errors\": %d}\n",
        ingest_rate, queries, seconds, queries / seconds, all[all.size() / 2],
        all[all.size() * 99 / 100], found.load(), errors.load());
  }
  return 0;  // query errors are counted above (and in --json), not fatal
}
