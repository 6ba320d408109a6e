#include "neardup/core/canonicalizer.h"

#include <unicode/bytestream.h>
#include <unicode/casemap.h>
#include <unicode/normalizer2.h>

#include <iterator>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/scratch.h"
#include "neardup/core/internal/confusables.h"
#include "neardup/core/internal/drop_list.h"
#include "neardup/core/internal/look_alikes.h"
#include "neardup/core/internal/utf8.h"

namespace neardup {

struct Canonicalizer::IcuState {
  const icu::Normalizer2* normalizer = nullptr;  // owned by ICU
};

namespace {

constexpr char kAsciiLower[] = {
#define L(c) static_cast<char>(((c) >= 'A' && (c) <= 'Z') ? (c) + 32 : (c))
#define R8(b) \
  L(b), L(b + 1), L(b + 2), L(b + 3), L(b + 4), L(b + 5), L(b + 6), L(b + 7)
    R8(0),  R8(8),  R8(16), R8(24), R8(32), R8(40),  R8(48),  R8(56),
    R8(64), R8(72), R8(80), R8(88), R8(96), R8(104), R8(112), R8(120),
#undef R8
#undef L
};

void AppendAscii(std::string_view s, bool lower, std::string* out) {
  if (!lower) {
    out->append(s);
    return;
  }
  const size_t base = out->size();
  out->resize(base + s.size());
  char* dst = out->data() + base;
  // Branch-free so the compiler vectorizes it.
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    dst[i] =
        static_cast<char>(c + ((static_cast<unsigned>(c - 'A') < 26u) << 5));
  }
}

absl::Status InvalidUtf8(size_t offset) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid UTF-8 at byte ", offset));
}

absl::Status IcuError(std::string_view what, UErrorCode code) {
  return absl::InternalError(
      absl::StrCat("ICU ", AbslView(what), " failed: ", u_errorName(code)));
}

// Thread-local scratch so the slow path allocates only when inputs grow.
std::string& Scratch(int which) {
  thread_local std::string buffers[2];
  return buffers[which];
}

}  // namespace

absl::StatusOr<CanonicalizerOptions> CanonicalizerProfile(
    std::string_view name) {
  CanonicalizerOptions options;
  if (name == "txtfp" || name == "default") return options;
  if (name == "robust") {
    options.strip_ignorable = true;
    options.confusable_skeleton = true;
    options.fold_small_capitals = true;
    options.fold_look_alikes = true;
    return options;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("canonicalizer profile must be txtfp or robust, got \"",
                   AbslView(name), "\""));
}

absl::StatusOr<CanonicalizerOptions> ParseCanonicalizerConfig(
    std::string_view config) {
  CanonicalizerOptions o;
  o.strip_bidi = o.strip_format = false;
  std::vector<std::string_view> parts;
  for (absl::string_view part : absl::StrSplit(AbslView(config), '-')) {
    parts.push_back(StdView(part));
  }
  auto bad = [&] {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad canonicalizer config \"", AbslView(config),
        "\": expected "
        "{nfc|nfkc|none}-{cf-simple|cf-none}[-bidi][-fmt][-ign][-conf][-sc]"
        "[-look]"));
  };
  if (parts.size() < 3 || parts[1] != "cf") return bad();
  if (parts[0] == "nfkc")
    o.normalization = Normalization::kNfkc;
  else if (parts[0] == "nfc")
    o.normalization = Normalization::kNfc;
  else if (parts[0] == "none")
    o.normalization = Normalization::kNone;
  else
    return bad();
  if (parts[2] == "simple")
    o.case_fold = CaseFold::kFull;
  else if (parts[2] == "none")
    o.case_fold = CaseFold::kNone;
  else
    return bad();
  // Flags must appear in canonical order, each at most once.
  const std::string_view flags[] = {"bidi", "fmt", "ign", "conf", "sc", "look"};
  constexpr size_t kFlags = std::size(flags);
  size_t next = 0;
  for (size_t i = 3; i < parts.size(); ++i) {
    while (next < kFlags && flags[next] != parts[i]) ++next;
    if (next == kFlags) return bad();
    if (next == 0) o.strip_bidi = true;
    if (next == 1) o.strip_format = true;
    if (next == 2) o.strip_ignorable = true;
    if (next == 3) o.confusable_skeleton = true;
    if (next == 4) o.fold_small_capitals = true;
    if (next == 5) o.fold_look_alikes = true;
    ++next;
  }
  return o;
}

