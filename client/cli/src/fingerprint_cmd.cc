#include "absl/strings/str_cat.h"
#include "input.h"
#include "neardup/base/json.h"
#include "neardup/base/status_macros.h"
#include "neardup/cli/commands.h"
#include "neardup/core/config_hash.h"

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

absl::Status CheckFormat(const std::string& format) {
  if (format == "hex" || format == "raw" || format == "json") {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--format must be hex, raw or json (got \"", format, "\")"));
}

}  // namespace

CLI::App* AddFingerprintCommand(CLI::App* app, FingerprintCommand* cmd) {
  CLI::App* sub = app->add_subcommand(
      "fingerprint", "Print the MinHash or SimHash signature of a text");
  sub->add_option("file", cmd->input, "Input file, or - for standard input")
      ->capture_default_str();
  sub->add_option("--format", cmd->format,
                  "hex (one lowercase hex string), raw (wire bytes) or json")
      ->capture_default_str();
  sub->add_option("--algo", cmd->algorithm, "minhash or simhash")
      ->check(CLI::IsMember({"minhash", "simhash"}))
      ->capture_default_str();
  AddFingerprintFlags(sub, &cmd->fingerprint);
  return sub;
}

absl::Status RunFingerprint(const FingerprintCommand& cmd, std::ostream& out) {
  RETURN_IF_ERROR(CheckFormat(cmd.format));
  const std::string& algo = cmd.algorithm;
  if (algo != "minhash" && algo != "simhash") {
    return absl::InvalidArgumentError(
        absl::StrCat("--algo must be minhash or simhash (got \"", algo, "\")"));
  }
  if (algo == "minhash") {
    ASSIGN_OR_RETURN(MinHashConfig config, MinHashConfigOf(cmd.fingerprint));
    ASSIGN_OR_RETURN(MinHasher hasher, MinHasher::Create(config));
    ASSIGN_OR_RETURN(std::string text, ReadInput(cmd.input));
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
  ASSIGN_OR_RETURN(std::string text, ReadInput(cmd.input));
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
