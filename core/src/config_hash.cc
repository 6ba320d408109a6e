#include "neardup/core/config_hash.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "neardup/base/absl_compat.h"

namespace neardup {

uint64_t ConfigHash(std::string_view canonicalizer_config,
                    std::string_view tokenizer_name, std::string_view algorithm,
                    HashFamily family, uint64_t seed) {
  const std::string key =
      absl::StrCat(AbslView(canonicalizer_config), "|",
                   AbslView(tokenizer_name), "|", AbslView(algorithm), "|",
                   AbslView(HashFamilyName(family)), "|", FormatHex64(seed));
  return Xxh3Hash64(key);
}

std::string FormatHex64(uint64_t value) {
  return absl::StrFormat("%016x", value);
}

absl::StatusOr<uint64_t> ParseHex64(std::string_view text) {
  std::string_view digits = text;
  if ((digits.size() >= 2 && digits[0] == '0' &&
       (digits[1] == 'x' || digits[1] == 'X')))
    digits.remove_prefix(2);
  if (digits.empty() || digits.size() > 16) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", AbslView(text), "\" is not a 64-bit hex number"));
  }
  uint64_t v = 0;
  for (char c : digits) {
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else {
      return absl::InvalidArgumentError(
          absl::StrCat("\"", AbslView(text), "\" is not a 64-bit hex number"));
    }
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  return v;
}

}  // namespace neardup
