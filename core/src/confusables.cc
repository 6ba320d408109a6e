#include "neardup/core/internal/confusables.h"

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/uspoof.h>
#include <unicode/utf16.h>

#include <array>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "neardup/base/scratch.h"
#include "neardup/core/internal/utf8.h"

namespace neardup::internal {

struct ConfusableSkeleton::Tables {
  // ASCII: the prototype of each byte ("m" -> "rn", "0" -> "O", "1" -> "l").
  std::array<std::string, 128> ascii;
  // Indexed by any byte: false from 0x80 on, so one lookup ends a run.
  std::array<bool, 256> ascii_identity{};
  std::array<bool, 128> ascii_prototype_is_ascii{};
  // Every other code point whose skeleton is not itself.
  absl::flat_hash_map<char32_t, std::string> other;
  // Letters of other scripts whose prototype is one ASCII letter (Greek Β
  // -> 'B', Cyrillic Ӏ -> 'l'); see LatinLetterOf.
  absl::flat_hash_map<char32_t, char> latin_look_alikes;
  const icu::Normalizer2* nfd = nullptr;
};

namespace {

void AppendUtf8(char32_t cp, std::string* out) {
  char buf[4];
  int n = 0;
  if (cp < 0x80) {
    buf[n++] = static_cast<char>(cp);
  } else if (cp < 0x800) {
    buf[n++] = static_cast<char>(0xC0 | (cp >> 6));
    buf[n++] = static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    buf[n++] = static_cast<char>(0xE0 | (cp >> 12));
    buf[n++] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    buf[n++] = static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    buf[n++] = static_cast<char>(0xF0 | (cp >> 18));
    buf[n++] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    buf[n++] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    buf[n++] = static_cast<char>(0x80 | (cp & 0x3F));
  }
  out->append(buf, n);
}

bool Skippable(char32_t cp) {
  const int8_t type = u_charType(cp);
  return type == U_UNASSIGNED || type == U_SURROGATE ||
         type == U_PRIVATE_USE_CHAR;
}

bool IsAsciiLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Not Latin, and not a mark (Inherited). Common letters count: NFKC turns
// mathematical Greek 𝚩 into Greek Β before case folding could reach it.
bool IsOtherScript(char32_t cp) {
  UErrorCode err = U_ZERO_ERROR;
  const UScriptCode script = uscript_getScript(static_cast<UChar32>(cp), &err);
  return U_SUCCESS(err) && script != USCRIPT_LATIN &&
         script != USCRIPT_INHERITED;
}

}  // namespace

ConfusableSkeleton::ConfusableSkeleton() {
  auto tables = std::make_unique<Tables>();
  UErrorCode err = U_ZERO_ERROR;
  tables->nfd = icu::Normalizer2::getNFDInstance(err);
  USpoofChecker* spoof = uspoof_open(&err);
  // ICU's data is part of the library: failing here means a broken install.
  if (U_FAILURE(err) || spoof == nullptr) std::abort();
  std::string utf8, skeleton;
  for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0x80 && Skippable(cp)) continue;
    utf8.clear();
    AppendUtf8(cp, &utf8);
    skeleton.resize(32);
    err = U_ZERO_ERROR;
    int32_t n = uspoof_getSkeletonUTF8(
        spoof, 0, utf8.data(), static_cast<int32_t>(utf8.size()),
        skeleton.data(), static_cast<int32_t>(skeleton.size()), &err);
    if (err == U_BUFFER_OVERFLOW_ERROR) {
      skeleton.resize(n);
      err = U_ZERO_ERROR;
      n = uspoof_getSkeletonUTF8(spoof, 0, utf8.data(),
                                 static_cast<int32_t>(utf8.size()),
                                 skeleton.data(), n, &err);
    }
    if (U_FAILURE(err) && err != U_STRING_NOT_TERMINATED_WARNING) continue;
    skeleton.resize(n);
    if (cp < 0x80) {
      tables->ascii[cp] = skeleton;
      tables->ascii_identity[cp] = skeleton == utf8;
      tables->ascii_prototype_is_ascii[cp] = IsAscii(skeleton);
    } else if (skeleton != utf8) {
      if (skeleton.size() == 1 && IsAsciiLetter(skeleton[0]) && u_isalpha(cp) &&
          IsOtherScript(cp)) {
        tables->latin_look_alikes.emplace(cp, skeleton[0]);
      }
      tables->other.emplace(cp, skeleton);
    }
  }
  uspoof_close(spoof);
  tables_ = tables.release();  // lives as long as the process
}

const ConfusableSkeleton& ConfusableSkeleton::Get() {
  static const ConfusableSkeleton* const instance = new ConfusableSkeleton();
  return *instance;
}

std::string_view ConfusableSkeleton::PrototypeOf(char32_t cp) const {
  if (cp < 0x80) {
    return tables_->ascii_identity[cp] ? std::string_view()
                                       : std::string_view(tables_->ascii[cp]);
  }
  auto it = tables_->other.find(cp);
  return it == tables_->other.end() ? std::string_view()
                                    : std::string_view(it->second);
}

char ConfusableSkeleton::LatinLetterOf(char32_t cp) const {
  if (cp < 0x80) return 0;
  auto it = tables_->latin_look_alikes.find(cp);
  return it == tables_->latin_look_alikes.end() ? 0 : it->second;
}

