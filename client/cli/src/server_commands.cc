#include "neardup/cli/server_commands.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "embedding_input.h"
#include "export_dump.h"
#include "google/protobuf/util/json_util.h"
#include "ingest.h"
#include "input.h"
#include "neardup/base/status_macros.h"
#include "neardup/cli/cli_options.h"
#include "neardup/client/client.h"
#include "neardup/core/config_hash.h"
#include "neardup/extract/extract.h"
#include "neardup/proto/fingerprint_settings_proto.h"
#include "nlohmann/json.hpp"
#include "passages.h"

namespace neardup::cli {
namespace {

absl::StatusOr<client::ClientOptions> OptionsOf(const ServerFlags& flags) {
  client::ClientOptions options;
  options.target = flags.server;
  options.timeout = std::chrono::milliseconds(
      static_cast<int64_t>(flags.timeout_seconds * 1000));
  options.token = flags.token;
  options.allow_token_over_plaintext = flags.allow_plaintext_token;
  options.tls_server_name = flags.tls_server_name;
  RETURN_IF_ERROR(client::LoadTlsFiles(flags.tls_ca, flags.tls_cert,
                                       flags.tls_key, options));
  RETURN_IF_ERROR(client::CheckTokenTransport(options));
  return options;
}

void AddServerFlags(CLI::App* app, ServerFlags* flags) {
  app->add_option("--server", flags->server, "neardupd address (host:port)")
      ->envname("NEARDUP_SERVER")
      ->capture_default_str();
  app->add_option("--timeout", flags->timeout_seconds,
                  "seconds per call (UNAVAILABLE is retried with backoff)")
      ->capture_default_str();
  app->add_flag("--json", flags->json, "print JSON instead of text");
  app->add_option("--tls-ca", flags->tls_ca,
                  "PEM CA that signed the server's certificate (turns on TLS)")
      ->envname("NEARDUP_TLS_CA");
  app->add_option("--tls-cert", flags->tls_cert,
                  "PEM client certificate, for servers that require mTLS");
  app->add_option("--tls-key", flags->tls_key, "PEM key of --tls-cert");
  app->add_option("--tls-server-name", flags->tls_server_name,
                  "check the server certificate against this name instead "
                  "of the --server host");
  app->add_option("--token", flags->token, "bearer token")
      ->envname("NEARDUP_TOKEN");
  app->add_flag("--allow-plaintext-token", flags->allow_plaintext_token,
                "send --token without TLS to a non-loopback server (only "
                "behind a trusted TLS-terminating proxy)");
}

absl::Status PrintJson(const google::protobuf::Message& message,
                       std::ostream& out) {
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  const auto status =
      google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok()) return absl::InternalError(status.ToString());
  out << json << "\n";
  return absl::OkStatus();
}

void PrintCollection(const v1::Collection& c, std::ostream& out) {
  const v1::FingerprintConfig& config = c.config();
  out << c.name() << ": " << c.document_count() << " documents\n"
      << "  minhash: H=" << config.num_perm()
      << " shingle_k=" << config.shingle_k()
      << " tokenizer=" << config.tokenizer()
      << " threshold=" << config.threshold()
      << " min_threshold=" << config.min_threshold()
      << " bands x rows=" << config.bands() << "x" << config.rows()
      << " config_hash=" << FormatHex64(c.minhash_config_hash()) << "\n"
      << "  candidate probability: " << c.candidate_probability_at_floor()
      << " at min_threshold, " << c.candidate_probability_at_threshold()
      << " at threshold; verification="
      << (config.verification() == v1::VERIFICATION_ESTIMATE ? "estimate"
                                                             : "exact")
      << "\n";
  if (config.minhash_algorithm() == v1::MINHASH_ALGORITHM_PERCEPTUAL) {
    out << "  minhash algorithm: perceptual (rolling shingles of shingle_k "
           "words, winnow_window="
        << config.winnow_window() << ")\n";
  }
  if (config.simhash()) {
    out << "  simhash: "
        << (config.simhash_variant() == v1::SIMHASH_VARIANT_NEWSBOT ? "newsbot"
                                                                    : "txtfp")
        << " max_distance=" << config.simhash_max_distance()
        << " config_hash=" << FormatHex64(c.simhash_config_hash()) << "\n";
  }
  if (config.tlsh()) {
    out << "  tlsh: kept per document, config_hash="
        << FormatHex64(c.tlsh_config_hash()) << "\n";
  }
  if (config.has_embedding()) {
    const v1::EmbeddingSpace& space = config.embedding();
    out << "  embedding: model_id=" << space.model_id()
        << " dim=" << space.dim() << " cosine, hnsw m=" << space.hnsw_m()
        << " ef_construction=" << space.ef_construction()
        << " ef_search=" << space.ef_search()
        << " min_cosine=" << space.min_cosine()
        << (space.hnsw() ? " (hnsw)" : " (exact search)") << "\n";
    if (!space.fasttext_model().empty()) {
      out << "  embeds texts with fastText model " << space.fasttext_model()
          << " (chunks of " << space.chunk_max_tokens() << " words, "
          << v1::EmbeddingSpace::ChunkMode_Name(space.chunk_mode()) << ")\n";
    }
  }
  out << "  store_text=" << (config.store_text() ? "yes" : "no") << "\n";
}

// --embedding: "0.1,0.2,...", or @FILE holding a JSON array of numbers or
// what `neardup embed` prints ({"model_id", "dim", "values"}). The model is
// --embedding-model, else the file's model_id.
absl::StatusOr<v1::Embedding> ParseEmbeddingFlag(std::string_view flag,
                                                 const std::string& model) {
  std::string text(flag);
  if (!text.empty() && text[0] == '@') {
    std::ifstream in(text.substr(1));
    if (!in) {
      return absl::NotFoundError(
          absl::StrCat("--embedding: cannot read ", text.substr(1)));
    }
    std::stringstream content;
    content << in.rdbuf();
    text = content.str();
  }
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos ||
      (text[first] != '{' && text[first] != '[')) {
    // A bare list, as numpy.savetxt writes or a shell passes: numbers
    // separated by commas, spaces or line breaks.
    nlohmann::json values = nlohmann::json::array();
    for (absl::string_view part :
         absl::StrSplit(text, absl::ByAnyChar(", \t\r\n"), absl::SkipEmpty())) {
      double value = 0;
      if (!absl::SimpleAtod(part, &value)) {
        return absl::InvalidArgumentError(
            absl::StrCat("--embedding: \"", part, "\" is not a number"));
      }
      values.push_back(value);
    }
    return EmbeddingFromJson(values, model, "--embedding");
  }
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded()) {
    return absl::InvalidArgumentError(
        "--embedding: expected numbers separated by commas, a JSON array, or "
        "what neardup embed prints");
  }
  return EmbeddingFromJson(json, model, "--embedding");
}

}  // namespace

