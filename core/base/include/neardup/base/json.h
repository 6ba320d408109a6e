#ifndef NEARDUP_BASE_JSON_H_
#define NEARDUP_BASE_JSON_H_

// JSON output goes through nlohmann::json (Debian nlohmann-json3-dev);
// simdjson stays for parsing. These helpers make the output never throw
// and keep report numbers short.

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

namespace neardup {

// Compact JSON text. Invalid UTF-8 becomes U+FFFD instead of an exception
// (nlohmann's default), so a report never fails on odd input bytes.
// Output uses nlohmann::ordered_json: keys stay in the order written.
template <typename Json>
std::string ToJsonText(const Json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// `value` rounded to `decimals` places, for ratios and rates in reports.
inline double Rounded(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

}  // namespace neardup

#endif  // NEARDUP_BASE_JSON_H_
