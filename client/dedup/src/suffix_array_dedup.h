#ifndef NEARDUP_CLIENT_DEDUP_SRC_SUFFIX_ARRAY_DEDUP_H_
#define NEARDUP_CLIENT_DEDUP_SRC_SUFFIX_ARRAY_DEDUP_H_

// --method suffix-array: exact-substring dedup in the manner of
// google-research/deduplicate-text-datasets. Every byte span of at least
// --min-length bytes that already occurred earlier in the corpus (in input
// order) is cut from the later document; the first occurrence stays.
//
// Pass 1 concatenates all document texts (0xFF between documents: it never
// occurs in UTF-8, so no match crosses a boundary), builds the suffix array
// with libdivsufsort and the LCP array (Kasai's Phi variant). Suffixes that
// share >= min-length bytes form runs in suffix-array order; in each run
// every suffix but the one starting earliest is a repeat. Pass 2 re-reads
// the inputs and rewrites only the records that lost bytes.
//
// Memory: the corpus text plus ~9 bytes per byte of text, so this mode,
// unlike the others, holds the whole corpus (at most 2 GiB of text).

#include <vector>

#include "absl/status/statusor.h"
#include "neardup/dataset/input_files.h"
#include "neardup/dedup/dedup_options.h"
#include "neardup/dedup/run_stats.h"

namespace neardup::dedup {

absl::StatusOr<RunStats> RunSuffixArrayDedup(
    const DedupOptions& options, std::vector<dataset::InputFile> files);

}  // namespace neardup::dedup

#endif  // NEARDUP_CLIENT_DEDUP_SRC_SUFFIX_ARRAY_DEDUP_H_
