#include <algorithm>
#include <chrono>
#include <deque>
#include <future>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "batch_reader.h"
#include "cluster_explainer.h"
#include "cluster_log.h"
#include "duplicate_finder.h"
#include "fingerprinter.h"
#include "neardup/base/scratch.h"
#include "neardup/base/status_macros.h"
#include "neardup/base/worker_pool.h"
#include "neardup/dataset/input_files.h"
#include "neardup/dataset/progress.h"
#include "neardup/dedup/dedup.h"
#include "output_sink.h"
#include "record_text.h"
#include "suffix_array_dedup.h"

namespace neardup::dedup {
namespace {

// lshbloom with an unknown input size (a pipe) sizes its filters for this.
constexpr uint64_t kDefaultExpectedDocs = 1'000'000;
// The MinHash index is reserved for at most this many documents up front
// (about 100 MB of tables at 32 bands).
constexpr uint64_t kMaxReservedDocs = uint64_t{1} << 18;

// A batch with its fingerprints and the signal that they are ready.
struct WorkItem {
  Batch batch;
  std::vector<DocFingerprint> prints;
  // The token sets of this slot's batches; kept ones are shared onwards.
  HashChunkWriter token_chunks;
  std::promise<void> done;
};

void FingerprintBatch(const BatchReader& reader, const RecordText& record_text,
                      const Fingerprinter& fingerprinter, WorkItem* item) {
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

// Everything that happens in input order, on the calling thread.
class InOrderStage {
 public:
  InOrderStage(const DedupOptions& options, BatchReader* reader,
               OutputSink* sink, RunStats* stats)
      : options_(options), reader_(reader), sink_(sink), stats_(stats) {}

  absl::Status Process(WorkItem* item) {
    if (finder_ == nullptr) RETURN_IF_ERROR(CreateFinder(item->batch));
    const Batch& batch = item->batch;
    for (size_t i = 0; i < batch.records.size(); ++i) {
      const RecordRef& ref = batch.records[i];
      DocFingerprint& print = item->prints[i];
      ++stats_->total;
      switch (print.kind) {
        case DocFingerprint::Kind::kInvalid:
          if (!options_.skip_invalid) {
            return absl::InvalidArgumentError(absl::StrCat(
                DisplayName(ref.file), ":", ref.line, ": ", print.error,
                " (--skip-invalid skips such records)"));
          }
          ++stats_->invalid;
          continue;
        case DocFingerprint::Kind::kEmpty:
          ++stats_->empty;
          if (options_.drop_empty) continue;
          break;
        case DocFingerprint::Kind::kOk: {
          ASSIGN_OR_RETURN(std::optional<Match> match,
                           finder_->FindOrKeep(ref.doc, &print));
          if (match) {
            ++stats_->duplicates;
            if (clusters_ && match->representative != kUnknownDoc) {
              clusters_->Add(match->representative, ref.doc, match->similarity);
            }
            continue;
          }
          break;
        }
      }
      RETURN_IF_ERROR(Write(ref, batch.record(ref)));
    }
    return absl::OkStatus();
  }

  DuplicateFinder* finder() const { return finder_.get(); }
  ClusterLog* clusters() { return clusters_.get(); }

 private:
  std::string DisplayName(uint32_t file) const {
    const std::string& path = reader_->file(file).path;
    return path == "-" ? "<stdin>" : path;
  }

  absl::Status Write(const RecordRef& ref, std::string_view raw) {
    ++stats_->unique;
    RETURN_IF_ERROR(sink_->Write(raw, reader_->file(ref.file).relative_name));
    // Records are written with a terminator so that files concatenate.
    if (!options_.input.doc_per_file && (raw.empty() || raw.back() != '\n')) {
      return sink_->Write("\n", "");
    }
    return absl::OkStatus();
  }

  absl::Status CreateFinder(const Batch& first) {
    if (!options_.clusters_path.empty()) {
      clusters_ = std::make_unique<ClusterLog>();
    }
    absl::StatusOr<std::unique_ptr<DuplicateFinder>> finder =
        absl::InternalError("no finder for this algorithm");
    switch (options_.algorithm) {
      case Algorithm::kMinHashLsh:
      case Algorithm::kPerceptual:
        // Sized up front only from a known input size, and at most for
        // kMaxReservedDocs: the estimate comes from the first batch's mean
        // record size, which blank or short leading records can make wildly
        // high. Past that the index grows as it fills.
        finder = MakeMinHashFinder(
            options_, reader_->total_size_hint() > 0 || options_.expected_docs
                          ? std::min(ExpectedDocs(first), kMaxReservedDocs)
                          : 0);
        break;
      case Algorithm::kSimHash:
        finder = MakeSimHashFinder(options_, ExpectedDocs(first));
        break;
      case Algorithm::kLshBloom:
        finder = MakeLshBloomFinder(options_, ExpectedDocs(first));
        break;
      case Algorithm::kSuffixArray:  // runs apart (RunSuffixArrayDedup)
        break;
    }
    if (!finder.ok()) return finder.status();
    finder_ = *std::move(finder);
    return absl::OkStatus();
  }

  // --expected-docs, else the input size divided by the first batch's mean
  // record size, with 10% headroom. Sizes lshbloom's filters and the simhash
  // index.
  uint64_t ExpectedDocs(const Batch& first) const {
    if (options_.expected_docs > 0) return options_.expected_docs;
    const uint64_t total = reader_->total_size_hint();
    if (total == 0 || first.records.empty()) return kDefaultExpectedDocs;
    const double mean_bytes =
        static_cast<double>(first.bytes.size() - dataset::ExtractPadding()) /
        first.records.size();
    return static_cast<uint64_t>(total / std::max(mean_bytes, 1.0) * 1.1) + 64;
  }

  const DedupOptions& options_;
  BatchReader* reader_;
  OutputSink* sink_;
  RunStats* stats_;
  std::unique_ptr<DuplicateFinder> finder_;
  std::unique_ptr<ClusterLog> clusters_;
};

absl::StatusOr<std::unique_ptr<OutputSink>> OpenOutput(
    const DedupOptions& options) {
  if (options.stream) return OpenFileSink("-", /*flush_each_write=*/true);
  if (options.input.doc_per_file) return OpenDirectorySink(options.output);
  return OpenFileSink(options.output);
}

absl::StatusOr<std::vector<dataset::InputFile>> ListDedupInputs(
    const DedupOptions& options) {
  dataset::DatasetOptions input = options.input;
  if (options.stream) input.inputs = {"-"};
  if (input.inputs.empty()) {
    return absl::InvalidArgumentError("no input files (or use --stream)");
  }
  ASSIGN_OR_RETURN(std::vector<dataset::InputFile> files,
                   dataset::ListInputFiles(input));
  for (const dataset::InputFile& file : files) {
    if (file.format != files.front().format) {
      return absl::InvalidArgumentError(absl::StrCat(
          file.path, " is ", dataset::FormatName(file.format), " but ",
          files.front().path, " is ", dataset::FormatName(files.front().format),
          "; one run writes one format"));
    }
  }
  return files;
}

}  // namespace

absl::StatusOr<RunStats> RunDedup(const DedupOptions& options) {
  RETURN_IF_ERROR(ValidateOptions(options));
  const auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(std::vector<dataset::InputFile> files,
                   ListDedupInputs(options));
  if (options.algorithm == Algorithm::kSuffixArray) {
    return RunSuffixArrayDedup(options, std::move(files));
  }
  ASSIGN_OR_RETURN(const Fingerprinter fingerprinter,
                   Fingerprinter::Create(options));
  ASSIGN_OR_RETURN(const RecordText record_text, RecordText::Create(options));

  RunStats stats;
  stats.algorithm = std::string(AlgorithmName(options.algorithm));
  stats.verify = std::string(VerifyName(options.verify));
  BatchReader reader(std::move(files), options);
  RETURN_IF_ERROR(reader.Start());
  ASSIGN_OR_RETURN(std::unique_ptr<OutputSink> sink, OpenOutput(options));
  if (!reader.header().empty())
    RETURN_IF_ERROR(sink->Write(reader.header(), ""));
  InOrderStage stage(options, &reader, sink.get(), &stats);
  dataset::Progress progress("dedup", options.progress && !options.stream,
                             reader.total_size_hint());

  // --stream: one record at a time on this thread, so each kept record is
  // written as soon as it is decided.
  const int workers =
      options.stream ? 0
      : options.threads > 0
          ? options.threads
          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const size_t max_records = options.stream ? 1 : options.batch_records;
  // Declared before the pool: tasks in flight must outlive it.
  std::deque<std::unique_ptr<WorkItem>> in_flight;
  // Processed items are reused: their buffers keep their capacity, which
  // saves page faults on every batch.
  std::vector<std::unique_ptr<WorkItem>> spare;
  std::unique_ptr<WorkerPool> pool;
  if (workers > 0) pool = std::make_unique<WorkerPool>(workers);
  const size_t max_in_flight = 2 * static_cast<size_t>(workers) + 1;

  bool input_done = false;
  while (true) {
    while (!input_done &&
           in_flight.size() < std::max<size_t>(1, max_in_flight)) {
      std::unique_ptr<WorkItem> item;
      if (spare.empty()) {
        item = std::make_unique<WorkItem>();
      } else {
        item = std::move(spare.back());
        spare.pop_back();
        item->done = std::promise<void>();
      }
      ASSIGN_OR_RETURN(bool got, reader.Fill(max_records, options.batch_bytes,
                                             &item->batch));
      if (!got) {
        input_done = true;
        break;
      }
      if (pool) {
        WorkItem* raw = item.get();
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
    RETURN_IF_ERROR(stage.Process(in_flight.front().get()));
    spare.push_back(std::move(in_flight.front()));
    in_flight.pop_front();
    progress.Update(stats.total, reader.bytes_consumed());
  }
  pool.reset();
  RETURN_IF_ERROR(sink->Commit());
  progress.Finish(stats.total, reader.bytes_consumed());

  if (stage.clusters() != nullptr) {
    std::optional<ClusterExplanations> explained;
    if (options.explain) {
      ASSIGN_OR_RETURN(std::vector<dataset::InputFile> again,
                       ListDedupInputs(options));
      ASSIGN_OR_RETURN(explained, ExplainClusters(options, std::move(again),
                                                  *stage.clusters()));
    }
    RETURN_IF_ERROR(WriteFileAtomically(
        options.clusters_path,
        stage.clusters()->ToJsonLines(explained ? &*explained : nullptr)));
  }
  stats.input_bytes = reader.bytes_consumed();
  stats.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  stats.peak_rss_bytes = PeakRssBytes();
  if (stage.finder() != nullptr) stats.method_stats = stage.finder()->Stats();
  if (!options.stats_path.empty()) {
    RETURN_IF_ERROR(WriteFileAtomically(options.stats_path, stats.ToJson()));
  }
  return stats;
}

}  // namespace neardup::dedup
