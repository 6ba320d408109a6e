#ifndef NEARDUP_CORE_INTERNAL_CONFUSABLES_H_
#define NEARDUP_CORE_INTERNAL_CONFUSABLES_H_

// The UTS #39 confusable skeleton without a round trip through ICU per text:
// skeleton(s) = NFD(map(NFD(s))), where map replaces each code point by its
// prototype. The map is read out of ICU's own data once per process (the
// skeleton ICU gives each assigned code point on its own), so the result is
// ICU's byte for byte; tests check that on every assigned code point.

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace neardup::internal {

class ConfusableSkeleton {
 public:
  // Built on first use (about 0.1 s), then shared; thread-safe.
  static const ConfusableSkeleton& Get();

  // Appends the skeleton of valid UTF-8 `text` to *out.
  absl::Status Append(std::string_view text, std::string* out) const;

  // Prototype of one code point (its NFD'd skeleton), or empty when the
  // code point maps to itself. For tests.
  std::string_view PrototypeOf(char32_t cp) const;

  // The ASCII letter that is the whole prototype of `cp`, a letter not of
  // the Latin script (Greek Β -> 'B', Cyrillic І -> 'l', Greek ͺ -> 'i',
  // mathematical 𝚩 -> 'B'), or 0.
  char LatinLetterOf(char32_t cp) const;

 private:
  ConfusableSkeleton();
  struct Tables;
  const Tables* tables_;
};

// Appends valid UTF-8 `text` with Latin small capitals (U+1D00 block and
// ʙ ɢ ʜ ɪ ʟ ɴ ʀ ʏ ꜰ ꜱ) and kra (ĸ) replaced by lowercase ASCII letters.
void AppendFoldedSmallCapitals(std::string_view text, std::string* out);

}  // namespace neardup::internal

#endif  // NEARDUP_CORE_INTERNAL_CONFUSABLES_H_
