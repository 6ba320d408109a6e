// neardup query: a text's (or a vector's) near-duplicates in a collection.

#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "embedding_input.h"
#include "input.h"
#include "neardup/base/status_macros.h"
#include "neardup/cli/cli_options.h"
#include "neardup/cli/internal/passages.h"
#include "neardup/core/enum_tables.h"
#include "neardup/extract/extract.h"
#include "neardup/proto/kept_proto.h"
#include "nlohmann/json.hpp"
#include "server_command_parts.h"

namespace neardup::cli {

namespace {

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

CLI::App* AddQueryCommand(CLI::App* app, ServerCommands* cmd) {
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

  return query;
}

absl::Status RunQuery(const ServerCommands& cmd, std::ostream& out) {
  ASSIGN_OR_RETURN(client::ClientOptions options, OptionsOf(cmd.server));
  client::Client client(options);
  v1::QueryRequest request;
  request.set_collection(cmd.collection);
  absl::StatusOr<QueryAlgorithm> algorithm =
      kQueryAlgorithms.Parse(cmd.algorithm);
  if (!algorithm.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--algorithm: ", algorithm.status().message()));
  }
  request.set_algorithm(
      static_cast<v1::Algorithm>(kQueryAlgorithms.Api(*algorithm)));
  const bool semantic_only = *algorithm == QueryAlgorithm::kSemantic;
  // Extracted here, so that passages (--explain) are ranges of the text
  // shown.
  if (!cmd.text.empty()) {
    ASSIGN_OR_RETURN(const extract::ContentType type,
                     ContentTypeFor("", cmd.content_type));
    ASSIGN_OR_RETURN(std::string text, extract::ExtractText(cmd.text, type));
    request.set_text(std::move(text));
  } else if (!semantic_only || !cmd.input.empty()) {
    ASSIGN_OR_RETURN(std::string text, ReadText(cmd.input, cmd.content_type));
    request.set_text(std::move(text));
  }
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
    for (const KeptDistance& kept : proto::KeptDistancesFromProto(match)) {
      out << "  " << kept.family << "=" << kept.distance;
    }
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

}  // namespace neardup::cli
