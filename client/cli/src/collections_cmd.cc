// neardup collections create | list | get | drop.

#include <algorithm>

#include "absl/strings/numbers.h"
#include "neardup/base/status_macros.h"
#include "neardup/cli/cli_options.h"
#include "neardup/proto/fingerprint_settings_proto.h"
#include "server_command_parts.h"

namespace neardup::cli {

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
  config.set_evidence_bits(static_cast<uint32_t>(flags.evidence_bits));
  config.set_simhash(flags.simhash);
  config.set_simhash_max_distance(static_cast<uint32_t>(flags.max_distance));
  config.set_store_text(flags.store_text);
  CollectionConfig families;
  families.minhash_algorithm = flags.minhash_algorithm;
  families.winnow_window = flags.winnow_window;
  families.simhash_variant = flags.simhash_variant;
  families.kept_families = flags.kept_families;
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

void AddCollectionsCommands(CLI::App* app, ServerCommands* cmd,
                            std::vector<CLI::App*>& commands) {
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
                   "bits per slot kept in memory: 8, 16, 32, 64 (0: 8 with "
                   "--verification exact, 16 with estimate)")
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
  create
      ->add_option("--evidence-bits", c.evidence_bits,
                   "bits of each shingle hash kept for exact verification: "
                   "32 or 64 (0: 32, about half the stored bytes of 64)")
      ->check(CLI::IsMember({0, 32, 64}))
      ->capture_default_str();
  create->add_flag("--simhash", c.simhash, "also index 64-bit SimHashes");
  create->add_option("--max-distance", c.max_distance, "SimHash Hamming radius")
      ->capture_default_str();
  create->add_flag("--store-text", c.store_text,
                   "keep texts (to return them, and for query --explain)");
  AddParsedOption(
      create, "--minhash-algorithm", &c.minhash_algorithm,
      ParseMinHashAlgorithm,
      absl::StrCat("MinHash family: shingled (default; also \"minhash\") or "
                   "perceptual (UCFP: rolling shingles of --ngram words, 0 "
                   "meaning ",
                   kDefaultPerceptualK, ", winnowed, then MinHash)"));
  AddDeprecatedParsedOption(create, "--algorithm", "--minhash-algorithm",
                            &c.minhash_algorithm, ParseMinHashAlgorithm);
  create->add_option(
      "--winnow-window", c.winnow_window,
      absl::StrCat("perceptual: winnowing window in shingles (0: ",
                   kDefaultWinnowWindow, ")"));
  AddParsedOption(create, "--simhash-variant", &c.simhash_variant,
                  ParseSimHashVariant,
                  "with --simhash: txtfp (default) or newsbot (MD5 per "
                  "lowercase ASCII alphanumeric token)");
  create
      ->add_option("--keep", c.kept_families,
                   "kept families, repeatable or comma-separated: kept per "
                   "text document, query matches report each one's distance "
                   "to the probe. " +
                       KeptFamilySummaries())
      ->delimiter(',')
      ->check(KeptFamilyValidator());
  create
      ->add_flag_callback(
          "--tlsh",
          [&c] {
            WarnDeprecated("--tlsh", "--keep tlsh");
            c.kept_families.push_back("tlsh");
          },
          "deprecated: use --keep tlsh")
      ->group("");
  create->add_option("--embedding-model", c.embedding_model,
                     "embedding space: the model id every vector is tagged "
                     "with (with --embedding-dim)");
  create->add_option("--embedding-dim", c.embedding_dim,
                     "embedding space: vector dimension, 1..4096");
  create->add_option("--hnsw-m", c.hnsw_m,
                     absl::StrCat("with --hnsw: links per node (0: ",
                                  EmbeddingSpace{}.hnsw_m, ")"));
  create->add_option("--ef-construction", c.ef_construction,
                     absl::StrCat("HNSW candidates while building (0: ",
                                  EmbeddingSpace{}.ef_construction, ")"));
  create->add_option("--ef-search", c.ef_search,
                     absl::StrCat("HNSW candidates while searching (0: ",
                                  EmbeddingSpace{}.ef_search, ")"));
  create->add_option(
      "--min-cosine", c.min_cosine,
      absl::StrCat("default least cosine of semantic queries (0: ",
                   EmbeddingSpace{}.min_cosine, ")"));
  create->add_option("--fasttext-model", c.fasttext_model,
                     "embed texts on the server with this fastText model "
                     "(a path inside the server's --models-dir); model id "
                     "and dim then come from the file");
  AddParsedOption(create, "--chunk-mode", &c.chunk_mode, ParseChunkMode,
                  "with --fasttext-model: fixed, sentence (default) or "
                  "recursive");
  create->add_option("--chunk-max-tokens", c.chunk_max_tokens,
                     absl::StrCat("with --fasttext-model: words per chunk (0: ",
                                  ChunkingOptions{}.max_tokens, ")"));
  create->add_option("--chunk-overlap", c.chunk_overlap,
                     "with --fasttext-model: words fixed windows share "
                     "(default 32)");
  create->add_flag("--hnsw", c.hnsw,
                   "semantic queries walk HNSW graphs (approximate, faster on "
                   "large collections) instead of scoring every vector");
  create->add_option("--cluster-shards", cmd->cluster_shards,
                     "in a cluster: shards holding the documents, fixed at "
                     "creation (default 1; docs/cluster.md)");
  commands.push_back(create);
  commands.push_back(collections->add_subcommand("list", "list collections"));
  CLI::App* get = collections->add_subcommand("get", "show one collection");
  get->add_option("name", cmd->collection_name)->required();
  commands.push_back(get);
  CLI::App* drop = collections->add_subcommand(
      "drop", "delete a collection and all its documents");
  drop->add_option("name", cmd->collection_name)->required();
  commands.push_back(drop);
}

absl::Status RunCollectionsCommand(std::string_view verb,
                                   const ServerCommands& cmd,
                                   std::ostream& out) {
  ASSIGN_OR_RETURN(client::ClientOptions options, OptionsOf(cmd.server));
  client::Client client(options);
  const std::string name(verb);
  if (name == "create") {
    v1::CreateCollectionRequest request;
    request.set_name(cmd.collection_name);
    *request.mutable_config() = CollectionConfigRequest(cmd.config);
    request.set_cluster_shards(cmd.cluster_shards);
    ASSIGN_OR_RETURN(v1::Collection created, client.CreateCollection(request));
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

}  // namespace neardup::cli
