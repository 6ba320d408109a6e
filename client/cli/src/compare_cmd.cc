#include <algorithm>
#include <cstdio>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "input.h"
#include "neardup/base/json.h"
#include "neardup/base/status_macros.h"
#include "neardup/cli/commands.h"
#include "neardup/cli/internal/passages.h"
#include "neardup/core/config_hash.h"
#include "neardup/core/explain.h"
#include "neardup/core/fingerprint_settings.h"
#include "neardup/core/newsbot_simhash.h"
#include "neardup/core/perceptual.h"
#include "neardup/core/simhash.h"
#include "neardup/core/stateless.h"
#include "neardup/core/tlsh.h"

namespace neardup::cli {
CLI::App* AddCompareCommand(CLI::App* app, CompareCommand* cmd) {
  CLI::App* sub = app->add_subcommand(
      "compare",
      "Compare two texts: estimated and exact Jaccard, Hamming, cosine, "
      "TLSH distance");
  sub->add_option("file_a", cmd->input_a, "First file (- for stdin)")
      ->required();
  sub->add_option("file_b", cmd->input_b, "Second file")->required();
  sub->add_flag("--json", cmd->json, "Print one JSON object");
  AddDeprecatedOption(sub, "--algo", "--kind", &cmd->algorithm);
  sub->add_option("--kind", cmd->algorithm,
                  "all (MinHash, SimHash, and TLSH when both inputs are long "
                  "and varied enough), tlsh, newsbot or perceptual")
      ->check(CLI::IsMember({"all", "tlsh", "newsbot", "perceptual"}))
      ->capture_default_str();
  AddKindFlags(sub, &cmd->winnow_window, &cmd->bits, &cmd->raw_bytes);
  sub->add_flag("--explain", cmd->explain,
                "Also list the passages the texts share (runs of 5 or more "
                "equal words), marked in the first text");
  AddContentTypeFlag(sub, &cmd->content_type);
  AddFingerprintFlags(sub, &cmd->fingerprint);
  return sub;
}

namespace {

void PrintTlsh(const CompareCommand& cmd, const TextComparison& compared,
               std::ostream& out) {
  if (cmd.json) {
    const nlohmann::ordered_json json = {
        {"tlsh_distance", *compared.tlsh_distance},
        {"tlsh_distance_without_length",
         *compared.tlsh_distance_without_length},
        {"tlsh_a", FormatTlsh(*compared.a.tlsh)},
        {"tlsh_b", FormatTlsh(*compared.b.tlsh)},
        {"input", cmd.raw_bytes ? "raw bytes" : "canonical text"},
    };
    out << ToJsonText(json) << "\n";
    return;
  }
  out << *compared.tlsh_distance << "\n";
}

// The Hamming distance of the two newsbot SimHashes.
void PrintNewsbot(const CompareCommand& cmd, const TextComparison& compared,
                  std::ostream& out) {
  if (cmd.json) {
    const nlohmann::ordered_json json = {
        {"hamming", *compared.hamming_distance},
        {"bits", cmd.bits},
        {"simhash_a", FormatNewsbot(*compared.a.newsbot)},
        {"simhash_b", FormatNewsbot(*compared.b.newsbot)},
        {"config_hash", FormatHex64(compared.a.newsbot_config_hash)},
    };
    out << ToJsonText(json) << "\n";
    return;
  }
  out << *compared.hamming_distance << "\n";
}

// Estimated Jaccard of the perceptual signatures and exact Jaccard of the
// winnowed shingle sets they summarise.
void PrintPerceptual(const CompareCommand& cmd, const TextComparison& compared,
                     std::ostream& out) {
  const double estimated = *compared.estimated_jaccard;
  const double exact = *compared.exact_jaccard;
  if (cmd.json) {
    const nlohmann::ordered_json json = {
        {"estimated_jaccard", Rounded(estimated, 6)},
        {"winnowed_jaccard", Rounded(exact, 6)},
        {"config_hash", FormatHex64(compared.a.minhash_config_hash)},
        {"algorithm", compared.a.algorithm},
    };
    out << ToJsonText(json) << "\n";
    return;
  }
  out << absl::StrFormat("estimated jaccard  %.4f   (%s)\n", estimated,
                         compared.a.algorithm);
  out << absl::StrFormat(
      "winnowed jaccard   %.4f   (%d and %d winnowed shingles)\n", exact,
      compared.a.perceptual->winnowed, compared.b.perceptual->winnowed);
}

// Every measure a collection of the flags could take.
void PrintAll(const CompareCommand& cmd, const TextComparison& compared,
              std::ostream& out) {
  const double estimated = *compared.estimated_jaccard;
  const double exact = *compared.exact_jaccard;
  const int hamming = *compared.hamming_distance;
  const double cosine = *compared.cosine_estimate;
  if (cmd.json) {
    nlohmann::ordered_json json = {
        {"estimated_jaccard", Rounded(estimated, 6)},
        {"exact_jaccard", Rounded(exact, 6)},
        {"hamming", hamming},
        {"cosine_estimate", Rounded(cosine, 6)},
        {"minhash_config_hash", FormatHex64(compared.a.minhash_config_hash)},
        {"simhash_config_hash", FormatHex64(compared.a.simhash_config_hash)},
        {"tokenizer", compared.a.minhash_tokenizer},
    };
    for (const KeptDistance& kept : compared.kept_distances) {
      json[kept.family + "_distance"] = kept.distance;
    }
    for (const KeptUnavailable& none : compared.kept_unavailable) {
      json[none.family + "_distance"] = nullptr;
      json[none.family + "_unavailable"] = none.reason;
    }
    out << ToJsonText(json) << "\n";
    return;
  }
  out << absl::StrFormat("estimated jaccard  %.4f   (MinHash H=%d, %s)\n",
                         estimated, compared.a.minhash->num_perm(),
                         compared.a.minhash_tokenizer);
  out << absl::StrFormat(
      "exact jaccard      %.4f   (%d and %d distinct tokens)\n", exact,
      compared.a.shingle_count, compared.b.shingle_count);
  out << absl::StrFormat(
      "hamming            %d        (SimHash64, %s, %s)\n", hamming,
      compared.a.simhash_tokenizer,
      std::string(SimHashWeightingName(cmd.fingerprint.weighting)));
  out << absl::StrFormat("cosine estimate    %.4f\n", cosine);
  for (const KeptDistance& kept : compared.kept_distances) {
    out << absl::StrFormat("%-18s %-8d (lower is closer)\n",
                           kept.family + " distance", kept.distance);
  }
  for (const KeptUnavailable& none : compared.kept_unavailable) {
    out << absl::StrFormat("%-18s n/a      (%s)\n", none.family + " distance",
                           none.reason);
  }
}

}  // namespace

namespace {

// Prints (unless --json) the passages a and b share; returns them as JSON.
absl::StatusOr<nlohmann::ordered_json> Explain(const CompareCommand& cmd,
                                               const std::string& a,
                                               const std::string& b,
                                               std::ostream& out) {
  ASSIGN_OR_RETURN(const Canonicalizer canonicalizer,
                   Canonicalizer::Create(cmd.fingerprint.canonicalizer));
  ASSIGN_OR_RETURN(const Explanation explained,
                   ExplainSharedPassages(a, b, canonicalizer));
  nlohmann::ordered_json json = nlohmann::ordered_json::array();
  std::vector<PassageLine> lines;
  std::vector<ByteRange> in_a;
  for (const SharedPassage& p : explained.passages) {
    json.push_back({{"a_begin", p.a_begin},
                    {"a_end", p.a_end},
                    {"b_begin", p.b_begin},
                    {"b_end", p.b_end},
                    {"words", p.words}});
    lines.push_back({{p.a_begin, p.a_end}, {p.b_begin, p.b_end}, p.words});
    in_a.push_back({p.a_begin, p.a_end});
  }
  if (!cmd.json) {
    out << "shared passages    " << explained.passages.size()
        << (explained.truncated ? " (cut short: at most 64, over 1 MiB)" : "")
        << "        (runs of 5+ equal words; every run of 8+ is found)\n";
    PrintPassageLines(a, lines, out);
    if (!explained.passages.empty()) {
      out << "\n" << Highlight(a, in_a, IsTerminal(out)) << "\n";
    }
  }
  return nlohmann::ordered_json{{"passages", json},
                                {"passages_truncated", explained.truncated}};
}

}  // namespace

absl::Status RunCompare(const CompareCommand& cmd, std::ostream& out) {
  if (cmd.input_a == "-" && cmd.input_b == "-") {
    return absl::InvalidArgumentError("only one input can be standard input");
  }
  if (cmd.algorithm != "all" && cmd.algorithm != "tlsh" &&
      cmd.algorithm != "newsbot" && cmd.algorithm != "perceptual") {
    return absl::InvalidArgumentError(
        absl::StrCat("--kind must be all, tlsh, newsbot or perceptual (got \"",
                     cmd.algorithm, "\")"));
  }
  ASSIGN_OR_RETURN(
      const StatelessOptions options,
      StatelessOptionsOfFlags(cmd.algorithm, cmd.fingerprint, cmd.winnow_window,
                              cmd.bits, cmd.raw_bytes));
  // Each input is read once: standard input cannot be read twice.
  ASSIGN_OR_RETURN(const std::string a,
                   ReadText(cmd.input_a, cmd.content_type, cmd.raw_bytes));
  ASSIGN_OR_RETURN(const std::string b,
                   ReadText(cmd.input_b, cmd.content_type, cmd.raw_bytes));
  ASSIGN_OR_RETURN(const TextComparison compared,
                   CompareTexts(options, {InputName(cmd.input_a), a},
                                {InputName(cmd.input_b), b}));
  // The measures first, then the passages (one JSON object with --json).
  std::ostringstream measured;
  switch (options.kind) {
    case FingerprintKind::kTlsh:
    case FingerprintKind::kTlshRaw:
      PrintTlsh(cmd, compared, measured);
      break;
    case FingerprintKind::kNewsbot:
      PrintNewsbot(cmd, compared, measured);
      break;
    case FingerprintKind::kPerceptual:
      PrintPerceptual(cmd, compared, measured);
      break;
    default:
      PrintAll(cmd, compared, measured);
  }
  if (!cmd.explain) {
    out << measured.str();
    return absl::OkStatus();
  }
  std::ostringstream passages;
  ASSIGN_OR_RETURN(const nlohmann::ordered_json explained,
                   Explain(cmd, a, b, passages));
  if (!cmd.json) {
    out << measured.str() << passages.str();
    return absl::OkStatus();
  }
  nlohmann::ordered_json json = nlohmann::ordered_json::parse(
      measured.str(), nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) json = nlohmann::ordered_json::object();
  for (const auto& [key, value] : explained.items()) json[key] = value;
  out << ToJsonText(json) << "\n";
  return absl::OkStatus();
}

}  // namespace neardup::cli