v1::FingerprintConfig CollectionConfigRequest(
    const CollectionConfigFlags& flags) {
  v1::FingerprintConfig config;
  proto::SettingsToProto(flags.fingerprint, &config);
  config.set_threshold(flags.threshold);
  config.set_min_threshold(flags.min_threshold);
  config.set_banding(proto::BandingToProto(flags.banding));
  config.set_verification(proto::VerificationToProto(flags.verification));
  config.set_bands(static_cast<uint32_t>(flags.bands));
  config.set_rows(static_cast<uint32_t>(flags.rows));
  config.set_slot_bits(static_cast<uint32_t>(flags.slot_bits));
  config.set_simhash(flags.simhash);
  config.set_simhash_max_distance(static_cast<uint32_t>(flags.max_distance));
  config.set_store_text(flags.store_text);
  CollectionConfig families;
  families.minhash_algorithm = flags.minhash_algorithm;
  families.winnow_window = flags.winnow_window;
  families.simhash_variant = flags.simhash_variant;
  families.keep_tlsh = flags.tlsh;
  proto::FamiliesToProto(families, &config);
  if (flags.embedding_dim != 0 || !flags.embedding_model.empty() ||
      !flags.fasttext_model.empty()) {
    v1::EmbeddingSpace* space = config.mutable_embedding();
    space->set_model_id(flags.embedding_model);
    space->set_dim(static_cast<uint32_t>(std::max(flags.embedding_dim, 0)));
    space->set_hnsw_m(static_cast<uint32_t>(std::max(flags.hnsw_m, 0)));
    space->set_ef_construction(
        static_cast<uint32_t>(std::max(flags.ef_construction, 0)));
    space->set_ef_search(static_cast<uint32_t>(std::max(flags.ef_search, 0)));
    space->set_min_cosine(flags.min_cosine);
    space->set_hnsw(flags.hnsw);
    space->set_fasttext_model(flags.fasttext_model);
    space->set_chunk_mode(proto::ChunkModeToProto(flags.chunk_mode));
    space->set_chunk_max_tokens(
        static_cast<uint32_t>(std::max(flags.chunk_max_tokens, 0)));
    if (flags.chunk_overlap >= 0) {
      space->set_chunk_overlap(static_cast<uint32_t>(flags.chunk_overlap));
    }
  }
  return config;
}

