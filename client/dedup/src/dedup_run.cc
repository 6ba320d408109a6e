#include <algorithm>
#include <chrono>
#include <memory>

#include "absl/strings/str_cat.h"
#include "batch_reader.h"
#include "cluster_explainer.h"
#include "cluster_log.h"
#include "document_decider.h"
#include "duplicate_finder.h"
#include "fingerprint_pipeline.h"
#include "fingerprinter.h"
#include "neardup/base/status_macros.h"
#include "neardup/dataset/input_files.h"
#include "neardup/dataset/progress.h"
#include "neardup/dedup/dedup.h"
#include "output_sink.h"
#include "record_text.h"
#include "suffix_array_dedup.h"

namespace neardup::dedup {
namespace {

// Everything that happens in input order, on the calling thread.
class InOrderStage {
 public:
  InOrderStage(const DedupOptions& options, BatchReader* reader,
               OutputSink* sink)
      : options_(options), reader_(reader), sink_(sink) {}

  absl::Status Process(FingerprintedBatch* item) {
    if (!decider_) RETURN_IF_ERROR(CreateDecider(item->batch));
    const Batch& batch = item->batch;
    for (size_t i = 0; i < batch.records.size(); ++i) {
      const RecordRef& ref = batch.records[i];
      DocFingerprint& print = item->prints[i];
      ASSIGN_OR_RETURN(const Decision decision,
                       decider_->Decide(ref.doc, &print));
      if (decision.outcome == Outcome::kInvalid) {
        return absl::InvalidArgumentError(
            absl::StrCat(DisplayName(ref.file), ":", ref.line, ": ",
                         print.error, " (--skip-invalid skips such records)"));
      }
      if (decision.outcome == Outcome::kKept) {
        RETURN_IF_ERROR(Write(ref, batch.record(ref)));
      }
    }
    return absl::OkStatus();
  }

  // Null until the first batch.
  const DocumentDecider* decider() const {
    return decider_ ? &*decider_ : nullptr;
  }

 private:
  std::string DisplayName(uint32_t file) const {
    const std::string& path = reader_->file(file).path;
    return path == "-" ? "<stdin>" : path;
  }

  absl::Status Write(const RecordRef& ref, std::string_view raw) {
    RETURN_IF_ERROR(sink_->Write(raw, reader_->file(ref.file).relative_name));
    // Records are written with a terminator so that files concatenate.
    if (!options_.input.doc_per_file && (raw.empty() || raw.back() != '\n')) {
      return sink_->Write("\n", "");
    }
    return absl::OkStatus();
  }

  absl::Status CreateDecider(const Batch& first) {
    ASSIGN_OR_RETURN(DocumentDecider decider,
                     DocumentDecider::Create(options_, ExpectedDocs(first),
                                             reader_->total_size_hint() > 0 ||
                                                 options_.expected_docs > 0,
                                             !options_.clusters_path.empty()));
    decider_.emplace(std::move(decider));
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
  std::optional<DocumentDecider> decider_;
};

absl::StatusOr<std::unique_ptr<OutputSink>> OpenOutput(
    const DedupOptions& options) {
  if (options.stream) return OpenFileSink("-", /*flush_each_write=*/true);
  if (options.input.doc_per_file) return OpenDirectorySink(options.output);
  return OpenFileSink(options.output);
}

}  // namespace

absl::StatusOr<RunStats> RunDedup(const DedupOptions& options) {
  RETURN_IF_ERROR(ValidateOptions(options));
  if (!options.references.empty()) {
    return absl::InvalidArgumentError(
        "--reference needs a staged run: add --tasks N --work-dir DIR "
        "(--tasks 1 runs on this machine)");
  }
  const auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(std::vector<dataset::InputFile> files,
                   ListDedupInputs(options));
  if (options.algorithm == Algorithm::kSuffixArray) {
    return RunSuffixArrayDedup(options, std::move(files));
  }
  ASSIGN_OR_RETURN(const Fingerprinter fingerprinter,
                   Fingerprinter::Create(options));
  ASSIGN_OR_RETURN(const RecordText record_text, RecordText::Create(options));

  BatchReader reader(std::move(files), options);
  RETURN_IF_ERROR(reader.Start());
  ASSIGN_OR_RETURN(std::unique_ptr<OutputSink> sink, OpenOutput(options));
  if (!reader.header().empty())
    RETURN_IF_ERROR(sink->Write(reader.header(), ""));
  InOrderStage stage(options, &reader, sink.get());
  dataset::Progress progress("dedup", options.progress && !options.stream,
                             reader.total_size_hint());
  auto records_decided = [&stage] {
    return stage.decider() ? stage.decider()->stats().total : 0;
  };

  // --stream: one record at a time on this thread, so each kept record is
  // written as soon as it is decided.
  RETURN_IF_ERROR(FingerprintInOrder(
      reader, record_text, fingerprinter, PipelineOptionsOf(options),
      [&](FingerprintedBatch& item) {
        RETURN_IF_ERROR(stage.Process(&item));
        progress.Update(records_decided(), reader.bytes_consumed());
        return absl::OkStatus();
      }));
  RETURN_IF_ERROR(sink->Commit());
  progress.Finish(records_decided(), reader.bytes_consumed());

  const DocumentDecider* decider = stage.decider();
  if (!options.clusters_path.empty()) {
    // No input, no decider: an empty clusters file.
    const ClusterLog none;
    const ClusterLog& clusters = decider ? *decider->clusters() : none;
    std::optional<ClusterExplanations> explained;
    if (options.explain) {
      ASSIGN_OR_RETURN(std::vector<dataset::InputFile> again,
                       ListDedupInputs(options));
      ASSIGN_OR_RETURN(explained,
                       ExplainClusters(options, std::move(again), clusters));
    }
    RETURN_IF_ERROR(WriteFileAtomically(
        options.clusters_path,
        clusters.ToJsonLines(explained ? &*explained : nullptr)));
  }
  RunStats stats;
  if (decider) {
    stats = decider->stats();
    stats.method_stats = decider->finder().Stats();
  } else {
    stats.algorithm = std::string(AlgorithmName(options.algorithm));
    stats.verify = std::string(VerifyName(options.verify));
  }
  stats.input_bytes = reader.bytes_consumed();
  stats.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  stats.peak_rss_bytes = PeakRssBytes();
  if (!options.stats_path.empty()) {
    RETURN_IF_ERROR(WriteFileAtomically(options.stats_path, stats.ToJson()));
  }
  return stats;
}

}  // namespace neardup::dedup
