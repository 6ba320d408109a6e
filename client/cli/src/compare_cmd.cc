#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "input.h"
#include "neardup/base/json.h"
#include "neardup/base/status_macros.h"
#include "neardup/cli/commands.h"
#include "neardup/core/config_hash.h"

namespace neardup::cli {
CLI::App* AddCompareCommand(CLI::App* app, CompareCommand* cmd) {
  CLI::App* sub = app->add_subcommand(
      "compare",
      "Compare two texts: estimated and exact Jaccard, Hamming, cosine");
  sub->add_option("file_a", cmd->input_a, "First file (- for stdin)")
      ->required();
  sub->add_option("file_b", cmd->input_b, "Second file")->required();
  sub->add_flag("--json", cmd->json, "Print one JSON object");
  AddFingerprintFlags(sub, &cmd->fingerprint);
  return sub;
}

absl::Status RunCompare(const CompareCommand& cmd, std::ostream& out) {
  if (cmd.input_a == "-" && cmd.input_b == "-") {
    return absl::InvalidArgumentError("only one input can be standard input");
  }
  ASSIGN_OR_RETURN(MinHashConfig mconfig, MinHashConfigOf(cmd.fingerprint));
  ASSIGN_OR_RETURN(SimHashConfig sconfig, SimHashConfigOf(cmd.fingerprint));
  ASSIGN_OR_RETURN(MinHasher minhasher, MinHasher::Create(mconfig));
  ASSIGN_OR_RETURN(SimHasher simhasher, SimHasher::Create(sconfig));
  ASSIGN_OR_RETURN(std::string a, ReadInput(cmd.input_a));
  ASSIGN_OR_RETURN(std::string b, ReadInput(cmd.input_b));

  struct Doc {
    MinHashSignature minhash;
    uint64_t simhash;
    std::vector<Hash128> tokens;
  };
  auto fingerprint = [&](const std::string& path,
                         const std::string& text) -> absl::StatusOr<Doc> {
    Doc d;
    auto m = minhasher.Fingerprint(text);
    if (!m.ok()) return InFile(path, m.status());
    auto s = simhasher.Fingerprint(text);
    if (!s.ok()) return InFile(path, s.status());
    auto t = minhasher.TokenSet(text);
    if (!t.ok()) return InFile(path, t.status());
    d.minhash = *std::move(m);
    d.simhash = *s;
    d.tokens = *std::move(t);
    return d;
  };
  ASSIGN_OR_RETURN(Doc da, fingerprint(cmd.input_a, a));
  ASSIGN_OR_RETURN(Doc db, fingerprint(cmd.input_b, b));
  ASSIGN_OR_RETURN(double estimated, EstimateJaccard(da.minhash, db.minhash));
  const double exact = ExactJaccard(da.tokens, db.tokens);
  const int hamming = Hamming(da.simhash, db.simhash);
  const double cosine = CosineEstimate(da.simhash, db.simhash);

  if (cmd.json) {
    const nlohmann::ordered_json json = {
        {"estimated_jaccard", Rounded(estimated, 6)},
        {"exact_jaccard", Rounded(exact, 6)},
        {"hamming", hamming},
        {"cosine_estimate", Rounded(cosine, 6)},
        {"minhash_config_hash", FormatHex64(minhasher.config_hash())},
        {"simhash_config_hash", FormatHex64(simhasher.config_hash())},
        {"tokenizer", minhasher.tokenizer().Name()},
    };
    out << ToJsonText(json) << "\n";
    return absl::OkStatus();
  }
  out << absl::StrFormat("estimated jaccard  %.4f   (MinHash H=%d, %s)\n",
                         estimated, minhasher.config().num_perm,
                         minhasher.tokenizer().Name());
  out << absl::StrFormat(
      "exact jaccard      %.4f   (%d and %d distinct tokens)\n", exact,
      da.tokens.size(), db.tokens.size());
  out << absl::StrFormat("hamming            %d        (SimHash64, %s, %s)\n",
                         hamming, simhasher.tokenizer().Name(),
                         std::string(SimHashWeightingName(sconfig.weighting)));
  out << absl::StrFormat("cosine estimate    %.4f\n", cosine);
  return absl::OkStatus();
}

}  // namespace neardup::cli
