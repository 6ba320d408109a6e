#ifndef NEARDUP_DEDUP_DEDUP_H_
#define NEARDUP_DEDUP_DEDUP_H_

// `neardup dedup` as a library call: reads the inputs, removes
// near-duplicates (the first occurrence in input order is kept) and writes
// the kept records byte for byte, in input order.
//
// Pipeline: a reader cuts the inputs into batches; worker threads extract
// and fingerprint whole batches; the calling thread then takes the batches
// strictly in input order, asks the index whether each document duplicates
// a kept one and keeps it otherwise. Only signatures (and, for --verification
// exact, shingle-hash sets) of kept documents stay in memory, never texts.
// Same input and options give the same output bytes for any thread count.

#include "absl/status/statusor.h"
#include "neardup/dedup/dedup_options.h"
#include "neardup/dedup/run_stats.h"

namespace neardup::dedup {

// Errors name the file and line of a malformed record (unless
// options.skip_invalid); on any error the output, clusters and stats files
// are left as they were.
absl::StatusOr<RunStats> RunDedup(const DedupOptions& options);

}  // namespace neardup::dedup

#endif  // NEARDUP_DEDUP_DEDUP_H_
