#include <algorithm>
#include <cstdio>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "input.h"
#include "neardup/base/json.h"
#include "neardup/base/status_macros.h"
#include "neardup/cli/commands.h"
#include "neardup/core/config_hash.h"
#include "neardup/core/explain.h"
#include "neardup/core/fingerprint_settings.h"
#include "neardup/core/newsbot_simhash.h"
#include "neardup/core/perceptual.h"
#include "neardup/core/shingle_set.h"
#include "neardup/core/tlsh.h"
#include "passages.h"

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
  sub->add_option("--winnow-window", cmd->winnow_window,
                  "perceptual: winnowing window in shingles")
      ->capture_default_str();
  sub->add_option("--bits", cmd->bits, "newsbot: 16, 32, 64 or 128")
      ->check(CLI::IsMember({16, 32, 64, 128}))
      ->capture_default_str();
  sub->add_flag("--raw", cmd->raw_bytes,
                "tlsh: hash the input bytes as they are (any bytes, no "
                "canonicalization)");
  sub->add_flag("--explain", cmd->explain,
                "Also list the passages the texts share (runs of 5 or more "
                "equal words), marked in the first text");
  AddContentTypeFlag(sub, &cmd->content_type);
  AddFingerprintFlags(sub, &cmd->fingerprint);
  return sub;
}

