#ifndef NEARDUP_CLIENT_DEDUP_SRC_FINGERPRINT_PIPELINE_H_
#define NEARDUP_CLIENT_DEDUP_SRC_FINGERPRINT_PIPELINE_H_

// Reads a dataset in batches, fingerprints the batches on worker threads and
// hands them back in input order: the half of dedup that does not depend on
// what came before (one-process dedup and the staged signatures stage).

#include <cstddef>
#include <functional>
#include <future>
#include <vector>

#include "absl/status/status.h"
#include "batch_reader.h"
#include "fingerprinter.h"
#include "neardup/dedup/dedup_options.h"
#include "neardup/dedup/internal/hash_chunk.h"
#include "record_text.h"

namespace neardup::dedup {

// A batch with its fingerprints (one per record).
struct FingerprintedBatch {
  Batch batch;
  std::vector<DocFingerprint> prints;
  // The token sets of this slot's batches; kept ones are shared onwards.
  HashChunkWriter token_chunks;
  std::promise<void> done;  // the prints are ready
};

struct PipelineOptions {
  int workers = 1;  // 0: on the calling thread, a batch at a time
  size_t max_records = 2048;
  size_t max_bytes = 1 << 20;
};
// --threads (0: one per core), --stream (one record at a time, on the
// calling thread, so each is decided before the next is read).
PipelineOptions PipelineOptionsOf(const DedupOptions& options);

// Calls `consume` with every batch of `reader`, in input order, once its
// fingerprints are ready. Stops at the first error `consume` or the reader
// returns.
absl::Status FingerprintInOrder(
    BatchReader& reader, const RecordText& record_text,
    const Fingerprinter& fingerprinter, const PipelineOptions& options,
    const std::function<absl::Status(FingerprintedBatch&)>& consume);

}  // namespace neardup::dedup

#endif  // NEARDUP_CLIENT_DEDUP_SRC_FINGERPRINT_PIPELINE_H_