absl::Status ConfusableSkeleton::Append(std::string_view text,
                                        std::string* out) const {
  const Tables& t = *tables_;
  const size_t first_non_ascii = FirstNonAscii(text);
  // 1. NFD (a no-op on ASCII).
  thread_local std::string decomposed;
  thread_local std::string mapped;
  TrimScratch(decomposed, text.size() * 3);
  TrimScratch(mapped, text.size() * 4);
  std::string_view source = text;
  if (first_non_ascii != text.size()) {
    decomposed.clear();
    UErrorCode err = U_ZERO_ERROR;
    icu::StringByteSink<std::string> sink(&decomposed);
    t.nfd->normalizeUTF8(0, icu::StringPiece(text.data(), text.size()), sink,
                         nullptr, err);
    if (U_FAILURE(err)) {
      return absl::InternalError(
          absl::StrCat("ICU NFD failed: ", u_errorName(err)));
    }
    source = decomposed;
  }
  // 2. Map every code point to its prototype.
  mapped.clear();
  mapped.reserve(source.size() + source.size() / 8);
  bool non_ascii = false;
  for (size_t i = 0; i < source.size();) {
    // Most of a text is ASCII that maps to itself: copied a run at a time.
    size_t run_end = i;
    while (run_end < source.size() &&
           t.ascii_identity[static_cast<unsigned char>(source[run_end])]) {
      ++run_end;
    }
    mapped.append(source.data() + i, run_end - i);
    i = run_end;
    if (i == source.size()) break;
    const unsigned char b = static_cast<unsigned char>(source[i]);
    if (b < 0x80) {
      mapped.append(t.ascii[b]);
      non_ascii = non_ascii || !t.ascii_prototype_is_ascii[b];
      ++i;
      continue;
    }
    char32_t cp = 0;
    const int n = DecodeUtf8(source, i, &cp);
    if (n == 0) return absl::InvalidArgumentError("invalid UTF-8");
    auto it = t.other.find(cp);
    if (it == t.other.end()) {
      mapped.append(source.substr(i, n));
    } else {
      mapped.append(it->second);
    }
    non_ascii = true;
    i += n;
  }
  // 3. NFD again: prototypes next to combining marks may need reordering.
  if (!non_ascii) {
    out->append(mapped);
    return absl::OkStatus();
  }
  UErrorCode err = U_ZERO_ERROR;
  icu::StringByteSink<std::string> sink(out);
  t.nfd->normalizeUTF8(0, icu::StringPiece(mapped.data(), mapped.size()), sink,
                       nullptr, err);
  if (U_FAILURE(err)) {
    return absl::InternalError(
        absl::StrCat("ICU NFD failed: ", u_errorName(err)));
  }
  return absl::OkStatus();
}

namespace {

// The ASCII letter a small capital (or kra) reads as, or 0.
char SmallCapitalLetter(char32_t cp) {
  switch (cp) {
    case 0x1D00:
      return 'a';  // ᴀ
    case 0x0299:
      return 'b';  // ʙ
    case 0x1D04:
      return 'c';  // ᴄ
    case 0x1D05:
      return 'd';  // ᴅ
    case 0x1D07:
      return 'e';  // ᴇ
    case 0xA730:
      return 'f';  // ꜰ
    case 0x0262:
      return 'g';  // ɢ
    case 0x029C:
      return 'h';  // ʜ
    case 0x026A:
      return 'i';  // ɪ
    case 0x1D0A:
      return 'j';  // ᴊ
    case 0x1D0B:
      return 'k';  // ᴋ
    case 0x0138:
      return 'k';  // ĸ kra
    case 0x029F:
      return 'l';  // ʟ
    case 0x1D0D:
      return 'm';  // ᴍ
    case 0x0274:
      return 'n';  // ɴ
    case 0x1D0F:
      return 'o';  // ᴏ
    case 0x1D18:
      return 'p';  // ᴘ
    case 0x0280:
      return 'r';  // ʀ
    case 0xA731:
      return 's';  // ꜱ
    case 0x1D1B:
      return 't';  // ᴛ
    case 0x1D1C:
      return 'u';  // ᴜ
    case 0x1D20:
      return 'v';  // ᴠ
    case 0x1D21:
      return 'w';  // ᴡ
    case 0x028F:
      return 'y';  // ʏ
    case 0x1D22:
      return 'z';  // ᴢ
    default:
      return 0;
  }
}

}  // namespace

void AppendFoldedSmallCapitals(std::string_view text, std::string* out) {
  out->reserve(out->size() + text.size());
  for (size_t i = 0; i < text.size();) {
    // Small capitals are never ASCII: ASCII runs are copied whole.
    const size_t ascii_run = FirstNonAscii(text.substr(i));
    out->append(text.data() + i, ascii_run);
    i += ascii_run;
    if (i == text.size()) break;
    char32_t cp = 0;
    int n = DecodeUtf8(text, i, &cp);
    if (n == 0) n = 1;  // callers pass valid UTF-8; never loop
    const char letter = SmallCapitalLetter(cp);
    if (letter != 0) {
      out->push_back(letter);
    } else {
      out->append(text.substr(i, n));
    }
    i += n;
  }
}

}  // namespace neardup::internal
