// End-to-end fingerprinting throughput over JSONL corpora, 1 and N threads,
// measured side by side in one run. Texts are loaded first, so only
// canonicalize + tokenize + hash is timed.
//
//   build/release/bench/corpus_throughput
//       ../shared/data/reuters21578.jsonl ../shared/data/20news_bydate.jsonl
//       [--threads 1,2] [--field text]

#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "neardup/core/minhash.h"
#include "neardup/core/simhash.h"

namespace {

struct Corpus {
  std::vector<std::string> texts;
  size_t bytes = 0;
};

bool LoadJsonl(const char* path, const std::string& field, Corpus* corpus) {
  simdjson::padded_string data;
  if (simdjson::padded_string::load(path).get(data)) {
    std::fprintf(stderr, "cannot read %s\n", path);
    return false;
  }
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document_stream docs;
  if (parser.iterate_many(data).get(docs)) {
    std::fprintf(stderr, "%s: not JSONL\n", path);
    return false;
  }
  size_t line = 0;
  for (auto doc : docs) {
    ++line;
    std::string_view text;
    if (doc[field].get_string().get(text)) {
      std::fprintf(stderr, "%s: record %zu has no string \"%s\"\n", path, line,
                   field.c_str());
      return false;
    }
    corpus->texts.emplace_back(text);
    corpus->bytes += text.size();
  }
  return true;
}

struct Result {
  double seconds = 0;
  size_t ok = 0;
  size_t rejected = 0;  // empty documents
};

template <typename Fn>
Result Run(const Corpus& corpus, int threads, Fn fingerprint) {
  std::atomic<size_t> next{0};
  std::atomic<size_t> ok{0}, rejected{0};
  constexpr size_t kBatch = 64;
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      size_t local_ok = 0, local_rejected = 0;
      while (true) {
        const size_t begin = next.fetch_add(kBatch);
        if (begin >= corpus.texts.size()) break;
        const size_t end = std::min(begin + kBatch, corpus.texts.size());
        for (size_t i = begin; i < end; ++i) {
          if (fingerprint(corpus.texts[i])) ++local_ok;
          else ++local_rejected;
        }
      }
      ok += local_ok;
      rejected += local_rejected;
    });
  }
  for (auto& w : workers) w.join();
  Result r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                            start)
                  .count();
  r.ok = ok;
  r.rejected = rejected;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> thread_counts = {1, 2};
  std::string field = "text";
  std::vector<const char*> files;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
      thread_counts.clear();
      for (const char* p = argv[++i]; *p;) {
        thread_counts.push_back(std::atoi(p));
        while (*p && *p != ',') ++p;
        if (*p == ',') ++p;
      }
    } else if (!std::strcmp(argv[i], "--field") && i + 1 < argc) {
      field = argv[++i];
    } else {
      files.push_back(argv[i]);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr,
                 "usage: corpus_throughput FILE.jsonl... [--threads 1,2] "
                 "[--field text]\n");
    return 2;
  }
  Corpus corpus;
  for (const char* f : files) {
    if (!LoadJsonl(f, field, &corpus)) return 1;
  }
  std::printf("corpus: %zu docs, %.1f MB\n", corpus.texts.size(),
              corpus.bytes / 1e6);

  const neardup::MinHasher minhash = *neardup::MinHasher::Create();
  const neardup::SimHasher simhash = *neardup::SimHasher::Create();
  struct Algo {
    const char* name;
    std::function<bool(const std::string&)> fn;
  };
  const Algo algos[] = {
      {"minhash-h128 k=5", [&](const std::string& t) { return minhash.Fingerprint(t).ok(); }},
      {"simhash-b64-tf", [&](const std::string& t) { return simhash.Fingerprint(t).ok(); }},
  };
  // Warm-up: first-use tables and thread-local buffers.
  Run(corpus, 1, algos[0].fn);
  for (const Algo& algo : algos) {
    double base = 0;
    for (int threads : thread_counts) {
      const Result r = Run(corpus, threads, algo.fn);
      const double docs_per_s = corpus.texts.size() / r.seconds;
      if (base == 0) base = docs_per_s;
      std::printf(
          "%-18s threads=%d  %8.0f docs/s  %7.1f MB/s  (%.3f s, %zu ok, %zu "
          "empty)  x%.2f vs first\n",
          algo.name, threads, docs_per_s, corpus.bytes / 1e6 / r.seconds,
          r.seconds, r.ok, r.rejected, docs_per_s / base);
    }
  }
  return 0;
}
