#include "suffix_array_dedup.h"

#include <simdjson.h>

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "batch_reader.h"
#include "neardup/base/json.h"
#include "neardup/base/status_macros.h"
#include "neardup/dataset/csv_record.h"
#include "neardup/dataset/json_string_field.h"
#include "neardup/dataset/text_extractor.h"
#include "neardup/dedup/internal/repeated_spans.h"
#include "output_sink.h"

namespace neardup::dedup {
namespace {

std::string DisplayName(const dataset::InputFile& file) {
  return file.path == "-" ? "<stdin>" : file.path;
}

// Pass 1 result: the corpus and where each document's text starts in it
// (skipped invalid records have no entry).
struct Corpus {
  std::string text;
  std::vector<uint64_t> starts;  // ascending
  std::vector<uint32_t> docs;    // the document of each entry
  uint32_t num_docs = 0;
};

absl::StatusOr<Corpus> ReadCorpus(const DedupOptions& options,
                                  const std::vector<dataset::InputFile>& files,
                                  RunStats* stats) {
  Corpus corpus;
  BatchReader reader(files, options);
  RETURN_IF_ERROR(reader.Start());
  dataset::ExtractScratch scratch;
  Batch batch;
  while (true) {
    ASSIGN_OR_RETURN(bool got, reader.Fill(options.batch_records,
                                           options.batch_bytes, &batch));
    if (!got) break;
    for (const RecordRef& ref : batch.records) {
      ++stats->total;
      absl::StatusOr<std::string_view> text =
          reader.extractor(ref.file).Extract(batch.record(ref), &scratch);
      std::string error;
      if (!text.ok()) {
        error = std::string(text.status().message());
      } else if (!simdjson::validate_utf8(text->data(), text->size())) {
        error = "invalid UTF-8 in the text";
      }
      if (!error.empty()) {
        if (!options.skip_invalid) {
          return absl::InvalidArgumentError(absl::StrCat(
              DisplayName(reader.file(ref.file)), ":", ref.line, ": ", error,
              " (--skip-invalid skips such records)"));
        }
        ++stats->invalid;
        continue;
      }
      corpus.starts.push_back(corpus.text.size());
      corpus.docs.push_back(ref.doc);
      corpus.text.append(*text);
      corpus.text.push_back(kDocSeparator);
    }
  }
  stats->input_bytes = reader.bytes_consumed();
  corpus.num_docs = static_cast<uint32_t>(reader.docs_read());
  return corpus;
}

// The entry (index into Corpus::starts) holding corpus position `pos`.
size_t EntryAt(const std::vector<uint64_t>& starts, uint64_t pos) {
  return std::upper_bound(starts.begin(), starts.end(), pos) - starts.begin() -
         1;
}

// `text` with the byte ranges [begin, end) (ascending, doc-relative) cut.
std::string CutRanges(std::string_view text,
                      const std::vector<std::pair<uint64_t, uint64_t>>& cuts) {
  std::string out;
  uint64_t at = 0;
  for (const auto& [begin, end] : cuts) {
    out.append(text.substr(at, begin - at));
    at = end;
  }
  out.append(text.substr(std::min<uint64_t>(at, text.size())));
  return out;
}

absl::StatusOr<std::string> RewriteRecord(
    const dataset::TextExtractor& extractor, std::string_view record,
    std::string_view new_text) {
  switch (extractor.format()) {
    case dataset::Format::kJsonl:
      return dataset::ReplaceJsonStringField(record, extractor.field(),
                                             new_text);
    case dataset::Format::kCsv:
    case dataset::Format::kTsv: {
      dataset::CsvFields fields;
      absl::Status parsed =
          dataset::ParseCsvRecord(record, extractor.delimiter(), &fields);
      if (!parsed.ok()) return parsed;
      const auto [begin, end] = fields.raw_spans[extractor.column()];
      std::string out(record.substr(0, begin));
      dataset::AppendCsvField(new_text, extractor.delimiter(), &out);
      out.append(record.substr(end));
      return out;
    }
    case dataset::Format::kTxt:
    case dataset::Format::kAuto: {
      std::string out(new_text);
      size_t body = record.size();
      if (body > 0 && record[body - 1] == '\n') --body;
      if (body > 0 && record[body - 1] == '\r') --body;
      out.append(record.substr(body));
      return out;
    }
  }
  return absl::InternalError("unknown format");
}

}  // namespace

absl::StatusOr<RunStats> RunSuffixArrayDedup(
    const DedupOptions& options, std::vector<dataset::InputFile> files) {
  const auto start = std::chrono::steady_clock::now();
  RunStats stats;
  stats.algorithm = "suffix-array";
  stats.verify = "exact";
  ASSIGN_OR_RETURN(Corpus corpus, ReadCorpus(options, files, &stats));
  ASSIGN_OR_RETURN(std::vector<RepeatedSpan> spans,
                   FindRepeatedSpans(corpus.text, options.min_length));

  // Group the cuts by document (doc-relative offsets) and log the spans.
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> cuts(corpus.num_docs);
  std::string spans_json;
  uint64_t removed_bytes = 0;
  for (const RepeatedSpan& span : spans) {
    const size_t entry = EntryAt(corpus.starts, span.begin);
    const size_t first_entry = EntryAt(corpus.starts, span.first);
    const uint32_t doc = corpus.docs[entry];
    const uint64_t base = corpus.starts[entry];
    cuts[doc].push_back({span.begin - base, span.end - base});
    removed_bytes += span.end - span.begin;
    if (!options.spans_path.empty()) {
      spans_json += ToJsonText(nlohmann::ordered_json{
          {"doc", doc},
          {"begin", span.begin - base},
          {"end", span.end - base},
          {"first_doc", corpus.docs[first_entry]},
          {"first_begin", span.first - corpus.starts[first_entry]}});
      spans_json += '\n';
    }
  }
  corpus = Corpus();  // free the text before pass 2

  // Pass 2: copy records, rewriting those that lost bytes.
  ASSIGN_OR_RETURN(std::unique_ptr<OutputSink> sink,
                   OpenFileSink(options.output));
  BatchReader reader(files, options);
  RETURN_IF_ERROR(reader.Start());
  if (!reader.header().empty())
    RETURN_IF_ERROR(sink->Write(reader.header(), ""));
  dataset::ExtractScratch scratch;
  Batch batch;
  while (true) {
    ASSIGN_OR_RETURN(bool got, reader.Fill(options.batch_records,
                                           options.batch_bytes, &batch));
    if (!got) break;
    for (const RecordRef& ref : batch.records) {
      const std::string_view raw = batch.record(ref);
      absl::StatusOr<std::string_view> text =
          reader.extractor(ref.file).Extract(raw, &scratch);
      if (!text.ok() || !simdjson::validate_utf8(text->data(), text->size())) {
        continue;  // counted as invalid in pass 1
      }
      std::string rewritten;
      std::string_view out = raw;
      if (ref.doc < cuts.size() && !cuts[ref.doc].empty()) {
        ++stats.duplicates;
        ASSIGN_OR_RETURN(rewritten,
                         RewriteRecord(reader.extractor(ref.file), raw,
                                       CutRanges(*text, cuts[ref.doc])));
        out = rewritten;
      }
      ++stats.unique;
      RETURN_IF_ERROR(sink->Write(out, ""));
      if (out.empty() || out.back() != '\n')
        RETURN_IF_ERROR(sink->Write("\n", ""));
    }
  }
  RETURN_IF_ERROR(sink->Commit());
  if (!options.spans_path.empty()) {
    RETURN_IF_ERROR(WriteFileAtomically(options.spans_path, spans_json));
  }
  stats.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  stats.peak_rss_bytes = PeakRssBytes();
  stats.method_stats = {{"min_length", options.min_length},
                        {"spans", spans.size()},
                        {"removed_bytes", removed_bytes},
                        {"docs_changed", stats.duplicates}};
  if (!options.stats_path.empty()) {
    RETURN_IF_ERROR(WriteFileAtomically(options.stats_path, stats.ToJson()));
  }
  return stats;
}

}  // namespace neardup::dedup