namespace {

absl::Status RunQuery(const ServerCommands& cmd, std::ostream& out) {
  ASSIGN_OR_RETURN(client::ClientOptions options, OptionsOf(cmd.server));
  client::Client client(options);
  v1::QueryRequest request;
  request.set_collection(cmd.collection);
  // Extracted here, so that passages (--explain) are ranges of the text
  // shown.
  const bool semantic_only = cmd.algorithm == "semantic";
  if (!cmd.text.empty()) {
    ASSIGN_OR_RETURN(const extract::ContentType type,
                     ContentTypeFor("", cmd.content_type));
    ASSIGN_OR_RETURN(std::string text, extract::ExtractText(cmd.text, type));
    request.set_text(std::move(text));
  } else if (!semantic_only || !cmd.input.empty()) {
    ASSIGN_OR_RETURN(std::string text, ReadText(cmd.input, cmd.content_type));
    request.set_text(std::move(text));
  }
  static const std::map<std::string, v1::Algorithm, std::less<>> kAlgorithms = {
      {"minhash", v1::ALGORITHM_MINHASH},
      {"simhash", v1::ALGORITHM_SIMHASH},
      {"semantic", v1::ALGORITHM_SEMANTIC},
      {"hybrid-all", v1::ALGORITHM_HYBRID_ALL},
      {"hybrid-any", v1::ALGORITHM_HYBRID_ANY}};
  const auto algorithm = kAlgorithms.find(cmd.algorithm);
  if (algorithm == kAlgorithms.end()) {
    return absl::InvalidArgumentError(
        "--algorithm must be minhash, simhash, semantic, hybrid-all or "
        "hybrid-any");
  }
  request.set_algorithm(algorithm->second);
  if (!cmd.embedding.empty()) {
    ASSIGN_OR_RETURN(*request.mutable_embedding(),
                     ParseEmbeddingFlag(cmd.embedding, cmd.embedding_model));
  }
  if (!std::isnan(cmd.min_cosine)) request.set_min_cosine(cmd.min_cosine);
  request.set_threshold(cmd.threshold);
  if (cmd.max_distance >= 0) request.set_max_distance(cmd.max_distance);
  request.set_top_k(cmd.top_k);
  request.set_include_metadata(cmd.metadata);
  request.set_explain(cmd.explain);
  ASSIGN_OR_RETURN(v1::QueryResponse response, client.Query(request));
  if (cmd.server.json) return PrintJson(response, out);
  if (response.matches().empty()) {
    out << "no near-duplicates (" << response.candidates()
        << " candidates checked)\n";
  }
  for (const v1::Match& match : response.matches()) {
    out << std::fixed << std::setprecision(4) << match.similarity() << "  "
        << match.id();
    if (match.has_exact_jaccard()) out << "  exact=" << match.exact_jaccard();
    if (match.has_hamming_distance()) {
      out << "  hamming=" << match.hamming_distance();
    }
    if (match.has_tlsh_distance()) out << "  tlsh=" << match.tlsh_distance();
    if (match.has_cosine()) out << "  cosine=" << match.cosine();
    for (const auto& [key, value] : match.metadata()) {
      out << "  " << key << "=" << value;
    }
    out << "\n";
    if (!cmd.explain) continue;
    if (!match.explain_unavailable().empty()) {
      out << "  (no passages: " << match.explain_unavailable() << ")\n";
      continue;
    }
    std::vector<PassageLine> lines;
    for (const v1::SharedPassage& p : match.passages()) {
      lines.push_back({{p.probe_begin(), p.probe_end()},
                       {p.match_begin(), p.match_end()},
                       p.words()});
    }
    PrintPassageLines(request.text(), lines, out);
    if (match.passages_truncated()) out << "  (more passages left out)\n";
  }
  return absl::OkStatus();
}

absl::Status RunStats(const ServerCommands& cmd, std::ostream& out) {
  ASSIGN_OR_RETURN(client::ClientOptions options, OptionsOf(cmd.server));
  client::Client client(options);
  ASSIGN_OR_RETURN(v1::StatsResponse stats, client.Stats(cmd.collection));
  if (cmd.server.json) return PrintJson(stats, out);
  for (const v1::CollectionStats& c : stats.collections()) {
    out << c.name() << ": " << c.document_count() << " documents, index "
        << c.index_bytes() << " bytes, bands x rows " << c.bands() << "x"
        << c.rows() << ", min_threshold " << c.min_threshold()
        << (c.simhash() ? ", simhash" : "") << "\n";
  }
  for (const v1::QuarantinedCollection& q : stats.quarantined()) {
    out << q.name() << ": QUARANTINED (not served): " << q.reason() << "\n";
  }
  out << "store: " << stats.store_live_bytes() << " bytes live ("
      << stats.store_blob_garbage_bytes()
      << " of them blob garbage, collection "
      << (stats.store_blob_gc_on() ? "on" : "off") << "), "
      << stats.store_pending_compaction_bytes() << " bytes pending compaction, "
      << stats.store_memtable_bytes() << " bytes in memtables\n";
  out << "disk: " << stats.disk_available_bytes() << " of "
      << stats.disk_capacity_bytes() << " bytes free, reserve "
      << stats.disk_reserve_bytes() << "\n";
  if (stats.disk_full()) {
    out << "DISK FULL: writes are refused: " << stats.disk_full_reason()
        << "\n";
  }
  return absl::OkStatus();
}

absl::Status RunBackup(const ServerCommands& cmd, std::ostream& out) {
  ASSIGN_OR_RETURN(client::ClientOptions options, OptionsOf(cmd.server));
  client::Client client(options);
  ASSIGN_OR_RETURN(v1::CreateBackupResponse backup,
                   client.CreateBackup(cmd.backup_destination));
  if (cmd.server.json) return PrintJson(backup, out);
  out << "backup in " << backup.path() << " (on the server): sequence number "
      << backup.sequence_number() << ", " << backup.bytes() << " bytes, "
      << backup.seconds() << " s\n";
  for (const v1::BackupCollection& c : backup.collections()) {
    out << "  " << c.name() << ": " << c.documents() << " documents\n";
  }
  out << "restore: start neardupd with --data-dir on a copy of it\n";
  return absl::OkStatus();
}

absl::Status RunExport(const ServerCommands& cmd, std::ostream& stdout_stream) {
  std::ofstream file;
  if (!cmd.output.empty()) {
    file.open(cmd.output, std::ios::binary | std::ios::trunc);
    if (!file.is_open()) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot write ", cmd.output));
    }
  }
  std::ostream& out = cmd.output.empty() ? stdout_stream : file;
  ASSIGN_OR_RETURN(client::ClientOptions options, OptionsOf(cmd.server));
  client::Client client(options);
  v1::ExportRequest request;
  request.set_collection(cmd.collection);
  request.set_with_signatures(cmd.with_signatures);
  const auto start = std::chrono::steady_clock::now();
  uint64_t documents = 0;
  RETURN_IF_ERROR(client.Export(
      request, [&](const v1::ExportResponse& message) -> absl::Status {
        if (message.has_collection() &&
            !message.collection().config().store_text() &&
            !cmd.with_signatures) {
          std::cerr << "neardup export: collection " << cmd.collection
                    << " keeps no text: without --with-signatures the dump "
                       "holds ids and metadata only and cannot be ingested\n";
        }
        for (const v1::Document& doc : message.documents()) {
          out << EncodeExportLine(doc) << '\n';
        }
        documents += message.documents_size();
        if (!out) return absl::DataLossError("cannot write the export");
        return absl::OkStatus();
      }));
  out.flush();
  if (!out) return absl::DataLossError("cannot write the export");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::cerr << "exported " << documents << " documents of " << cmd.collection
            << " in " << seconds << " s ("
            << static_cast<uint64_t>(documents / std::max(seconds, 1e-9))
            << " docs/s)\n";
  return absl::OkStatus();
}

}  // namespace