namespace {

struct TlshPair {
  TlshDigest a, b;
};

absl::StatusOr<TlshPair> TlshOfBoth(const CompareCommand& cmd,
                                    const std::string& a,
                                    const std::string& b) {
  ASSIGN_OR_RETURN(const TlshFingerprinter fp,
                   TlshFingerprinter::Create(cmd.fingerprint.canonicalizer));
  auto digest = [&](const std::string& path,
                    const std::string& bytes) -> absl::StatusOr<TlshDigest> {
    auto d = cmd.raw_bytes ? TlshOfBytes(bytes) : fp.Fingerprint(bytes);
    if (!d.ok()) return InFile(path, d.status());
    return d;
  };
  TlshPair pair;
  ASSIGN_OR_RETURN(pair.a, digest(cmd.input_a, a));
  ASSIGN_OR_RETURN(pair.b, digest(cmd.input_b, b));
  return pair;
}

absl::Status CompareTlsh(const CompareCommand& cmd, const std::string& a,
                         const std::string& b, std::ostream& out) {
  ASSIGN_OR_RETURN(const TlshPair pair, TlshOfBoth(cmd, a, b));
  const int distance = TlshDistance(pair.a, pair.b);
  const int without_length = TlshDistance(pair.a, pair.b, false);
  if (cmd.json) {
    const nlohmann::ordered_json json = {
        {"tlsh_distance", distance},
        {"tlsh_distance_without_length", without_length},
        {"tlsh_a", FormatTlsh(pair.a)},
        {"tlsh_b", FormatTlsh(pair.b)},
        {"input", cmd.raw_bytes ? "raw bytes" : "canonical text"},
    };
    out << ToJsonText(json) << "\n";
    return absl::OkStatus();
  }
  out << distance << "\n";
  return absl::OkStatus();
}

// Prints the Hamming distance of the two newsbot SimHashes.
absl::Status CompareNewsbot(const CompareCommand& cmd, const std::string& a,
                            const std::string& b, std::ostream& out) {
  ASSIGN_OR_RETURN(const NewsbotFingerprint fa, NewsbotSimHash(a, cmd.bits));
  ASSIGN_OR_RETURN(const NewsbotFingerprint fb, NewsbotSimHash(b, cmd.bits));
  ASSIGN_OR_RETURN(const int distance, NewsbotHamming(fa, fb));
  if (cmd.json) {
    const nlohmann::ordered_json json = {
        {"hamming", distance},
        {"bits", cmd.bits},
        {"simhash_a", FormatNewsbot(fa)},
        {"simhash_b", FormatNewsbot(fb)},
        {"config_hash", FormatHex64(NewsbotConfigHash(cmd.bits))},
    };
    out << ToJsonText(json) << "\n";
    return absl::OkStatus();
  }
  out << distance << "\n";
  return absl::OkStatus();
}

// Estimated Jaccard of the perceptual signatures and exact Jaccard of the
// winnowed shingle sets they summarise.
absl::Status ComparePerceptual(const CompareCommand& cmd, const std::string& a,
                               const std::string& b, std::ostream& out) {
  ASSIGN_OR_RETURN(const PerceptualHasher hasher,
                   PerceptualHasher::Create(
                       PerceptualConfigOf(cmd.fingerprint, cmd.winnow_window),
                       cmd.fingerprint.canonicalizer));
  auto fingerprint =
      [&](const std::string& path,
          const std::string& text) -> absl::StatusOr<PerceptualFingerprint> {
    auto fp = hasher.Fingerprint(text, /*include_intermediates=*/true);
    if (!fp.ok()) return InFile(path, fp.status());
    return fp;
  };
  ASSIGN_OR_RETURN(const PerceptualFingerprint fa, fingerprint(cmd.input_a, a));
  ASSIGN_OR_RETURN(const PerceptualFingerprint fb, fingerprint(cmd.input_b, b));
  ASSIGN_OR_RETURN(const double estimated,
                   EstimateJaccard(fa.minhash, fb.minhash));
  const double exact = ExactJaccard64(WinnowedSet(fa), WinnowedSet(fb));
  if (cmd.json) {
    const nlohmann::ordered_json json = {
        {"estimated_jaccard", Rounded(estimated, 6)},
        {"winnowed_jaccard", Rounded(exact, 6)},
        {"config_hash", FormatHex64(hasher.config_hash())},
        {"algorithm", hasher.algorithm()},
    };
    out << ToJsonText(json) << "\n";
    return absl::OkStatus();
  }
  out << absl::StrFormat("estimated jaccard  %.4f   (%s)\n", estimated,
                         hasher.algorithm());
  out << absl::StrFormat(
      "winnowed jaccard   %.4f   (%d and %d winnowed shingles)\n", exact,
      fa.meta.winnowed, fb.meta.winnowed);
  return absl::OkStatus();
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
  if (cmd.explain) {
    // The measures first, then the passages (one JSON object with --json).
    CompareCommand measures = cmd;
    measures.explain = false;
    std::ostringstream measured;
    RETURN_IF_ERROR(RunCompare(measures, measured));
    ASSIGN_OR_RETURN(const std::string a,
                     ReadText(cmd.input_a, cmd.content_type, cmd.raw_bytes));
    ASSIGN_OR_RETURN(const std::string b,
                     ReadText(cmd.input_b, cmd.content_type, cmd.raw_bytes));
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
  if (cmd.input_a == "-" && cmd.input_b == "-") {
    return absl::InvalidArgumentError("only one input can be standard input");
  }
  if (cmd.algorithm != "all" && cmd.algorithm != "tlsh" &&
      cmd.algorithm != "newsbot" && cmd.algorithm != "perceptual") {
    return absl::InvalidArgumentError(
        absl::StrCat("--kind must be all, tlsh, newsbot or perceptual (got \"",
                     cmd.algorithm, "\")"));
  }
  if (cmd.raw_bytes && cmd.algorithm != "tlsh") {
    return absl::InvalidArgumentError(
        "--raw applies to --kind tlsh only: MinHash and SimHash hash "
        "canonical tokens");
  }
  if (cmd.bits != 64 && cmd.algorithm != "newsbot") {
    return absl::InvalidArgumentError("--bits applies to --kind newsbot only");
  }
  if (cmd.winnow_window != 4 && cmd.algorithm != "perceptual") {
    return absl::InvalidArgumentError(
        "--winnow-window applies to --kind perceptual only");
  }
  if (cmd.algorithm != "all") {
    ASSIGN_OR_RETURN(std::string a,
                     ReadText(cmd.input_a, cmd.content_type, cmd.raw_bytes));
    ASSIGN_OR_RETURN(std::string b,
                     ReadText(cmd.input_b, cmd.content_type, cmd.raw_bytes));
    if (cmd.algorithm == "tlsh") return CompareTlsh(cmd, a, b, out);
    if (cmd.algorithm == "newsbot") return CompareNewsbot(cmd, a, b, out);
    return ComparePerceptual(cmd, a, b, out);
  }
  ASSIGN_OR_RETURN(MinHashConfig mconfig, MinHashConfigOf(cmd.fingerprint));
  ASSIGN_OR_RETURN(SimHashConfig sconfig, SimHashConfigOf(cmd.fingerprint));
  ASSIGN_OR_RETURN(MinHasher minhasher, MinHasher::Create(mconfig));
  ASSIGN_OR_RETURN(SimHasher simhasher, SimHasher::Create(sconfig));
  ASSIGN_OR_RETURN(std::string a,
                   ReadText(cmd.input_a, cmd.content_type, cmd.raw_bytes));
  ASSIGN_OR_RETURN(std::string b,
                   ReadText(cmd.input_b, cmd.content_type, cmd.raw_bytes));

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
  // TLSH only where both texts allow one (50 bytes, varied enough).
  const absl::StatusOr<TlshPair> tlsh = TlshOfBoth(cmd, a, b);

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
    nlohmann::ordered_json with_tlsh = json;
    if (tlsh.ok()) {
      with_tlsh["tlsh_distance"] = TlshDistance(tlsh->a, tlsh->b);
    } else {
      with_tlsh["tlsh_distance"] = nullptr;
      with_tlsh["tlsh_unavailable"] = std::string(tlsh.status().message());
    }
    out << ToJsonText(with_tlsh) << "\n";
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
  if (tlsh.ok()) {
    out << absl::StrFormat("tlsh distance      %d        (lower is closer)\n",
                           TlshDistance(tlsh->a, tlsh->b));
  } else {
    out << "tlsh distance      n/a      (" << tlsh.status().message() << ")\n";
  }
  return absl::OkStatus();
}

}  // namespace neardup::cli
