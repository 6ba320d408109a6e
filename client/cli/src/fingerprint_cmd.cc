#include "absl/strings/str_cat.h"
#include "input.h"
#include "neardup/base/json.h"
#include "neardup/base/status_macros.h"
#include "neardup/cli/commands.h"
#include "neardup/core/config_hash.h"
#include "neardup/core/fingerprint_settings.h"
#include "neardup/core/newsbot_simhash.h"
#include "neardup/core/perceptual.h"
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

template <typename Hasher>
nlohmann::ordered_json JsonHeader(const Hasher& h) {
  return {
      {"algorithm", h.algorithm()},
      {"config_hash", FormatHex64(h.config_hash())},
      {"canonicalizer", h.canonicalizer().ConfigString()},
      {"tokenizer", h.tokenizer().Name()},
      {"hash", std::string(HashFamilyName(h.config().family))},
      {"seed", FormatHex64(h.config().seed)},
  };
}

// The hex form is the reference's "T1" string; raw is its 35 bytes.
absl::Status PrintTlsh(const FingerprintCommand& cmd, std::ostream& out) {
  ASSIGN_OR_RETURN(const std::string bytes,
                   ReadText(cmd.input, cmd.content_type, cmd.raw_bytes));
  ASSIGN_OR_RETURN(const TlshFingerprinter fp,
                   TlshFingerprinter::Create(cmd.fingerprint.canonicalizer));
  const absl::StatusOr<TlshDigest> digest =
      cmd.raw_bytes ? TlshOfBytes(bytes) : fp.Fingerprint(bytes);
  if (!digest.ok()) return InFile(cmd.input, digest.status());
  const std::string hex = FormatTlsh(*digest);
  if (cmd.format == "hex") {
    out << hex << "\n";
  } else if (cmd.format == "raw") {
    for (size_t i = 2; i + 1 < hex.size(); i += 2) {
      out.put(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    }
  } else {
    const nlohmann::ordered_json json = {
        {"algorithm", std::string(TlshFingerprinter::Algorithm())},
        {"config_hash",
         FormatHex64(cmd.raw_bytes ? TlshFingerprinter::RawConfigHash()
                                   : fp.config_hash())},
        {"canonicalizer", cmd.raw_bytes ? std::string("raw")
                                        : fp.canonicalizer().ConfigString()},
        {"tlsh", hex},
    };
    out << ToJsonText(json) << "\n";
  }
  return absl::OkStatus();
}

// newsbot's hex string; raw is its bits / 8 bytes, most significant first.
absl::Status PrintNewsbot(const FingerprintCommand& cmd, std::ostream& out) {
  ASSIGN_OR_RETURN(const std::string text,
                   ReadText(cmd.input, cmd.content_type));
  ASSIGN_OR_RETURN(const NewsbotFingerprint fingerprint,
                   NewsbotSimHash(text, cmd.bits));
  const std::string hex = FormatNewsbot(fingerprint);
  if (cmd.format == "hex") {
    out << hex << "\n";
  } else if (cmd.format == "raw") {
    for (size_t i = 0; i + 1 < hex.size(); i += 2) {
      out.put(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    }
  } else {
    const nlohmann::ordered_json json = {
        {"algorithm", NewsbotAlgorithm(cmd.bits)},
        {"config_hash", FormatHex64(NewsbotConfigHash(cmd.bits))},
        {"tokens", NewsbotTokenize(text).size()},
        {"simhash", hex},
    };
    out << ToJsonText(json) << "\n";
  }
  return absl::OkStatus();
}

// The MinHash part (what is stored and indexed) in txtfp's wire format;
// json adds the meta.
absl::Status PrintPerceptual(const FingerprintCommand& cmd, std::ostream& out) {
  ASSIGN_OR_RETURN(const std::string text,
                   ReadText(cmd.input, cmd.content_type));
  ASSIGN_OR_RETURN(const PerceptualHasher hasher,
                   PerceptualHasher::Create(
                       PerceptualConfigOf(cmd.fingerprint, cmd.winnow_window),
                       cmd.fingerprint.canonicalizer));
  absl::StatusOr<PerceptualFingerprint> fp = hasher.Fingerprint(text);
  if (!fp.ok()) return InFile(cmd.input, fp.status());
  if (cmd.format == "raw") {
    out << fp->minhash.Serialize();
  } else if (cmd.format == "hex") {
    out << HexBytes(fp->minhash.Serialize()) << "\n";
  } else {
    const PerceptualMeta& meta = fp->meta;
    nlohmann::ordered_json json = {
        {"algorithm", hasher.algorithm()},
        {"config_hash", FormatHex64(hasher.config_hash())},
        {"canonicalizer", hasher.canonicalizer().ConfigString()},
        {"perceptual_version", meta.perceptual_version},
        {"k", meta.k},
        {"w", meta.w},
        {"bands", meta.bands},
        {"rows", meta.rows},
        {"seed", FormatHex64(meta.seed)},
        {"tokens", meta.tokens},
        {"shingles", meta.shingles},
        {"winnowed", meta.winnowed},
    };
    nlohmann::ordered_json& slots = json["slots"] =
        nlohmann::ordered_json::array();
    for (uint64_t slot : fp->minhash.slots) slots.push_back(FormatHex64(slot));
    out << ToJsonText(json) << "\n";
  }
  return absl::OkStatus();
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
                  "minhash, simhash, tlsh, newsbot (newsbot's MD5 SimHash) "
                  "or perceptual (UCFP: rolling shingles, winnowing, "
                  "MinHash; k is --ngram, 0 meaning 9)")
      ->check(CLI::IsMember(
          {"minhash", "simhash", "tlsh", "newsbot", "perceptual"}))
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
  if (cmd.raw_bytes && algo != "tlsh") {
    return absl::InvalidArgumentError(
        "--raw applies to --kind tlsh only: MinHash and SimHash hash "
        "canonical tokens");
  }
  if (cmd.bits != 64 && algo != "newsbot") {
    return absl::InvalidArgumentError("--bits applies to --kind newsbot only");
  }
  if (cmd.winnow_window != 4 && algo != "perceptual") {
    return absl::InvalidArgumentError(
        "--winnow-window applies to --kind perceptual only");
  }
  if (algo == "tlsh") return PrintTlsh(cmd, out);
  if (algo == "newsbot") return PrintNewsbot(cmd, out);
  if (algo == "perceptual") return PrintPerceptual(cmd, out);
  if (algo == "minhash") {
    ASSIGN_OR_RETURN(MinHashConfig config, MinHashConfigOf(cmd.fingerprint));
    ASSIGN_OR_RETURN(MinHasher hasher, MinHasher::Create(config));
    ASSIGN_OR_RETURN(std::string text, ReadText(cmd.input, cmd.content_type));
    absl::StatusOr<MinHashSignature> fingerprinted = hasher.Fingerprint(text);
    if (!fingerprinted.ok()) return InFile(cmd.input, fingerprinted.status());
    const MinHashSignature& sig = *fingerprinted;
    if (cmd.format == "raw") {
      out << sig.Serialize();
    } else if (cmd.format == "hex") {
      out << HexBytes(sig.Serialize()) << "\n";
    } else {
      nlohmann::ordered_json json = JsonHeader(hasher);
      json["num_perm"] = sig.num_perm();
      nlohmann::ordered_json& slots = json["slots"] =
          nlohmann::ordered_json::array();
      for (uint64_t slot : sig.slots) slots.push_back(FormatHex64(slot));
      out << ToJsonText(json) << "\n";
    }
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(SimHashConfig config, SimHashConfigOf(cmd.fingerprint));
  ASSIGN_OR_RETURN(SimHasher hasher, SimHasher::Create(config));
  ASSIGN_OR_RETURN(std::string text, ReadText(cmd.input, cmd.content_type));
  absl::StatusOr<uint64_t> fingerprinted = hasher.Fingerprint(text);
  if (!fingerprinted.ok()) return InFile(cmd.input, fingerprinted.status());
  const uint64_t sig = *fingerprinted;
  if (cmd.format == "raw") {
    char bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(sig >> (8 * i));
    out.write(bytes, 8);
  } else if (cmd.format == "hex") {
    out << FormatHex64(sig) << "\n";
  } else {
    nlohmann::ordered_json json = JsonHeader(hasher);
    json["simhash"] = FormatHex64(sig);
    out << ToJsonText(json) << "\n";
  }
  return absl::OkStatus();
}

}  // namespace neardup::cli
