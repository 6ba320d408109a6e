#include "neardup/core/internal/look_alikes.h"

#include <unicode/uchar.h>
#include <unicode/uscript.h>

#include <cstdint>
#include <string>

#include "neardup/core/internal/confusables.h"
#include "neardup/core/internal/utf8.h"

namespace neardup::internal {

namespace {

bool IsAsciiLetter(char32_t cp) {
  return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
}

// What the scan asks of a code point, read out of ICU and the confusables
// table once for the BMP (128 KiB): Greek or Cyrillic text asks for every
// letter, and ICU's property lookups cost several times a table read.
struct CodePointInfo {
  enum Bits : uint8_t { kWord = 1, kMark = 2, kLatin = 4 };
  uint8_t bits = 0;
  char latin_letter = 0;  // ConfusableSkeleton::LatinLetterOf
};

CodePointInfo ComputeInfo(const ConfusableSkeleton& skeleton, char32_t cp) {
  CodePointInfo info;
  if (cp < 0x80) {
    if (IsAsciiLetter(cp))
      info.bits = CodePointInfo::kWord | CodePointInfo::kLatin;
    return info;
  }
  const bool mark = (U_GET_GC_MASK(cp) & U_GC_M_MASK) != 0;
  if (mark) info.bits |= CodePointInfo::kMark | CodePointInfo::kWord;
  if (u_isalpha(cp)) info.bits |= CodePointInfo::kWord;
  UErrorCode err = U_ZERO_ERROR;
  if (uscript_getScript(static_cast<UChar32>(cp), &err) == USCRIPT_LATIN &&
      U_SUCCESS(err)) {
    info.bits |= CodePointInfo::kLatin;
  }
  info.latin_letter = skeleton.LatinLetterOf(cp);
  return info;
}

struct Tables {
  CodePointInfo bmp[0x10000];
  // Bytes that may start a Latin letter's UTF-8: ASCII letters, the lead
  // bytes of BMP Latin letters, and every 4-byte lead. Continuation bytes
  // never: a text without these holds no Latin letter.
  bool may_start_latin[256] = {};
};

const Tables& GetTables() {
  static const Tables* const tables = [] {
    const ConfusableSkeleton& skeleton = ConfusableSkeleton::Get();
    auto* t = new Tables;
    for (char32_t c = 0; c < 0x10000; ++c) {
      t->bmp[c] = ComputeInfo(skeleton, c);
      if (!(t->bmp[c].bits & CodePointInfo::kLatin)) continue;
      const unsigned lead = c < 0x80    ? c
                            : c < 0x800 ? 0xC0 | (c >> 6)
                                        : 0xE0 | (c >> 12);
      t->may_start_latin[lead] = true;
    }
    for (unsigned lead = 0xF0; lead <= 0xF4; ++lead) {
      t->may_start_latin[lead] = true;
    }
    return t;
  }();
  return *tables;
}

CodePointInfo InfoOf(char32_t cp) {
  return cp < 0x10000 ? GetTables().bmp[cp]
                      : ComputeInfo(ConfusableSkeleton::Get(), cp);
}

struct Word {
  enum Kind {
    kLatin,       // holds a Latin letter
    kLookAlikes,  // every letter looks like a Latin one: ΤΗΕ, ОϜ
    kOther,       // some letter looks like no Latin one: λόγος, мир
  };
  size_t begin = 0, end = 0;
  Kind kind = kOther;
  bool has_look_alike = false;
};

Word ScanWord(std::string_view text, size_t begin) {
  Word word{.begin = begin};
  bool latin = false, other = false, letters = false;
  size_t i = begin;
  while (i < text.size()) {
    if (IsAsciiLetter(static_cast<unsigned char>(text[i]))) {
      latin = letters = true;
      ++i;
      continue;
    }
    char32_t cp = 0;
    const int n = DecodeUtf8Lenient(text, i, &cp);
    const CodePointInfo info = InfoOf(cp);
    if (!(info.bits & CodePointInfo::kWord)) break;
    i += n;
    if (info.bits & CodePointInfo::kMark) continue;
    letters = true;
    if (info.latin_letter != 0) {
      word.has_look_alike = true;
    } else if (info.bits & CodePointInfo::kLatin) {
      latin = true;
    } else {
      other = true;
    }
  }
  word.end = i;
  word.kind = latin               ? Word::kLatin
              : other || !letters ? Word::kOther
                                  : Word::kLookAlikes;
  return word;
}

// The offset of the next word at or after `i`, or text.size().
size_t NextWord(std::string_view text, size_t i) {
  while (i < text.size()) {
    char32_t cp = 0;
    const int n = DecodeUtf8Lenient(text, i, &cp);
    if (InfoOf(cp).bits & CodePointInfo::kWord) return i;
    i += n;
  }
  return i;
}

// Whether `text` holds both a Latin letter and a Latin look-alike: only then
// can a word be Latinized. Most text is done after this scan: ASCII around
// accented letters, CJK, and Greek or Cyrillic text without Latin words.
bool MayLatinize(std::string_view text) {
  // Greek or Cyrillic text without Latin words ends here, in a byte scan,
  // unless it has punctuation whose lead byte Latin letters share (NBSP,
  // «», dashes: 0xC2, 0xE2).
  const bool* may_start_latin = GetTables().may_start_latin;
  bool any = false;
  for (const char c : text) {
    if (may_start_latin[static_cast<uint8_t>(c)]) {
      any = true;
      break;
    }
  }
  if (!any) return false;
  bool latin = false, look_alike = false;
  for (size_t i = 0; i < text.size() && !(latin && look_alike);) {
    const unsigned char b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      if (latin) {
        i += FirstNonAscii(text.substr(i));
      } else {
        latin = IsAsciiLetter(b);
        ++i;
      }
      continue;
    }
    char32_t cp = 0;
    i += DecodeUtf8Lenient(text, i, &cp);
    const CodePointInfo info = InfoOf(cp);
    look_alike = look_alike || info.latin_letter != 0;
    latin = latin || (info.bits & CodePointInfo::kLatin);
  }
  return latin && look_alike;
}

}  // namespace

