#include "neardup/core/newsbot_simhash.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/hash.h"
#include "neardup/core/internal/md5.h"

namespace neardup {
namespace {

bool IsTokenByte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9');
}

char Lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

absl::Status CheckNewsbotBits(int bits) {
  for (const int width : kNewsbotBitWidths) {
    if (bits == width) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "newsbot SimHash bits must be 16, 32, 64 or 128, got ", bits));
}

std::vector<std::string> NewsbotTokenize(std::string_view text) {
  std::vector<std::string> tokens;
  std::string current;
  auto end_token = [&] {
    if (current.empty()) return;
    tokens.push_back(std::move(current));
    current.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (IsTokenByte(c)) {
      current.push_back(Lower(c));
      continue;
    }
    // newsbot lowercases with Python's str.lower() before matching
    // [a-z0-9]+: two non-ASCII letters lower to ASCII ones. U+0130 (I with
    // dot above) becomes "i" and a combining dot, which ends the token;
    // U+212A (Kelvin sign) becomes "k".
    const std::string_view rest = text.substr(i);
    if (rest.starts_with("\xC4\xB0")) {
      current.push_back('i');
      end_token();
      i += 1;
      continue;
    }
    if (rest.starts_with("\xE2\x84\xAA")) {
      current.push_back('k');
      i += 2;
      continue;
    }
    end_token();
  }
  end_token();
  return tokens;
}

absl::StatusOr<NewsbotFingerprint> NewsbotSimHash(std::string_view text,
                                                  int bits) {
  RETURN_IF_ERROR(CheckNewsbotBits(bits));
  // Each occurrence votes; a token's votes are counted once, so repeated
  // words cost one MD5.
  absl::flat_hash_map<std::string, int64_t> occurrences;
  for (std::string& token : NewsbotTokenize(text)) {
    ++occurrences[std::move(token)];
  }
  int64_t votes[128] = {};
  for (const auto& [token, count] : occurrences) {
    const std::array<uint8_t, 16> digest = internal::Md5(token);
    // Big-endian: the digest's last byte holds bits 0..7.
    for (int i = 0; i < bits; ++i) {
      const bool set = (digest[15 - i / 8] >> (i % 8)) & 1;
      votes[i] += set ? count : -count;
    }
  }
  NewsbotFingerprint fingerprint;
  fingerprint.bits = bits;
  for (int i = 0; i < bits; ++i) {
    if (votes[i] <= 0) continue;  // a tie gives 0
    if (i < 64) {
      fingerprint.low |= uint64_t{1} << i;
    } else {
      fingerprint.high |= uint64_t{1} << (i - 64);
    }
  }
  return fingerprint;
}

std::string FormatNewsbot(const NewsbotFingerprint& fingerprint) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(fingerprint.bits / 4, '0');
  for (int digit = 0; digit < fingerprint.bits / 4; ++digit) {
    const int bit = 4 * digit;  // of the least significant digit's bits
    const uint64_t word = bit < 64 ? fingerprint.low : fingerprint.high;
    out[out.size() - 1 - digit] = kHex[(word >> (bit % 64)) & 15];
  }
  return out;
}

absl::StatusOr<NewsbotFingerprint> ParseNewsbot(std::string_view hex) {
  const int bits = static_cast<int>(hex.size()) * 4;
  if (!CheckNewsbotBits(bits).ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a newsbot SimHash is 4, 8, 16 or 32 hex digits, got ", hex.size()));
  }
  NewsbotFingerprint fingerprint;
  fingerprint.bits = bits;
  for (size_t i = 0; i < hex.size(); ++i) {
    const int value = HexValue(hex[i]);
    if (value < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid hex digit '", AbslView(hex.substr(i, 1)),
                       "' in newsbot SimHash \"", AbslView(hex), "\""));
    }
    const int bit = 4 * static_cast<int>(hex.size() - 1 - i);
    uint64_t& word = bit < 64 ? fingerprint.low : fingerprint.high;
    word |= static_cast<uint64_t>(value) << (bit % 64);
  }
  return fingerprint;
}

absl::StatusOr<int> NewsbotHamming(const NewsbotFingerprint& a,
                                   const NewsbotFingerprint& b) {
  if (a.bits != b.bits) {
    return absl::InvalidArgumentError(absl::StrCat("cannot compare a ", a.bits,
                                                   "-bit and a ", b.bits,
                                                   "-bit newsbot SimHash"));
  }
  return __builtin_popcountll(a.low ^ b.low) +
         __builtin_popcountll(a.high ^ b.high);
}

absl::StatusOr<int> NewsbotHamming(std::string_view hex_a,
                                   std::string_view hex_b) {
  // As newsbot: each string is an integer; widths need not match.
  uint64_t words[2][2] = {};
  const std::string_view hexes[2] = {hex_a, hex_b};
  for (int k = 0; k < 2; ++k) {
    const std::string_view hex = hexes[k];
    if (hex.empty() || hex.size() > 32) {
      return absl::InvalidArgumentError(absl::StrCat(
          "a newsbot SimHash is 1 to 32 hex digits, got ", hex.size()));
    }
    for (size_t i = 0; i < hex.size(); ++i) {
      const int value = HexValue(hex[i]);
      if (value < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("invalid hex digit '", AbslView(hex.substr(i, 1)),
                         "' in newsbot SimHash \"", AbslView(hex), "\""));
      }
      const int bit = 4 * static_cast<int>(hex.size() - 1 - i);
      words[k][bit / 64] |= static_cast<uint64_t>(value) << (bit % 64);
    }
  }
  return __builtin_popcountll(words[0][0] ^ words[1][0]) +
         __builtin_popcountll(words[0][1] ^ words[1][1]);
}

std::string NewsbotAlgorithm(int bits) {
  return absl::StrCat("simhash-newsbot-b", bits);
}

uint64_t NewsbotConfigHash(int bits) {
  // ConfigHash's layout, with MD5 (which it has no name for) as the family.
  return Xxh3Hash64(absl::StrCat("newsbot-ascii-lower|newsbot-alnum|",
                                 NewsbotAlgorithm(bits),
                                 "|md5|0000000000000000"));
}

}  // namespace neardup
