// API fuzzing (#17): bytes become a sequence of requests (collection DDL,
// upserts by text and by signatures, batches, queries, gets, deletes,
// stats, fingerprint and compare) with boundary values in every numeric
// field, odd texts and random names and ids, run against the real handlers
// over a real store in a temp dir. Every answer must be OK or one of the
// codes the API documents for bad requests; anything else (INTERNAL,
// UNKNOWN, DATA_LOSS, a crash, a sanitizer report) is a finding.
//
// Built two ways from this file:
//  - api_fuzz: a libFuzzer target (clang, -DNEARDUP_BUILD_FUZZ=ON):
//      build/<type>/tests/fuzz/api_fuzz -max_total_time=600 corpus_dir
//  - api_fuzz_smoke (NEARDUP_API_FUZZ_DRIVER): a plain executable that feeds
//    a fixed number of inputs from a seeded generator; the test suite runs
//    it on every build.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "neardup/engine/database.h"
#include "neardup/server/internal/handlers.h"

namespace {

using neardup::server::Handlers;
using neardup::server::HandlerSettings;
namespace v1 = neardup::v1;

// A small FuzzedDataProvider: takes values from the front of the input and
// yields zeros once it runs out, so every input is a valid program.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return size_ == 0; }
  uint64_t U64() {
    uint64_t v = 0;
    for (int i = 0; i < 8 && size_ > 0; ++i, ++data_, --size_) {
      v = (v << 8) | *data_;
    }
    return v;
  }
  uint8_t U8() {
    if (size_ == 0) return 0;
    --size_;
    return *data_++;
  }
  size_t Below(size_t n) { return n == 0 ? 0 : U8() % n; }
  bool Bool() { return U8() & 1; }
  std::string String(size_t max) {
    const size_t n = std::min(Below(max + 1), size_);
    std::string s(reinterpret_cast<const char*>(data_), n);
    data_ += n;
    size_ -= n;
    return s;
  }
  template <typename T, size_t N>
  T Pick(const T (&values)[N]) {
    return values[Below(N)];
  }

 private:
  const uint8_t* data_;
  size_t size_;
};

// Boundary values for the unsigned numeric fields.
constexpr uint32_t kU32[] = {
    0,   1,   2,    3,     4,     5,        8,          16,
    32,  63,  64,   65,    127,   128,      129,        255,
    256, 257, 1024, 10000, 10001, 33554433, 2147483647, 4294967295u};
constexpr double kDoubles[] = {
    0.0, 1e-12, 0.05, 0.1, 0.3,       0.5,  0.6, 0.7, 0.7000000000000001,
    0.8, 0.9,   0.99, 1.0, 1.0000001, -0.5, 2.0};
const char* const kNames[] = {"a",       "b",        "news",     "",
                              "x.y-z_1", "bad name", "\xff\xfe", "c"};
const char* const kIds[] = {"d1",       "d2", "d3", "", "doc with spaces",
                            "\x80\x81", "d1"};
const char* const kTexts[] = {
    "the quick brown fox jumps over the lazy dog again and again",
    "the quick brown fox jumps over the lazy dog again and more",
    "",
    "   ",
    "a",
    "\xc3\x28 invalid utf-8",
    "\xe2\x80\x8b\xc2\xad zero width and soft hyphen",
    "\xd0\xb0\xd0\xb5\xd0\xbe cyrillic look-alikes paypal",
    "\xe4\xb8\xad\xe6\x96\x87\xe6\x96\x87\xe6\x9c\xac cjk text \xe6\xbc\xa2",
    "\xf0\x9f\x98\x80 emoji \xf0\x9f\x98\x80 \xf0\x9f\x98\x80",
    "\xef\xbd\x91\xef\xbd\x95\xef\xbd\x89\xef\xbd\x83\xef\xbd\x8b fullwidth",
};
const char* const kTokenizers[] = {"",
                                   "word",
                                   "grapheme",
                                   "cjk",
                                   "word-uax29",
                                   "sentencepiece",
                                   "shingle-k=3/word-uax29"};

std::string Text(Bytes& in) {
  if (in.Below(4) == 0) return in.String(200);  // raw bytes
  std::string text = in.Pick(kTexts);
  for (int n = static_cast<int>(in.Below(4)); n > 0; --n) {
    text += " ";
    text += in.Pick(kTexts);
  }
  return text;
}

