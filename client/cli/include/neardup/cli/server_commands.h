#ifndef NEARDUP_CLI_SERVER_COMMANDS_H_
#define NEARDUP_CLI_SERVER_COMMANDS_H_

// Subcommands of `neardup` that talk to a running neardupd through
// neardup::client: collections, ingest, query, get, delete, stats, health.
// Human-readable output by default, JSON with --json.

#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "neardup/core/fingerprint_settings.h"
#include "neardup/dataset/input_files.h"
#include "neardup/v1/neardup.pb.h"

namespace neardup::cli {

struct ServerFlags {
  std::string server = "127.0.0.1:50051";  // or $NEARDUP_SERVER
  double timeout_seconds = 30;
  bool json = false;
  std::string tls_ca;    // PEM CA file: connect with TLS
  std::string tls_cert;  // client certificate (mTLS)
  std::string tls_key;
  std::string tls_server_name;
  std::string token;  // or $NEARDUP_TOKEN
  bool allow_plaintext_token = false;
};

// `collections create`: the fingerprint flags (the same words as the
// offline commands) plus the collection's own settings.
struct CollectionConfigFlags {
  FingerprintSettings fingerprint;
  double threshold = kDefaultThreshold;
  double min_threshold = 0;  // 0: the server's default (threshold - 0.1)
  BandingRule banding = BandingRule::kRecallFirst;
  Verification verification = Verification::kExact;
  int bands = 0;
  int rows = 0;
  int slot_bits = 0;      // 0: the server's default
  int evidence_bits = 0;  // 0: the server's default (32)
  bool simhash = false;
  int max_distance = kDefaultSimHashMaxDistance;
  bool store_text = false;
  MinHashAlgorithm minhash_algorithm = MinHashAlgorithm::kShingled;
  int winnow_window = 0;  // perceptual: 0 means kDefaultWinnowWindow
  SimHashVariant simhash_variant = SimHashVariant::kTxtfp;
  std::vector<std::string> kept_families;  // --keep (core/kept_family.h)
  // Embedding space (off while embedding_dim is 0); 0s: the server's
  // defaults.
  std::string embedding_model;
  int embedding_dim = 0;
  int hnsw_m = 0;
  int ef_construction = 0;
  int ef_search = 0;
  double min_cosine = 0;
  bool hnsw = false;
  // Local embeddings: a model file under the server's --models-dir.
  std::string fasttext_model;
  ChunkMode chunk_mode = ChunkMode::kSentenceBounded;
  int chunk_max_tokens = 0;  // 0: 256
  int chunk_overlap = -1;    // -1: the server's default
};

// The FingerprintConfig `collections create` sends for these flags.
v1::FingerprintConfig CollectionConfigRequest(
    const CollectionConfigFlags& flags);

struct ServerCommands {
  ServerFlags server;
  // collections
  std::string collection_name;
  CollectionConfigFlags config;
  uint32_t cluster_shards = 0;  // create, in a cluster; 0: 1
  // ingest: the inputs are read as `neardup dedup` reads them.
  dataset::DatasetOptions input_files;
  std::string collection;
  std::string id_field;
  double insert_only_below = 0;  // 0: plain upserts
  bool skip_invalid = false;
  bool no_progress = false;
  // ingest: JSONL field holding each document's vector (collections with an
  // embedding space whose vectors come from the client).
  std::string embedding_field;
  // query / get / delete
  std::string input;  // query text file, "-" for stdin
  std::string text;
  std::string id;
  double threshold = 0;
  int top_k = 10;
  std::string algorithm = "minhash";
  int max_distance = -1;
  bool metadata = false;
  bool explain = false;  // query: passages shared with each match
  // query, semantic and hybrid: the probe's vector ("0.1,0.2,..." or
  // @FILE holding a JSON array), its model, and the least cosine (NaN:
  // the collection's).
  std::string embedding;
  std::string embedding_model;
  double min_cosine = std::numeric_limits<double>::quiet_NaN();
  // ingest, query: MIME type of the texts; empty: plain text, or (query
  // files, ingest --doc-per-file) from the file extension.
  std::string content_type;
  // backup / export
  std::string backup_destination;
  bool with_signatures = false;
  bool replica_only = false;  // export: the answering replica's shard only
  std::string output;         // export: file to write; empty: stdout
};

// Registers every server subcommand on `app`; returns them so that main can
// tell which one was parsed.
std::vector<CLI::App*> AddServerCommands(CLI::App* app, ServerCommands* cmd);
// Runs the parsed server subcommand `which` (one returned above).
absl::Status RunServerCommand(const CLI::App& which, const ServerCommands& cmd,
                              std::ostream& out);

}  // namespace neardup::cli

#endif  // NEARDUP_CLI_SERVER_COMMANDS_H_
