#include "fingerprint_pipeline.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <thread>

#include "neardup/base/scratch.h"
#include "neardup/base/status_macros.h"
#include "neardup/base/worker_pool.h"
#include "neardup/dataset/text_extractor.h"

namespace neardup::dedup {
namespace {

void FingerprintBatch(const BatchReader& reader, const RecordText& record_text,
                      const Fingerprinter& fingerprinter,
                      FingerprintedBatch* item) {
  thread_local dataset::ExtractScratch scratch;
  thread_local std::string extracted;
  thread_local std::vector<uint64_t> token_set;
  item->prints.resize(item->batch.records.size());
  for (size_t i = 0; i < item->batch.records.size(); ++i) {
    const RecordRef& ref = item->batch.records[i];
    DocFingerprint& print = item->prints[i];
    absl::StatusOr<std::string_view> text =
        record_text.Of(reader, item->batch, ref, scratch, extracted);
    if (!text.ok()) {
      print.kind = DocFingerprint::Kind::kInvalid;
      print.error = std::string(text.status().message());
      print.token_set = {};
      print.token_chunk.reset();  // not the slot's previous batch's chunk
      continue;
    }
    fingerprinter.Compute(*text, &print, &token_set, &item->token_chunks);
    TrimScratch(token_set, 0);
  }
}

}  // namespace

PipelineOptions PipelineOptionsOf(const DedupOptions& options) {
  PipelineOptions out;
  out.workers =
      options.stream ? 0
      : options.threads > 0
          ? options.threads
          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  out.max_records = options.stream ? 1 : options.batch_records;
  out.max_bytes = options.batch_bytes;
  return out;
}

absl::Status FingerprintInOrder(
    BatchReader& reader, const RecordText& record_text,
    const Fingerprinter& fingerprinter, const PipelineOptions& options,
    const std::function<absl::Status(FingerprintedBatch&)>& consume) {
  // Declared before the pool: tasks in flight must outlive it.
  std::deque<std::unique_ptr<FingerprintedBatch>> in_flight;
  // Processed items are reused: their buffers keep their capacity, which
  // saves page faults on every batch.
  std::vector<std::unique_ptr<FingerprintedBatch>> spare;
  std::unique_ptr<WorkerPool> pool;
  if (options.workers > 0) pool = std::make_unique<WorkerPool>(options.workers);
  const size_t max_in_flight = 2 * static_cast<size_t>(options.workers) + 1;

  bool input_done = false;
  while (true) {
    while (!input_done &&
           in_flight.size() < std::max<size_t>(1, max_in_flight)) {
      std::unique_ptr<FingerprintedBatch> item;
      if (spare.empty()) {
        item = std::make_unique<FingerprintedBatch>();
      } else {
        item = std::move(spare.back());
        spare.pop_back();
        item->done = std::promise<void>();
      }
      ASSIGN_OR_RETURN(bool got, reader.Fill(options.max_records,
                                             options.max_bytes, &item->batch));
      if (!got) {
        input_done = true;
        break;
      }
      if (pool) {
        FingerprintedBatch* raw = item.get();
        pool->Submit([&reader, &record_text, &fingerprinter, raw] {
          FingerprintBatch(reader, record_text, fingerprinter, raw);
          raw->done.set_value();
        });
      } else {
        FingerprintBatch(reader, record_text, fingerprinter, item.get());
        item->done.set_value();
      }
      in_flight.push_back(std::move(item));
      if (!pool) break;  // process before reading on (streaming)
    }
    if (in_flight.empty()) break;
    in_flight.front()->done.get_future().wait();
    RETURN_IF_ERROR(consume(*in_flight.front()));
    spare.push_back(std::move(in_flight.front()));
    in_flight.pop_front();
  }
  return absl::OkStatus();
}

}  // namespace neardup::dedup
