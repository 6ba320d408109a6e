#ifndef NEARDUP_CORE_INDEX_QUERY_STATS_H_
#define NEARDUP_CORE_INDEX_QUERY_STATS_H_

#include <cstddef>

namespace neardup {

// What one index query did, for metrics.
struct IndexQueryStats {
  size_t candidates = 0;  // distinct documents pulled from the tables
  size_t accepted = 0;    // candidates that passed verification
  // Table rows scored: a twin class (documents with equal signatures)
  // once, however many members it has.
  size_t scored = 0;
  // Exact verification: the shingle sets read from the store (a twin class
  // once), and their size in bytes as 64-bit hashes.
  size_t evidence_reads = 0;
  size_t evidence_bytes = 0;
  // Hot band keys left out (MinHashIndexOptions::hot_band_rows), per shard.
  size_t hot_bands_skipped = 0;
};

}  // namespace neardup

#endif  // NEARDUP_CORE_INDEX_QUERY_STATS_H_
