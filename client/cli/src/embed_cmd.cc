#include "input.h"
#include "neardup/base/status_macros.h"
#include "neardup/cli/commands.h"
#include "neardup/embed/fasttext_embedder.h"
#include "nlohmann/json.hpp"

namespace neardup::cli {

CLI::App* AddEmbedCommand(CLI::App* app, EmbedCommand* cmd) {
  CLI::App* sub = app->add_subcommand(
      "embed",
      "Print a text's vector from a local fastText model as JSON "
      "(model_id, dim, values): what a collection with that model stores, "
      "and what query --embedding @FILE reads");
  sub->add_option("file", cmd->input, "Input file, or - for standard input")
      ->capture_default_str();
  sub->add_option("--model", cmd->model, "fastText model file (.bin)")
      ->required();
  AddParsedOption(sub, "--chunk-mode", &cmd->chunking.mode, ParseChunkMode,
                  "fixed, sentence (default) or recursive");
  sub->add_option("--chunk-max-tokens", cmd->chunking.max_tokens,
                  "words per chunk")
      ->capture_default_str();
  sub->add_option("--chunk-overlap", cmd->chunking.overlap,
                  "words two windows share (default: min(32, max / 4), as "
                  "a collection's default)");
  AddContentTypeFlag(sub, &cmd->content_type);
  return sub;
}

absl::Status RunEmbed(const EmbedCommand& cmd, std::ostream& out) {
  ChunkingOptions chunking = cmd.chunking;
  if (chunking.overlap < 0) {
    chunking.overlap = DefaultChunkOverlap(chunking.max_tokens);
  }
  RETURN_IF_ERROR(ValidateChunking(chunking));
  ASSIGN_OR_RETURN(const auto model, embed::FastTextEmbedder::Load(cmd.model));
  ASSIGN_OR_RETURN(const std::string text,
                   ReadText(cmd.input, cmd.content_type));
  absl::StatusOr<std::vector<float>> vector = model->Embed(text, chunking);
  if (!vector.ok()) return InFile(cmd.input, vector.status());
  nlohmann::ordered_json json;
  json["model_id"] = model->model_id();
  json["dim"] = model->dim();
  json["values"] = *vector;
  out << json.dump() << "\n";
  return absl::OkStatus();
}

}  // namespace neardup::cli