void ForEachLatinizedWord(
    std::string_view text,
    absl::FunctionRef<void(size_t begin, size_t end)> latinize) {
  if (!MayLatinize(text)) return;
  // Words are streamed: a run of look-alike words is remembered by its
  // bytes and walked again once the word after it decides.
  constexpr size_t kNone = static_cast<size_t>(-1);
  size_t run_begin = kNone, run_end = 0;
  bool latin_before_run = false;
  Word::Kind previous = Word::kOther;
  auto emit_run = [&] {
    for (size_t i = run_begin; i < run_end;) {
      const Word word = ScanWord(text, i);
      latinize(word.begin, word.end);
      i = NextWord(text, word.end);
    }
  };
  for (size_t i = NextWord(text, 0); i < text.size();) {
    const Word word = ScanWord(text, i);
    if (word.kind == Word::kLookAlikes) {
      if (run_begin == kNone) {
        run_begin = word.begin;
        latin_before_run = previous == Word::kLatin;
      }
      run_end = word.end;
    } else {
      if (run_begin != kNone) {
        if (latin_before_run || word.kind == Word::kLatin) emit_run();
        run_begin = kNone;
      }
      if (word.kind == Word::kLatin && word.has_look_alike) {
        latinize(word.begin, word.end);
      }
    }
    previous = word.kind;
    i = NextWord(text, word.end);
  }
  if (run_begin != kNone && latin_before_run) emit_run();
}

void AppendLatinized(std::string_view word, std::string* out) {
  for (size_t i = 0; i < word.size();) {
    char32_t cp = 0;
    const int n = DecodeUtf8Lenient(word, i, &cp);
    const char letter = InfoOf(cp).latin_letter;
    if (letter != 0) {
      out->push_back(letter);
    } else {
      out->append(word.data() + i, n);
    }
    i += n;
  }
}

bool AppendLatinizedMixedWords(std::string_view text, std::string* out) {
  bool changed = false;
  size_t copied = 0;  // text before this offset is in *out
  ForEachLatinizedWord(text, [&](size_t begin, size_t end) {
    if (!changed) out->reserve(out->size() + text.size());
    changed = true;
    out->append(text.data() + copied, begin - copied);
    AppendLatinized(text.substr(begin, end - begin), out);
    copied = end;
  });
  if (changed) out->append(text.data() + copied, text.size() - copied);
  return changed;
}

void FoldIToL(std::string* text) {
  // A select, not std::replace's conditional store: this loop vectorizes.
  char* p = text->data();
  const size_t n = text->size();
  for (size_t i = 0; i < n; ++i) {
    const char c = p[i];
    p[i] = c == 'i' ? 'l' : c;
  }
}

}  // namespace neardup::internal
