#include "absl/strings/str_cat.h"
#include "input.h"
#include "neardup/base/json.h"
#include "neardup/base/status_macros.h"
#include "neardup/cli/commands.h"
#include "neardup/core/config_hash.h"
#include "neardup/core/fingerprint_settings.h"
#include "neardup/core/newsbot_simhash.h"
#include "neardup/core/perceptual.h"
#include "neardup/core/stateless.h"
#include "neardup/core/tlsh.h"

namespace neardup::cli {
namespace {

std::string HexBytes(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

// The wire bytes of a hex string (TLSH skips its "T1" version prefix).
void PutHexBytes(std::string_view hex, std::ostream& out) {
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.put(static_cast<char>(
        std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
}

nlohmann::ordered_json JsonHeader(const FingerprintCommand& cmd,
                                  const TextFingerprint& fp,
                                  uint64_t config_hash,
                                  const std::string& tokenizer) {
  return {
      {"algorithm", fp.algorithm},
      {"config_hash", FormatHex64(config_hash)},
      {"canonicalizer", fp.canonicalizer},
      {"tokenizer", tokenizer},
      {"hash", std::string(HashFamilyName(cmd.fingerprint.family))},
      {"seed", FormatHex64(cmd.fingerprint.seed)},
  };
}

// The hex form is the reference's "T1" string; raw is its 35 bytes.
void PrintTlsh(const FingerprintCommand& cmd, const TextFingerprint& fp,
               std::ostream& out) {
  const std::string hex = FormatTlsh(*fp.tlsh);
  if (cmd.format == "hex") {
    out << hex << "\n";
  } else if (cmd.format == "raw") {
    PutHexBytes(std::string_view(hex).substr(2), out);
  } else {
    const nlohmann::ordered_json json = {
        {"algorithm", fp.algorithm},
        {"config_hash", FormatHex64(fp.tlsh_config_hash)},
        {"canonicalizer", fp.canonicalizer},
        {"tlsh", hex},
    };
    out << ToJsonText(json) << "\n";
  }
}

// newsbot's hex string; raw is its bits / 8 bytes, most significant first.
void PrintNewsbot(const FingerprintCommand& cmd, const TextFingerprint& fp,
                  std::ostream& out) {
  const std::string hex = FormatNewsbot(*fp.newsbot);
  if (cmd.format == "hex") {
    out << hex << "\n";
  } else if (cmd.format == "raw") {
    PutHexBytes(hex, out);
  } else {
    const nlohmann::ordered_json json = {
        {"algorithm", fp.algorithm},
        {"config_hash", FormatHex64(fp.newsbot_config_hash)},
        {"tokens", fp.newsbot_tokens},
        {"simhash", hex},
    };
    out << ToJsonText(json) << "\n";
  }
}

// A MinHash (perceptual's included) in txtfp's wire format; json adds the
// meta.
void PrintMinHash(const FingerprintCommand& cmd, const TextFingerprint& fp,
                  std::ostream& out) {
  const MinHashSignature& sig = *fp.minhash;
  if (cmd.format == "raw") {
    out << sig.Serialize();
    return;
  }
  if (cmd.format == "hex") {
    out << HexBytes(sig.Serialize()) << "\n";
    return;
  }
  nlohmann::ordered_json json;
  if (const std::optional<PerceptualMeta>& meta = fp.perceptual) {
    json = {
        {"algorithm", fp.algorithm},
        {"config_hash", FormatHex64(fp.minhash_config_hash)},
        {"canonicalizer", fp.canonicalizer},
        {"perceptual_version", meta->perceptual_version},
        {"k", meta->k},
        {"w", meta->w},
        {"bands", meta->bands},
        {"rows", meta->rows},
        {"seed", FormatHex64(meta->seed)},
        {"tokens", meta->tokens},
        {"shingles", meta->shingles},
        {"winnowed", meta->winnowed},
    };
  } else {
    json = JsonHeader(cmd, fp, fp.minhash_config_hash, fp.minhash_tokenizer);
    json["num_perm"] = sig.num_perm();
  }
  nlohmann::ordered_json& slots = json["slots"] =
      nlohmann::ordered_json::array();
  for (uint64_t slot : sig.slots) slots.push_back(FormatHex64(slot));
  out << ToJsonText(json) << "\n";
}

// 8 bytes, least significant first, as txtfp writes it.
void PrintSimHash(const FingerprintCommand& cmd, const TextFingerprint& fp,
                  std::ostream& out) {
  const uint64_t sig = *fp.simhash;
  if (cmd.format == "raw") {
    char bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(sig >> (8 * i));
    out.write(bytes, 8);
  } else if (cmd.format == "hex") {
    out << FormatHex64(sig) << "\n";
  } else {
    nlohmann::ordered_json json =
        JsonHeader(cmd, fp, fp.simhash_config_hash, fp.simhash_tokenizer);
    json["simhash"] = FormatHex64(sig);
    out << ToJsonText(json) << "\n";
  }
}

absl::Status CheckFormat(const std::string& format) {
  if (format == "hex" || format == "raw" || format == "json") {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--output-format must be hex, raw or json (got \"", format, "\")"));
}

}  // namespace

CLI::App* AddFingerprintCommand(CLI::App* app, FingerprintCommand* cmd) {
  CLI::App* sub = app->add_subcommand(
      "fingerprint",
      "Print the MinHash, SimHash, TLSH or newsbot SimHash of a text");
  sub->add_option("file", cmd->input, "Input file, or - for standard input")
      ->capture_default_str();
  sub->add_option("--output-format", cmd->format,
                  "hex (one lowercase hex string), raw (wire bytes) or json")
      ->capture_default_str();
  AddDeprecatedOption(sub, "--format", "--output-format", &cmd->format);
  AddDeprecatedOption(sub, "--algo", "--kind", &cmd->algorithm);
  sub->add_option("--kind", cmd->algorithm,
                  absl::StrCat("minhash, simhash, tlsh, newsbot (newsbot's MD5 "
                               "SimHash) or perceptual (UCFP: rolling "
                               "shingles, winnowing, MinHash; k is --ngram, 0 "
                               "meaning ",
                               kDefaultPerceptualK, ")"))
      ->check(CLI::IsMember(
          {"minhash", "simhash", "tlsh", "newsbot", "perceptual"}))
      ->capture_default_str();
  AddKindFlags(sub, &cmd->winnow_window, &cmd->bits, &cmd->raw_bytes);
  AddContentTypeFlag(sub, &cmd->content_type);
  AddFingerprintFlags(sub, &cmd->fingerprint);
  return sub;
}

absl::Status RunFingerprint(const FingerprintCommand& cmd, std::ostream& out) {
  RETURN_IF_ERROR(CheckFormat(cmd.format));
  const std::string& algo = cmd.algorithm;
  if (algo != "minhash" && algo != "simhash" && algo != "tlsh" &&
      algo != "newsbot" && algo != "perceptual") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--kind must be minhash, simhash, tlsh, newsbot or perceptual (got \"",
        algo, "\")"));
  }
  ASSIGN_OR_RETURN(
      const StatelessOptions options,
      StatelessOptionsOfFlags(algo, cmd.fingerprint, cmd.winnow_window,
                              cmd.bits, cmd.raw_bytes));
  ASSIGN_OR_RETURN(const std::string text,
                   ReadText(cmd.input, cmd.content_type, cmd.raw_bytes));
  ASSIGN_OR_RETURN(const TextFingerprint fp,
                   FingerprintText(options, {InputName(cmd.input), text}));
  if (fp.tlsh) {
    PrintTlsh(cmd, fp, out);
  } else if (fp.newsbot) {
    PrintNewsbot(cmd, fp, out);
  } else if (fp.minhash) {
    PrintMinHash(cmd, fp, out);
  } else {
    PrintSimHash(cmd, fp, out);
  }
  return absl::OkStatus();
}

}  // namespace neardup::cli
