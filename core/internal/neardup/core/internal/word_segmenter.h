#ifndef NEARDUP_CORE_INTERNAL_WORD_SEGMENTER_H_
#define NEARDUP_CORE_INTERNAL_WORD_SEGMENTER_H_

#include <string_view>

#include "neardup/core/tokenizer.h"

namespace neardup::internal {

// UAX #29 word segmentation, keeping segments with a letter or digit.
// Rule engine over ICU properties; works on any UTF-8.
void ForEachWordGeneral(std::string_view text, TokenSink sink);
// Hand-written equivalent for pure-ASCII text (the caller checks).
void ForEachWordAscii(std::string_view text, TokenSink sink);
// Mostly-ASCII text: the general engine only around non-ASCII bytes (from
// the last cut before to the first cut after, where a cut is a place UAX
// #29 always breaks and no rule looks across), the ASCII one elsewhere.
// Same words as ForEachWordGeneral on any input.
void ForEachWordMixed(std::string_view text, TokenSink sink);
// Picks ForEachWordAscii or ForEachWordMixed.
void ForEachWord(std::string_view text, TokenSink sink);

}  // namespace neardup::internal

#endif  // NEARDUP_CORE_INTERNAL_WORD_SEGMENTER_H_