void FillConfig(Bytes& in, v1::FingerprintConfig* config) {
  if (in.Bool()) return;  // defaults
  auto* canon = config->mutable_canonicalizer();
  canon->set_normalization(
      static_cast<v1::CanonicalizerOptions::Normalization>(in.Below(5)));
  canon->set_case_fold(
      static_cast<v1::CanonicalizerOptions::CaseFold>(in.Below(4)));
  canon->set_confusable_skeleton(in.Bool());
  canon->set_strip_default_ignorables(in.Bool());
  canon->set_fold_small_capitals(in.Bool());
  canon->set_fold_look_alikes(in.Bool());
  canon->set_profile(
      static_cast<v1::CanonicalizerOptions::Profile>(in.Below(3)));
  config->set_tokenizer(in.Pick(kTokenizers));
  config->set_shingle_k(in.Pick(kU32));
  config->set_num_perm(in.Pick(kU32));
  if (in.Bool()) config->set_seed(in.U64());
  config->set_hash_family(static_cast<v1::HashFamily>(in.Below(4)));
  config->set_threshold(in.Pick(kDoubles));
  config->set_min_threshold(in.Pick(kDoubles));
  config->set_banding(static_cast<v1::Banding>(in.Below(4)));
  if (in.Bool()) {
    config->set_bands(in.Pick(kU32));
    config->set_rows(in.Pick(kU32));
  }
  config->set_verification(static_cast<v1::Verification>(in.Below(4)));
  config->set_slot_bits(in.Pick(kU32));
  config->set_simhash(in.Bool());
  config->set_simhash_weighting(static_cast<v1::SimHashWeighting>(in.Below(4)));
  if (in.Bool()) config->set_simhash_max_distance(in.Pick(kU32));
  config->set_store_text(in.Bool());
}

// Codes a request may legitimately get; anything else is a bug.
bool Documented(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kResourceExhausted:
      return true;
    default:
      return false;
  }
}

// Answers per request kind: the driver prints them, so a run that never
// gets past validation shows.
struct Tally {
  const char* what;
  uint64_t ok = 0;
  uint64_t refused = 0;
};
std::vector<Tally>& Tallies() {
  static auto* tallies = new std::vector<Tally>();
  return *tallies;
}

void Check(const char* what, const absl::Status& status) {
  Tally* tally = nullptr;
  for (Tally& t : Tallies()) {
    if (t.what == what) tally = &t;
  }
  if (tally == nullptr) tally = &Tallies().emplace_back(Tally{what});
  ++(status.ok() ? tally->ok : tally->refused);
  if (Documented(status)) return;
  std::fprintf(stderr, "api_fuzz: %s answered %s\n", what,
               status.ToString().c_str());
  std::abort();
}

struct World {
  std::string dir;
  std::unique_ptr<neardup::engine::Database> db;
  std::unique_ptr<Handlers> handlers;
  HandlerSettings settings;

  World() {
    char pattern[] = "/tmp/neardup-api-fuzz-XXXXXX";
    const char* made = mkdtemp(pattern);
    if (made == nullptr) std::abort();
    dir = made;
    neardup::engine::DatabaseOptions options;
    options.store.block_cache_bytes = size_t{8} << 20;
    options.store.write_buffer_bytes = size_t{4} << 20;
    auto opened = neardup::engine::Database::Open(dir + "/db", options);
    if (!opened.ok()) std::abort();
    db = *std::move(opened);
    settings.max_document_bytes = 4096;
    settings.max_response_bytes = 8192;  // reaches the truncation path
    handlers = std::make_unique<Handlers>(db.get(), settings);
  }
  ~World() {
    handlers.reset();
    db.reset();
    std::string command = "rm -rf '" + dir + "'";
    (void)std::system(command.c_str());
  }
};

World* world_instance = nullptr;

World& TheWorld() {
  if (world_instance == nullptr) {  // one store for the whole run
    world_instance = new World();
    std::atexit([] { delete world_instance; });  // closes it, removes the dir
  }
  return *world_instance;
}

