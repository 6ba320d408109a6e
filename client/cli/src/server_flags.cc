// What every server subcommand shares: the connection flags, and printing
// answers as JSON or as a collection's summary.

#include <chrono>

#include "google/protobuf/util/json_util.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/config_hash.h"
#include "neardup/proto/kept_proto.h"
#include "server_command_parts.h"

namespace neardup::cli {

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
  out << c.name() << ": " << c.document_count() << " documents";
  if (c.cluster_shards() > 1) out << " in " << c.cluster_shards() << " shards";
  out << "\n"
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
                                                             : "exact");
  if (config.verification() != v1::VERIFICATION_ESTIMATE) {
    // A server before widths sends none: its evidence is 64-bit.
    out << " evidence_bits="
        << (config.evidence_bits() == 0 ? 64 : config.evidence_bits());
  }
  out << "\n";
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
  for (const KeptConfigHash& kept : proto::KeptConfigHashesFromProto(c)) {
    out << "  " << kept.family
        << ": kept per document, config_hash=" << FormatHex64(kept.config_hash)
        << "\n";
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

}  // namespace neardup::cli
