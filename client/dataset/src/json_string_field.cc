#include "neardup/dataset/json_string_field.h"

#include <simdjson.h>

#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/json.h"

namespace neardup::dataset {

absl::StatusOr<std::string> ReplaceJsonStringField(std::string_view record,
                                                   std::string_view field,
                                                   std::string_view new_value) {
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  const simdjson::padded_string_view input(
      record.data(), record.size(), record.size() + simdjson::SIMDJSON_PADDING);
  if (parser.iterate(input).get(doc)) {
    return absl::InvalidArgumentError("malformed JSON");
  }
  simdjson::ondemand::value value;
  std::string_view token;
  if (!doc.find_field_unordered(field).get(value)) {
    token = value.raw_json_token();
  }
  if (token.empty() || token[0] != '"') {
    return absl::InvalidArgumentError(
        absl::StrCat("no string field \"", AbslView(field), "\""));
  }
  // The token runs to the next token; the string ends at its closing quote.
  size_t end = 1;
  while (end < token.size() && token[end] != '"') {
    end += token[end] == '\\' ? 2 : 1;
  }
  const size_t begin = static_cast<size_t>(token.data() - record.data());
  std::string out(record.substr(0, begin));
  out += ToJsonText(nlohmann::json(std::string(new_value)));
  out.append(record.substr(begin + end + 1));
  return out;
}

}  // namespace neardup::dataset