absl::StatusOr<Canonicalizer> Canonicalizer::Create(
    const CanonicalizerOptions& options) {
  auto icu = std::make_shared<IcuState>();
  UErrorCode err = U_ZERO_ERROR;
  switch (options.normalization) {
    case Normalization::kNfkc:
      icu->normalizer = icu::Normalizer2::getNFKCInstance(err);
      break;
    case Normalization::kNfc:
      icu->normalizer = icu::Normalizer2::getNFCInstance(err);
      break;
    case Normalization::kNone:
      break;
  }
  if (U_FAILURE(err)) return IcuError("normalizer load", err);
  // Built once per process, on the first canonicalizer that needs it.
  if (options.confusable_skeleton || options.fold_look_alikes) {
    (void)internal::ConfusableSkeleton::Get();
  }
  return Canonicalizer(options, std::move(icu));
}

std::string Canonicalizer::ConfigString() const {
  std::string s;
  switch (options_.normalization) {
    case Normalization::kNfkc:
      s = "nfkc";
      break;
    case Normalization::kNfc:
      s = "nfc";
      break;
    case Normalization::kNone:
      s = "none";
      break;
  }
  s += options_.case_fold == CaseFold::kFull ? "-cf-simple" : "-cf-none";
  if (options_.strip_bidi) s += "-bidi";
  if (options_.strip_format) s += "-fmt";
  if (options_.strip_ignorable) s += "-ign";
  if (options_.confusable_skeleton) s += "-conf";
  if (options_.fold_small_capitals) s += "-sc";
  if (options_.fold_look_alikes) s += "-look";
  return s;
}

absl::StatusOr<std::string> Canonicalizer::Canonicalize(
    std::string_view input) const {
  std::string out;
  absl::Status s = CanonicalizeInto(input, &out);
  if (!s.ok()) return s;
  return out;
}

absl::Status Canonicalizer::CanonicalizeInto(std::string_view input,
                                             std::string* out) const {
  absl::Status status = CanonicalizeSkeleton(input, out);
  if (status.ok() && options_.fold_look_alikes) internal::FoldIToL(out);
  return status;
}

absl::Status Canonicalizer::CanonicalizeSkeleton(std::string_view input,
                                                 std::string* out) const {
  if (!options_.confusable_skeleton && !options_.fold_small_capitals) {
    return CanonicalizeText(input, out);
  }
  thread_local std::string text;
  TrimScratch(text, input.size() * 3);
  if (absl::Status s = CanonicalizeText(input, &text); !s.ok()) return s;
  if (!options_.confusable_skeleton) {
    out->clear();
    internal::AppendFoldedSmallCapitals(text, out);
    return absl::OkStatus();
  }
  if (!options_.fold_small_capitals) {
    out->clear();
    return internal::ConfusableSkeleton::Get().Append(text, out);
  }
  thread_local std::string skeleton;
  TrimScratch(skeleton, text.size() * 4);
  skeleton.clear();
  if (absl::Status s =
          internal::ConfusableSkeleton::Get().Append(text, &skeleton);
      !s.ok()) {
    return s;
  }
  out->clear();
  internal::AppendFoldedSmallCapitals(skeleton, out);
  return absl::OkStatus();
}

