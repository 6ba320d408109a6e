#include "neardup/core/internal/word_segmenter.h"

#include <cstdint>
#include <memory>
#include <vector>

#include "neardup/core/internal/ascii_words.h"
#include "neardup/core/internal/unicode_props.h"
#include "neardup/core/internal/utf8.h"

namespace neardup::internal {
namespace {

constexpr uint8_t kNone = 0xFF;  // before start of text / after end

bool IsIgnorable(uint8_t wb) {
  return wb == kWbExtend || wb == kWbFormat || wb == kWbZwj;
}
bool IsNewline(uint8_t wb) {
  return wb == kWbCR || wb == kWbLF || wb == kWbNewline;
}
bool IsAHLetter(uint8_t wb) {
  return wb == kWbALetter || wb == kWbHebrewLetter;
}
bool IsMidLetterQ(uint8_t wb) {  // MidLetter | MidNumLetQ
  return wb == kWbMidLetter || wb == kWbMidNumLet || wb == kWbSingleQuote;
}
bool IsMidNumQ(uint8_t wb) {  // MidNum | MidNumLetQ
  return wb == kWbMidNum || wb == kWbMidNumLet || wb == kWbSingleQuote;
}

// Decoded text: one packed property byte and start offset per code point.
struct Decoded {
  std::vector<uint8_t> props;
  std::vector<size_t> offsets;  // size() == props.size() + 1
};

class WordBreaker {
 public:
  explicit WordBreaker(const Decoded& d) : d_(d), n_(d.props.size()) {}

  uint8_t Wb(size_t i) const { return d_.props[i] & kWordBreakMask; }

  // WB4: an Extend/Format/ZWJ attaches to what precedes it, unless that is a
  // line break (or the start of text). Returns the index that stands for i.
  size_t Effective(size_t j) const {
    while (j > 0 && IsIgnorable(Wb(j)) && !IsNewline(Wb(j - 1))) --j;
    return j;
  }

  // Is there a word boundary between code points i-1 and i? `ri_run` is the
  // number of regional indicators ending at the effective previous char.
  bool BreakBefore(size_t i, int ri_run) const {
    const uint8_t raw_prev = Wb(i - 1);
    const uint8_t cur = Wb(i);
    if (raw_prev == kWbCR && cur == kWbLF) return false;     // WB3
    if (IsNewline(raw_prev) || IsNewline(cur)) return true;  // WB3a/b
    if (raw_prev == kWbZwj && (d_.props[i] & kExtPictBit))
      return false;                                                     // WB3c
    if (raw_prev == kWbWSegSpace && cur == kWbWSegSpace) return false;  // WB3d
    if (IsIgnorable(cur)) return false;                                 // WB4
    const size_t p_idx = Effective(i - 1);
    const uint8_t p = Wb(p_idx);
    const uint8_t pp = p_idx > 0 ? Wb(Effective(p_idx - 1)) : kNone;
    size_t k = i + 1;
    while (k < n_ && IsIgnorable(Wb(k))) ++k;
    const uint8_t next = k < n_ ? Wb(k) : kNone;

    if (IsAHLetter(p) && IsAHLetter(cur)) return false;  // WB5
    if (IsAHLetter(p) && IsMidLetterQ(cur) && IsAHLetter(next))
      return false;  // WB6
    if (IsAHLetter(pp) && IsMidLetterQ(p) && IsAHLetter(cur))
      return false;                                                   // WB7
    if (p == kWbHebrewLetter && cur == kWbSingleQuote) return false;  // WB7a
    if (p == kWbHebrewLetter && cur == kWbDoubleQuote &&
        next == kWbHebrewLetter) {
      return false;  // WB7b
    }
    if (pp == kWbHebrewLetter && p == kWbDoubleQuote &&
        cur == kWbHebrewLetter) {
      return false;  // WB7c
    }
    if (p == kWbNumeric && cur == kWbNumeric) return false;  // WB8
    if (IsAHLetter(p) && cur == kWbNumeric) return false;    // WB9
    if (p == kWbNumeric && IsAHLetter(cur)) return false;    // WB10
    if (pp == kWbNumeric && IsMidNumQ(p) && cur == kWbNumeric)
      return false;  // WB11
    if (p == kWbNumeric && IsMidNumQ(cur) && next == kWbNumeric)
      return false;                                            // WB12
    if (p == kWbKatakana && cur == kWbKatakana) return false;  // WB13
    if ((IsAHLetter(p) || p == kWbNumeric || p == kWbKatakana ||
         p == kWbExtendNumLet) &&
        cur == kWbExtendNumLet) {
      return false;  // WB13a
    }
    if (p == kWbExtendNumLet &&
        (IsAHLetter(cur) || cur == kWbNumeric || cur == kWbKatakana)) {
      return false;  // WB13b
    }
    if (p == kWbRegionalIndicator && cur == kWbRegionalIndicator &&
        ri_run % 2 == 1) {
      return false;  // WB15/16
    }
    return true;  // WB999
  }