std::vector<CLI::App*> AddServerCommands(CLI::App* app, ServerCommands* cmd) {
  std::vector<CLI::App*> commands;
  CLI::App* collections = app->add_subcommand(
      "collections", "create, list, get or drop collections");
  collections->require_subcommand(1);
  collections->fallthrough();  // --server etc. also after the verb
  AddServerFlags(collections, &cmd->server);
  CLI::App* create = collections->add_subcommand(
      "create", "create a collection (its config is immutable)");
  create->add_option("name", cmd->collection_name, "collection name")
      ->required();
  CollectionConfigFlags& c = cmd->config;
  create->add_option("--threshold", c.threshold, "default Jaccard threshold")
      ->capture_default_str();
  create->add_option(
      "--min-threshold", c.min_threshold,
      "recall floor: the lowest threshold queries may use; picks bands x "
      "rows (default: threshold - 0.1)");
  AddParsedOption(create, "--banding", &c.banding, ParseBandingRule,
                  "recall-first (default: >= 99.5% of pairs at the floor "
                  "become candidates) or txtfp (txtfp's banding)");
  AddParsedOption(create, "--verification", &c.verification, ParseVerification,
                  "exact (default: exact Jaccard of kept shingle sets) or "
                  "estimate (MinHash estimate; no shingle sets kept)");
  // The same fingerprint flags as fingerprint, compare and dedup: the same
  // values give the same config hash offline and on the server. The
  // collection's SimHash always runs over the plain tokens.
  AddFingerprintFlags(create, &c.fingerprint);
  create->add_option("--bands", c.bands, "LSH bands (with --rows)");
  create->add_option("--rows", c.rows, "LSH rows per band (with --bands)");
  create
      ->add_option("--slot-bits", c.slot_bits,
                   "bits per slot kept in memory: 16, 32, 64")
      ->capture_default_str();
  AddDeprecatedParsedOption(
      create, "--verify-bits", "--slot-bits", &c.slot_bits,
      [](const std::string& text) -> absl::StatusOr<int> {
        int bits = 0;
        if (!absl::SimpleAtoi(text, &bits)) {
          return absl::InvalidArgumentError("expected a number of bits");
        }
        return bits;
      });
  create->add_flag("--simhash", c.simhash, "also index 64-bit SimHashes");
  create->add_option("--max-distance", c.max_distance, "SimHash Hamming radius")
      ->capture_default_str();
  create->add_flag("--store-text", c.store_text,
                   "keep texts (to return them, and for query --explain)");
  AddParsedOption(create, "--minhash-algorithm", &c.minhash_algorithm,
                  ParseMinHashAlgorithm,
                  "MinHash family: shingled (default; also \"minhash\") or "
                  "perceptual (UCFP: rolling shingles of --ngram words, 0 "
                  "meaning 9, winnowed, then MinHash)");
  AddDeprecatedParsedOption(create, "--algorithm", "--minhash-algorithm",
                            &c.minhash_algorithm, ParseMinHashAlgorithm);
  create->add_option("--winnow-window", c.winnow_window,
                     "perceptual: winnowing window in shingles (0: 4)");
  AddParsedOption(create, "--simhash-variant", &c.simhash_variant,
                  ParseSimHashVariant,
                  "with --simhash: txtfp (default) or newsbot (MD5 per "
                  "lowercase ASCII alphanumeric token)");
  create->add_flag("--tlsh", c.tlsh,
                   "keep each text's TLSH: query matches report tlsh_distance");
  create->add_option("--embedding-model", c.embedding_model,
                     "embedding space: the model id every vector is tagged "
                     "with (with --embedding-dim)");
  create->add_option("--embedding-dim", c.embedding_dim,
                     "embedding space: vector dimension, 1..4096");
  create->add_option("--hnsw-m", c.hnsw_m,
                     "with --hnsw: links per node (0: 16)");
  create->add_option("--ef-construction", c.ef_construction,
                     "HNSW candidates while building (0: 200)");
  create->add_option("--ef-search", c.ef_search,
                     "HNSW candidates while searching (0: 128)");
  create->add_option("--min-cosine", c.min_cosine,
                     "default least cosine of semantic queries (0: 0.9)");
  create->add_option("--fasttext-model", c.fasttext_model,
                     "embed texts on the server with this fastText model "
                     "(a path inside the server's --models-dir); model id "
                     "and dim then come from the file");
  AddParsedOption(create, "--chunk-mode", &c.chunk_mode, ParseChunkMode,
                  "with --fasttext-model: fixed, sentence (default) or "
                  "recursive");
  create->add_option("--chunk-max-tokens", c.chunk_max_tokens,
                     "with --fasttext-model: words per chunk (0: 256)");
  create->add_option("--chunk-overlap", c.chunk_overlap,
                     "with --fasttext-model: words fixed windows share "
                     "(default 32)");
  create->add_flag("--hnsw", c.hnsw,
                   "semantic queries walk HNSW graphs (approximate, faster on "
                   "large collections) instead of scoring every vector");
  commands.push_back(create);
  commands.push_back(collections->add_subcommand("list", "list collections"));
  CLI::App* get = collections->add_subcommand("get", "show one collection");
  get->add_option("name", cmd->collection_name)->required();
  commands.push_back(get);
  CLI::App* drop = collections->add_subcommand(
      "drop", "delete a collection and all its documents");
  drop->add_option("name", cmd->collection_name)->required();
  commands.push_back(drop);

  CLI::App* ingest = app->add_subcommand(
      "ingest", "stream documents from files into a collection (BulkUpsert)");
  AddServerFlags(ingest, &cmd->server);
  dataset::DatasetOptions& files = cmd->input_files;
  ingest->add_option("inputs", files.inputs, "JSONL, CSV, TSV or TXT files")
      ->required();
  ingest->add_option("--collection,-c", cmd->collection)->required();
  AddParsedOption(ingest, "--format", &files.format, dataset::ParseFormatName,
                  "auto (by extension, the default), jsonl, csv, tsv or txt");
  AddContentTypeFlag(ingest, &cmd->content_type);
  ingest->add_flag("--doc-per-file", files.doc_per_file,
                   "each file (folders are read recursively) is one "
                   "document, its id the file name; .html, .md and .pdf "
                   "files are extracted by their extension");
  ingest->add_option("--field", files.field, "JSON field or column of the text")
      ->capture_default_str();
  ingest
      ->add_option("--max-record-bytes", files.max_record_bytes,
                   "refuse a record longer than this (as dedup does)")
      ->capture_default_str();
  ingest->add_option("--id-field", cmd->id_field,
                     "JSON field or column of the id (default FILE:LINE)");
  ingest->add_option("--insert-only-below", cmd->insert_only_below,
                     "skip documents with a stored near-duplicate at or above "
                     "this Jaccard (dedup-on-write)");
  ingest->add_option("--embedding-field", cmd->embedding_field,
                     "JSONL field with each document's vector (an array of "
                     "numbers), for collections with an embedding space");
  ingest->add_option("--embedding-model", cmd->embedding_model,
                     "model id of --embedding-field's vectors (must be the "
                     "collection's)");
  ingest->add_flag("--skip-invalid", cmd->skip_invalid,
                   "count and skip malformed records instead of stopping");
  ingest->add_flag("--no-progress", cmd->no_progress, "no progress line");
  commands.push_back(ingest);

  CLI::App* query =
      app->add_subcommand("query", "find stored near-duplicates of a text");
  AddServerFlags(query, &cmd->server);
  query->add_option("input", cmd->input, "file with the text, or - (stdin)");
  query->add_option("--text", cmd->text, "the text itself");
  query->add_option("--collection,-c", cmd->collection)->required();
  query->add_option("--threshold", cmd->threshold,
                    "minimum Jaccard (default: the collection's)");
  query->add_option("--top-k", cmd->top_k)->capture_default_str();
  query
      ->add_option("--algorithm", cmd->algorithm,
                   "minhash, simhash, semantic (by --embedding), hybrid-all "
                   "(MinHash threshold and --min-cosine) or hybrid-any "
                   "(either)")
      ->capture_default_str();
  query->add_option("--embedding", cmd->embedding,
                    "the probe's vector: 0.1,0.2,... or @FILE (JSON array)");
  query->add_option("--embedding-model", cmd->embedding_model,
                    "model id of --embedding (must be the collection's)");
  query->add_option("--min-cosine", cmd->min_cosine,
                    "least cosine (default: the collection's)");
  query->add_option("--max-distance", cmd->max_distance,
                    "SimHash Hamming radius (default: the collection's)");
  query->add_flag("--metadata", cmd->metadata, "print matches' metadata");
  AddContentTypeFlag(query, &cmd->content_type);
  query->add_flag("--explain", cmd->explain,
                  "list the passages each match shares with the text (the "
                  "collection must store text)");
  commands.push_back(query);

  CLI::App* get_doc = app->add_subcommand("get", "show a stored document");
  AddServerFlags(get_doc, &cmd->server);
  get_doc->add_option("--collection,-c", cmd->collection)->required();
  get_doc->add_option("id", cmd->id)->required();
  commands.push_back(get_doc);

  CLI::App* del = app->add_subcommand("delete", "delete a stored document");
  AddServerFlags(del, &cmd->server);
  del->add_option("--collection,-c", cmd->collection)->required();
  del->add_option("id", cmd->id)->required();
  commands.push_back(del);

  CLI::App* stats = app->add_subcommand("stats", "collection and store sizes");
  AddServerFlags(stats, &cmd->server);
  stats->add_option("--collection,-c", cmd->collection, "one collection");
  commands.push_back(stats);

  CLI::App* backup = app->add_subcommand(
      "backup",
      "admin: checkpoint the server's whole store into a new directory under "
      "its --backup-dir (the server keeps serving)");
  AddServerFlags(backup, &cmd->server);
  backup
      ->add_option("destination", cmd->backup_destination,
                   "new directory, relative to the server's --backup-dir")
      ->required();
  commands.push_back(backup);

  CLI::App* export_cmd = app->add_subcommand(
      "export",
      "write every document of a collection as JSONL to stdout, from one "
      "snapshot (neardup ingest reads it back)");
  AddServerFlags(export_cmd, &cmd->server);
  export_cmd->add_option("--collection,-c", cmd->collection)->required();
  export_cmd->add_flag("--with-signatures", cmd->with_signatures,
                       "also write each document's signatures and their "
                       "config hashes (an import then needs no text)");
  export_cmd->add_option("--output,-o", cmd->output,
                         "write the JSONL here instead of stdout");
  commands.push_back(export_cmd);

  CLI::App* health = app->add_subcommand(
      "health", "exit 0 when the server is SERVING (for probes)");
  AddServerFlags(health, &cmd->server);
  commands.push_back(health);
  return commands;
}