absl::Status Canonicalizer::CanonicalizeText(std::string_view input,
                                             std::string* out) const {
  out->clear();
  const bool lower = options_.case_fold == CaseFold::kFull;
  const size_t first = internal::FirstNonAscii(input);
  // Fast paths: on ASCII every stage but case folding is the identity, and
  // folding is ASCII lowercasing.
  if (first == input.size()) {
    AppendAscii(input, lower, out);
    return absl::OkStatus();
  }
  // Validate, and see whether every non-ASCII code point is one we drop.
  bool only_droppable = true;
  for (size_t i = first; i < input.size();) {
    if (static_cast<unsigned char>(input[i]) < 0x80) {
      ++i;
      continue;
    }
    char32_t cp = 0;
    const int n = internal::DecodeUtf8(input, i, &cp);
    if (n == 0) return InvalidUtf8(i);
    if (!internal::IsDropped(cp, options_.strip_bidi, options_.strip_format,
                             options_.strip_ignorable)) {
      only_droppable = false;
    }
    i += n;
  }
  if (!only_droppable) return SlowPath(input, out);
  out->reserve(input.size());
  AppendAscii(input.substr(0, first), lower, out);
  for (size_t i = first; i < input.size();) {
    const unsigned char b = input[i];
    if (b < 0x80) {
      out->push_back(lower ? kAsciiLower[b] : static_cast<char>(b));
      ++i;
      continue;
    }
    char32_t cp = 0;
    i += internal::DecodeUtf8(input, i, &cp);  // dropped: validated above
  }
  return absl::OkStatus();
}

absl::Status Canonicalizer::SlowPath(std::string_view input,
                                     std::string* out) const {
  // 1. Drop listed code points (input is already validated).
  std::string& dropped = Scratch(0);
  TrimScratch(dropped, input.size());
  TrimScratch(Scratch(1), input.size() * 3);
  dropped.clear();
  dropped.reserve(input.size());
  for (size_t i = 0; i < input.size();) {
    char32_t cp = 0;
    const int n = internal::DecodeUtf8(input, i, &cp);
    if (!internal::IsDropped(cp, options_.strip_bidi, options_.strip_format,
                             options_.strip_ignorable)) {
      dropped.append(input.substr(i, n));
    }
    i += n;
  }

  const icu::Normalizer2* norm = icu_->normalizer;
  std::string& tmp = Scratch(1);
  std::string* cur = &dropped;
  auto other = [&](const std::string* p) {
    return p == &dropped ? &tmp : &dropped;
  };
  // 1b. Look-alikes of Latin letters inside Latin words, before NFKC and
  // case folding turn them into letters that look like nothing Latin.
  if (options_.fold_look_alikes) {
    std::string* dst = other(cur);
    dst->clear();
    if (internal::AppendLatinizedMixedWords(*cur, dst)) cur = dst;
  }
  auto normalize = [&](std::string* src, std::string* dst) -> absl::Status {
    dst->clear();
    UErrorCode err = U_ZERO_ERROR;
    icu::StringByteSink<std::string> sink(dst);
    norm->normalizeUTF8(0, icu::StringPiece(src->data(), src->size()), sink,
                        nullptr, err);
    if (U_FAILURE(err)) return IcuError("normalize", err);
    return absl::OkStatus();
  };

  // 2. Normalize.
  if (norm != nullptr) {
    absl::Status s = normalize(cur, other(cur));
    if (!s.ok()) return s;
    cur = other(cur);
  }
  // 3. Full case fold, then renormalize if folding left non-ASCII text.
  if (options_.case_fold == CaseFold::kFull) {
    std::string* dst = other(cur);
    dst->clear();
    UErrorCode err = U_ZERO_ERROR;
    icu::StringByteSink<std::string> sink(dst);
    icu::CaseMap::utf8Fold(U_FOLD_CASE_DEFAULT,
                           icu::StringPiece(cur->data(), cur->size()), sink,
                           nullptr, err);
    if (U_FAILURE(err)) return IcuError("case fold", err);
    cur = dst;
    if (norm != nullptr && !internal::IsAscii(*cur)) {
      std::string* next = other(cur);
      absl::Status s = normalize(cur, next);
      if (!s.ok()) return s;
      cur = next;
    }
  }
  out->assign(*cur);
  return absl::OkStatus();
}

}  // namespace neardup
