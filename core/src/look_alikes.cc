#include "neardup/core/internal/look_alikes.h"

#include <unicode/uchar.h>
#include <unicode/uscript.h>

#include <bitset>
#include <string>

#include "neardup/core/internal/confusables.h"
#include "neardup/core/internal/utf8.h"

namespace neardup::internal {

namespace {

bool IsAsciiLetter(char32_t cp) {
  return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
}

bool IsMark(char32_t cp) {
  return cp >= 0x80 && (U_GET_GC_MASK(cp) & U_GC_M_MASK) != 0;
}

bool IsWordCodePoint(char32_t cp) {
  if (cp < 0x80) return IsAsciiLetter(cp);
  return u_isalpha(cp) || IsMark(cp);
}

bool ScriptIsLatin(char32_t cp) {
  UErrorCode err = U_ZERO_ERROR;
  return uscript_getScript(static_cast<UChar32>(cp), &err) == USCRIPT_LATIN &&
         U_SUCCESS(err);
}

// Latin script in the BMP, read out of ICU once: Cyrillic or Greek text
// asks for every letter.
bool IsLatin(char32_t cp) {
  static const std::bitset<0x10000>* const bmp = [] {
    auto* bits = new std::bitset<0x10000>();
    for (char32_t c = 0; c < 0x10000; ++c) bits->set(c, ScriptIsLatin(c));
    return bits;
  }();
  return cp < 0x10000 ? bmp->test(cp) : ScriptIsLatin(cp);
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

Word ScanWord(const ConfusableSkeleton& skeleton, std::string_view text,
              size_t begin) {
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
    if (!IsWordCodePoint(cp)) break;
    i += n;
    if (IsMark(cp)) continue;
    letters = true;
    if (skeleton.LatinLetterOf(cp) != 0) {
      word.has_look_alike = true;
    } else if (IsLatin(cp)) {
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
    if (IsWordCodePoint(cp)) return i;
    i += n;
  }
  return i;
}

// Whether `text` holds a Latin look-alike at all: text without one (ASCII
// around accented letters, CJK, most scripts) is done after this scan.
bool HasLookAlike(const ConfusableSkeleton& skeleton, std::string_view text) {
  for (size_t i = FirstNonAscii(text); i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      i += FirstNonAscii(text.substr(i));
      continue;
    }
    char32_t cp = 0;
    i += DecodeUtf8Lenient(text, i, &cp);
    if (skeleton.LatinLetterOf(cp) != 0) return true;
  }
  return false;
}

}  // namespace

void ForEachLatinizedWord(
    std::string_view text,
    absl::FunctionRef<void(size_t begin, size_t end)> latinize) {
  const ConfusableSkeleton& skeleton = ConfusableSkeleton::Get();
  if (!HasLookAlike(skeleton, text)) return;
  // Words are streamed: a run of look-alike words is remembered by its
  // bytes and walked again once the word after it decides.
  constexpr size_t kNone = static_cast<size_t>(-1);
  size_t run_begin = kNone, run_end = 0;
  bool latin_before_run = false;
  Word::Kind previous = Word::kOther;
  auto emit_run = [&] {
    for (size_t i = run_begin; i < run_end;) {
      const Word word = ScanWord(skeleton, text, i);
      latinize(word.begin, word.end);
      i = NextWord(text, word.end);
    }
  };
  for (size_t i = NextWord(text, 0); i < text.size();) {
    const Word word = ScanWord(skeleton, text, i);
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
  const ConfusableSkeleton& skeleton = ConfusableSkeleton::Get();
  for (size_t i = 0; i < word.size();) {
    char32_t cp = 0;
    const int n = DecodeUtf8Lenient(word, i, &cp);
    const char letter = skeleton.LatinLetterOf(cp);
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