absl::Status RunServerCommand(const CLI::App& which, const ServerCommands& cmd,
                              std::ostream& out) {
  const std::string name = which.get_name();
  const std::string parent =
      which.get_parent() ? which.get_parent()->get_name() : "";
  ASSIGN_OR_RETURN(client::ClientOptions options, OptionsOf(cmd.server));
  client::Client client(options);
  if (parent == "collections") {
    if (name == "create") {
      v1::CreateCollectionRequest request;
      request.set_name(cmd.collection_name);
      *request.mutable_config() = CollectionConfigRequest(cmd.config);
      ASSIGN_OR_RETURN(v1::Collection created,
                       client.CreateCollection(request));
      if (cmd.server.json) return PrintJson(created, out);
      out << "created ";
      PrintCollection(created, out);
      return absl::OkStatus();
    }
    if (name == "list") {
      ASSIGN_OR_RETURN(v1::ListCollectionsResponse list,
                       client.ListCollections());
      if (cmd.server.json) return PrintJson(list, out);
      if (list.collections().empty()) out << "no collections\n";
      for (const auto& c : list.collections()) PrintCollection(c, out);
      return absl::OkStatus();
    }
    if (name == "get") {
      ASSIGN_OR_RETURN(v1::Collection c,
                       client.GetCollection(cmd.collection_name));
      if (cmd.server.json) return PrintJson(c, out);
      PrintCollection(c, out);
      return absl::OkStatus();
    }
    RETURN_IF_ERROR(client.DropCollection(cmd.collection_name));
    if (!cmd.server.json) out << "dropped " << cmd.collection_name << "\n";
    return absl::OkStatus();
  }
  if (name == "ingest") return RunIngest(cmd, options, out);
  if (name == "backup") return RunBackup(cmd, out);
  if (name == "export") return RunExport(cmd, out);
  if (name == "query") return RunQuery(cmd, out);
  if (name == "stats") return RunStats(cmd, out);
  if (name == "get") {
    ASSIGN_OR_RETURN(v1::Document doc, client.Get(cmd.collection, cmd.id));
    if (cmd.server.json) return PrintJson(doc, out);
    out << doc.id() << "\n";
    for (const auto& [key, value] : doc.metadata()) {
      out << "  " << key << "=" << value << "\n";
    }
    if (!doc.text().empty()) out << doc.text() << "\n";
    return absl::OkStatus();
  }
  if (name == "delete") {
    RETURN_IF_ERROR(client.Delete(cmd.collection, cmd.id));
    if (!cmd.server.json) out << "deleted " << cmd.id << "\n";
    return absl::OkStatus();
  }
  // health
  ASSIGN_OR_RETURN(auto status, client.Health());
  out << grpc::health::v1::HealthCheckResponse::ServingStatus_Name(status)
      << "\n";
  if (status != grpc::health::v1::HealthCheckResponse::SERVING) {
    return absl::UnavailableError("neardupd is not serving");
  }
  return absl::OkStatus();
}

}  // namespace neardup::cli
