#ifndef NEARDUP_BASE_JSON_WRITER_H_
#define NEARDUP_BASE_JSON_WRITER_H_

#include <string>
#include <string_view>

namespace neardup::cli {

// Appends `s` as a JSON string literal (quotes included). Invalid UTF-8 is
// not expected here: callers pass validated text.
void AppendJsonString(std::string_view s, std::string* out);
std::string JsonString(std::string_view s);

}  // namespace neardup::cli

#endif  // NEARDUP_BASE_JSON_WRITER_H_