 private:
  const Decoded& d_;
  const size_t n_;
};

// Per-thread scratch, reused across calls. A sink may tokenize again on the
// same thread (e.g. fingerprint a token); nested calls get their own buffers.
thread_local Decoded scratch;
thread_local int depth = 0;

class ScratchLease {
 public:
  ScratchLease() {
    if (depth++ > 0) nested_ = std::make_unique<Decoded>();
  }
  ~ScratchLease() { --depth; }
  Decoded& get() { return nested_ ? *nested_ : scratch; }

 private:
  std::unique_ptr<Decoded> nested_;
};

}  // namespace

void ForEachWordGeneral(std::string_view text, TokenSink sink) {
  ScratchLease lease;
  Decoded& d = lease.get();
  d.props.clear();
  d.offsets.clear();
  for (size_t i = 0; i < text.size();) {
    char32_t cp;
    const int len = DecodeUtf8Lenient(text, i, &cp);
    d.props.push_back(WordProps(cp));
    d.offsets.push_back(i);
    i += len;
  }
  d.offsets.push_back(text.size());
  const size_t n = d.props.size();
  if (n == 0) return;

  WordBreaker wb(d);
  size_t seg_start = 0;
  bool seg_alnum = d.props[0] & kAlnumBit;
  int ri_run = wb.Wb(0) == kWbRegionalIndicator ? 1 : 0;
  auto emit = [&](size_t end) {
    if (seg_alnum) {
      sink(text.substr(d.offsets[seg_start],
                       d.offsets[end] - d.offsets[seg_start]));
    }
  };
  for (size_t i = 1; i < n; ++i) {
    const uint8_t cur = wb.Wb(i);
    if (wb.BreakBefore(i, ri_run)) {
      emit(i);
      seg_start = i;
      seg_alnum = false;
    }
    seg_alnum |= (d.props[i] & kAlnumBit) != 0;
    // Track the regional-indicator run over effective characters.
    const uint8_t raw_prev = wb.Wb(i - 1);
    if (IsIgnorable(cur) && !IsNewline(raw_prev)) {
      // absorbed into the previous character: run unchanged
    } else if (cur == kWbRegionalIndicator) {
      ri_run =
          wb.Wb(wb.Effective(i - 1)) == kWbRegionalIndicator ? ri_run + 1 : 1;
    } else {
      ri_run = 0;
    }
  }
  emit(n);
}

void ForEachWordAscii(std::string_view text, TokenSink sink) {
  ForEachAsciiWord(text, sink);
}

namespace {

// Can the text be cut before `p` and both sides segmented alone? Yes right
// after an ASCII space when an ASCII byte other than a space follows: UAX
// #29 always breaks there, and no rule looks across it. The space
// (WSegSpace) takes part in no rule but WB3d, and as the look-behind or
// look-ahead of the rules that have one (WB6, WB7, WB7b/c, WB11, WB12) it
// acts like the start or end of text; the byte after it is not Extend,
// Format or ZWJ, so WB4 attaches nothing across. ASCII bytes always decode
// as themselves, even next to invalid UTF-8.
bool CutBefore(std::string_view text, size_t p) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
  return p > 0 && p < text.size() && byte(p - 1) == ' ' && byte(p) < 0x80 &&
         byte(p) != ' ';
}

}  // namespace

void ForEachWordMixed(std::string_view text, TokenSink sink) {
  size_t done = 0;  // text before this is segmented
  while (done < text.size()) {
    const size_t first_non_ascii = done + FirstNonAscii(text.substr(done));
    if (first_non_ascii == text.size()) {
      ForEachWordAscii(text.substr(done), sink);
      return;
    }
    // The rule engine takes the stretch between the cuts around the
    // non-ASCII byte (and any further ones before the next cut).
    size_t start = first_non_ascii;
    while (start > done && !CutBefore(text, start)) --start;
    size_t end = first_non_ascii + 1;
    while (end < text.size() && !CutBefore(text, end)) ++end;
    if (start > done) ForEachWordAscii(text.substr(done, start - done), sink);
    ForEachWordGeneral(text.substr(start, end - start), sink);
    done = end;
  }
}

void ForEachWord(std::string_view text, TokenSink sink) {
  if (IsAscii(text)) {
    ForEachWordAscii(text, sink);
  } else {
    ForEachWordMixed(text, sink);
  }
}

}  // namespace neardup::internal