void RunOne(Bytes& in) {
  World& world = TheWorld();
  Handlers& h = *world.handlers;
  for (int step = 0; step < 48 && !in.empty(); ++step) {
    switch (in.Below(11)) {
      case 0: {
        v1::CreateCollectionRequest request;
        request.set_name(in.Pick(kNames));
        FillConfig(in, request.mutable_config());
        v1::Collection response;
        Check("CreateCollection", h.CreateCollection(request, &response));
        break;
      }
      case 1:
      case 2: {
        v1::UpsertRequest request;
        request.set_collection(in.Pick(kNames));
        request.set_id(in.Pick(kIds));
        if (in.Below(4) == 0) {
          // Signatures: made by Fingerprint with the default config, or
          // random bytes with a random config hash.
          v1::FingerprintRequest fp;
          fp.set_text(Text(in));
          v1::FingerprintResponse made;
          auto* signatures = request.mutable_signatures();
          if (in.Bool() &&
              Handlers::Fingerprint(fp, &made, world.settings).ok()) {
            signatures->set_minhash(made.minhash());
            signatures->set_minhash_config_hash(made.minhash_config_hash());
          } else {
            signatures->set_minhash(in.String(1100));
            signatures->set_minhash_config_hash(in.U64());
          }
          if (in.Bool()) signatures->set_simhash(in.U64());
        } else {
          request.set_text(Text(in));
        }
        for (int n = static_cast<int>(in.Below(3)); n > 0; --n) {
          (*request.mutable_metadata())[in.String(8)] = in.String(16);
        }
        if (in.Below(4) == 0) {
          request.set_insert_only_below(in.Pick(kDoubles));
        }
        v1::UpsertResponse response;
        Check("Upsert", h.Upsert(request, &response));
        break;
      }
      case 3: {
        v1::QueryRequest request;
        request.set_collection(in.Pick(kNames));
        request.set_text(Text(in));
        request.set_algorithm(
            static_cast<v1::Algorithm>(in.Below(4) % 3 == 2 ? in.Below(4) : 0));
        // Mostly the collection's defaults, so queries get past validation.
        if (in.Bool()) request.set_threshold(in.Pick(kDoubles));
        if (in.Below(4) == 0) request.set_max_distance(in.Pick(kU32));
        if (in.Bool()) request.set_top_k(in.Pick(kU32));
        request.set_include_metadata(in.Bool());
        if (in.Bool()) request.set_exclude_id(in.Pick(kIds));
        v1::QueryResponse response;
        neardup::IndexQueryStats stats;
        Check("Query", h.Query(request, &response, &stats));
        break;
      }
      case 4: {
        v1::DeleteRequest request;
        request.set_collection(in.Pick(kNames));
        request.set_id(in.Pick(kIds));
        v1::DeleteResponse response;
        Check("Delete", h.Delete(request, &response));
        break;
      }
      case 5: {
        v1::GetRequest request;
        request.set_collection(in.Pick(kNames));
        request.set_id(in.Pick(kIds));
        v1::Document response;
        Check("Get", h.Get(request, &response));
        break;
      }
      case 6: {
        v1::DropCollectionRequest request;
        request.set_name(in.Pick(kNames));
        v1::DropCollectionResponse response;
        Check("DropCollection", h.DropCollection(request, &response));
        break;
      }
      case 7: {
        v1::StatsRequest request;
        if (in.Bool()) request.set_collection(in.Pick(kNames));
        v1::StatsResponse response;
        Check("Stats", h.Stats(request, &response));
        v1::ListCollectionsResponse list;
        Check("ListCollections", h.ListCollections({}, &list));
        break;
      }
      case 8: {
        v1::FingerprintRequest request;
        request.set_text(Text(in));
        FillConfig(in, request.mutable_config());
        v1::FingerprintResponse response;
        Check("Fingerprint",
              Handlers::Fingerprint(request, &response, world.settings));
        break;
      }
      case 9: {
        v1::CompareRequest request;
        request.set_a(Text(in));
        request.set_b(Text(in));
        FillConfig(in, request.mutable_config());
        v1::CompareResponse response;
        Check("Compare", Handlers::Compare(request, &response, world.settings));
        break;
      }
      case 10: {
        // A batch, as BulkUpsert applies it.
        std::vector<v1::UpsertRequest> requests(1 + in.Below(6));
        for (v1::UpsertRequest& r : requests) {
          r.set_collection(in.Pick(kNames));
          r.set_id(in.Pick(kIds));
          r.set_text(Text(in));
          if (in.Below(4) == 0) r.set_insert_only_below(in.Pick(kDoubles));
        }
        std::vector<const v1::UpsertRequest*> pointers;
        std::vector<v1::UpsertResponse> responses(requests.size());
        std::vector<v1::UpsertResponse*> out;
        for (size_t i = 0; i < requests.size(); ++i) {
          pointers.push_back(&requests[i]);
          out.push_back(&responses[i]);
        }
        std::vector<absl::Status> statuses(requests.size());
        h.UpsertBatch(pointers, statuses, out);
        for (const absl::Status& s : statuses) Check("UpsertBatch", s);
        break;
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  RunOne(in);
  return 0;
}

#ifdef NEARDUP_API_FUZZ_DRIVER
// Without libFuzzer: `runs` inputs of up to 2 KiB from a seeded generator.
int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 2000;
  const uint32_t seed =
      argc > 2 ? static_cast<uint32_t>(std::atoi(argv[2])) : 1;
  std::mt19937 rng(seed);
  std::vector<uint8_t> input;
  for (int run = 0; run < runs; ++run) {
    input.resize(rng() % 2048);
    for (uint8_t& b : input) b = static_cast<uint8_t>(rng());
    LLVMFuzzerTestOneInput(input.data(), input.size());
  }
  std::printf("api_fuzz: %d inputs, every answer documented\n", runs);
  for (const Tally& t : Tallies()) {
    std::printf("  %-16s %8llu ok %8llu refused\n", t.what,
                static_cast<unsigned long long>(t.ok),
                static_cast<unsigned long long>(t.refused));
  }
  return 0;
}
#endif
