#ifndef NEARDUP_CORE_INTERNAL_LOOK_ALIKES_H_
#define NEARDUP_CORE_INTERNAL_LOOK_ALIKES_H_

// CanonicalizerOptions::fold_look_alikes: the look-alikes the confusable
// skeleton alone misses, because case folding runs before it and because
// confusables.txt makes I and l one letter while case folding makes I and i
// one letter.

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"

namespace neardup::internal {

// Calls `latinize(begin, end)`, in order, for each word of valid UTF-8
// `text` (a run of letters and combining marks) whose Latin look-alikes of
// other scripts (letters whose confusable prototype is one ASCII letter)
// read as Latin letters: a word that holds a Latin letter ("wΙΝd"), and a
// run of words made of look-alikes only next to such a word ("ΤΗΕ ΙΝ" in
// "ΤΗΕ ΙΝ ok"). Greek and Cyrillic text keeps its letters (and its case
// folding): its words hold letters that look like nothing Latin. The price:
// next to a Latin word, an all-look-alike word reads by its letters'
// shapes, so Greek ΝΑΙ reads "NAI" there and ναι "vai" (the skeleton's),
// where case folding alone makes them one word. Memory is constant.
void ForEachLatinizedWord(
    std::string_view text,
    absl::FunctionRef<void(size_t begin, size_t end)> latinize);

// Appends `word` with each look-alike replaced by its ASCII letter.
void AppendLatinized(std::string_view word, std::string* out);

// Appends `text` to *out with the words above Latinized ("wΙΝd" -> "wlNd",
// "ΤΗΕ ΙΝ ok" -> "THE lN ok"). Returns false, appending nothing, when no
// word needs it.
bool AppendLatinizedMixedWords(std::string_view text, std::string* out);

// 'i' -> 'l' in place: after case folding and the skeleton, I, l, 1, | and
// their look-alikes read as l, and i as i, though I and i are one letter.
void FoldIToL(std::string* text);

}  // namespace neardup::internal

#endif  // NEARDUP_CORE_INTERNAL_LOOK_ALIKES_H_
