#ifndef NEARDUP_CLIENT_DEDUP_SRC_DOCUMENT_DECIDER_H_
#define NEARDUP_CLIENT_DEDUP_SRC_DOCUMENT_DECIDER_H_

// The in-order decision about one fingerprinted document, shared by the
// file run (RunDedup) and the in-memory one (InMemoryDedup): it counts the
// document, asks the finder, and logs the cluster edge of a duplicate. Both
// callers decide exactly alike, so they keep the same documents.

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "cluster_log.h"
#include "duplicate_finder.h"
#include "fingerprinter.h"
#include "neardup/dedup/decision.h"
#include "neardup/dedup/dedup_options.h"
#include "neardup/dedup/run_stats.h"

namespace neardup::dedup {

// lshbloom with an unknown input size (a pipe, an iterator) sizes its
// Bloom filters for this many documents.
inline constexpr uint64_t kDefaultExpectedDocs = 1'000'000;

class DocumentDecider {
 public:
  // With the finder of options.algorithm (not suffix-array, which runs
  // apart). `expected_docs` sizes lshbloom's Bloom filters; when `size_known`,
  // the MinHash index is reserved for that many documents (at most 2^18) up
  // front. `log_clusters`: record every duplicate's edge for ClusterLog.
  static absl::StatusOr<DocumentDecider> Create(const DedupOptions& options,
                                                uint64_t expected_docs,
                                                bool size_known,
                                                bool log_clusters);

  // Decides document `doc` (numbered in input order). May move fingerprint
  // data into the finder.
  absl::StatusOr<Decision> Decide(uint32_t doc, DocFingerprint* print);

  const RunStats& stats() const { return stats_; }
  RunStats& stats() { return stats_; }
  DuplicateFinder& finder() const { return *finder_; }
  // Null unless log_clusters.
  const ClusterLog* clusters() const { return clusters_.get(); }

 private:
  DocumentDecider(const DedupOptions& options,
                  std::unique_ptr<DuplicateFinder> finder, bool log_clusters);

  bool skip_invalid_;
  bool drop_empty_;
  std::unique_ptr<DuplicateFinder> finder_;
  std::unique_ptr<ClusterLog> clusters_;
  RunStats stats_;
};

}  // namespace neardup::dedup

#endif  // NEARDUP_CLIENT_DEDUP_SRC_DOCUMENT_DECIDER_H_
