#ifndef NEARDUP_CORE_QUERY_ALGORITHM_H_
#define NEARDUP_CORE_QUERY_ALGORITHM_H_

// What a query ranks its matches by (names and API numbers:
// kQueryAlgorithms in enum_tables.h).

namespace neardup {

enum class QueryAlgorithm {
  kMinHash,    // estimated (or exactly verified) Jaccard, via LSH
  kSimHash,    // Hamming distance of the SimHashes
  kSemantic,   // cosine of the embeddings
  kHybridAll,  // MinHash and cosine both
  kHybridAny   // MinHash or cosine
};

}  // namespace neardup

#endif  // NEARDUP_CORE_QUERY_ALGORITHM_H_
