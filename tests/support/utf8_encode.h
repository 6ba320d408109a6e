#ifndef NEARDUP_TESTS_SUPPORT_UTF8_ENCODE_H_
#define NEARDUP_TESTS_SUPPORT_UTF8_ENCODE_H_

// Encodes one code point as UTF-8, for building test inputs.

#include <string>

namespace neardup::testing {

inline std::string Utf8(char32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | (cp >> 18));
    s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

}  // namespace neardup::testing

#endif  // NEARDUP_TESTS_SUPPORT_UTF8_ENCODE_H_
