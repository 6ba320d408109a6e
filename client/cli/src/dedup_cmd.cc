// `neardup dedup`: flags -> DedupOptions -> neardup::dedup::RunDedup.

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "neardup/base/status_macros.h"
#include "neardup/cli/commands.h"
#include "neardup/dataset/input_format.h"
#include "neardup/dedup/dedup.h"

namespace neardup::cli {
namespace {

using dedup::Algorithm;
using dedup::Verify;

absl::StatusOr<Algorithm> ParseAlgorithm(const std::string& name) {
  if (name == "minhash-lsh" || name == "minhash") return Algorithm::kMinHashLsh;
  if (name == "lshbloom") return Algorithm::kLshBloom;
  if (name == "simhash") return Algorithm::kSimHash;
  if (name == "suffix-array") return Algorithm::kSuffixArray;
  return absl::InvalidArgumentError(absl::StrCat(
      "--algorithm must be minhash-lsh, lshbloom, simhash or suffix-array "
      "(got \"",
      name, "\")"));
}

absl::StatusOr<Verify> ParseVerify(const std::string& name) {
  if (name == "none") return Verify::kNone;
  if (name == "estimate") return Verify::kEstimate;
  if (name == "exact") return Verify::kExact;
  return absl::InvalidArgumentError(absl::StrCat(
      "--verify must be none, estimate or exact (got \"", name, "\")"));
}

absl::StatusOr<dedup::DedupOptions> ToOptions(const DedupCommand& cmd) {
  dedup::DedupOptions o;
  o.input.inputs = cmd.inputs;
  o.output = cmd.output;
  o.stream = cmd.stream;
  ASSIGN_OR_RETURN(o.input.format, dataset::ParseFormatName(cmd.format));
  o.input.field = cmd.field;
  o.input.doc_per_file = cmd.doc_per_file;
  ASSIGN_OR_RETURN(o.algorithm, ParseAlgorithm(cmd.algorithm));
  ASSIGN_OR_RETURN(o.verify, ParseVerify(cmd.verify));
  o.threshold = cmd.threshold;
  o.bands = cmd.bands;
  o.max_distance = cmd.max_distance;
  o.expected_docs = cmd.expected_docs;
  o.bloom_false_positive = cmd.bloom_fp;
  o.min_length = cmd.min_length;
  ASSIGN_OR_RETURN(o.minhash, cmd.fingerprint.ToMinHash());
  ASSIGN_OR_RETURN(o.simhash, cmd.fingerprint.ToSimHash());
  o.threads = cmd.threads;
  o.skip_invalid = cmd.skip_invalid;
  o.drop_empty = cmd.drop_empty;
  o.clusters_path = cmd.clusters;
  o.stats_path = cmd.stats;
  o.spans_path = cmd.spans;
  o.progress = !cmd.no_progress;
  o.input.max_record_bytes = cmd.max_record_bytes;
  return o;
}

}  // namespace

CLI::App* AddDedupCommand(CLI::App* app, DedupCommand* cmd) {
  CLI::App* sub = app->add_subcommand(
      "dedup",
      "Remove near-duplicate records from JSONL/CSV/TSV/TXT datasets (the "
      "first occurrence is kept; kept records are copied byte for byte)");
  sub->add_option("inputs", cmd->inputs,
                  "Input files (folders with "
                  "--doc-per-file)");
  sub->add_option("-o,--output", cmd->output,
                  "Output file (folder with --doc-per-file); written to a "
                  "temporary name and renamed when the run succeeds");
  sub->add_flag("--stream", cmd->stream,
                "Read standard input, write each kept record to standard "
                "output as soon as it is decided");
  sub->add_option("--format", cmd->format,
                  "auto (by extension), jsonl, csv, tsv or txt")
      ->capture_default_str();
  sub->add_option("--field", cmd->field, "JSON field or CSV/TSV column")
      ->capture_default_str();
  sub->add_flag("--doc-per-file", cmd->doc_per_file,
                "TXT: every file (under the input folders) is one document");
  sub->add_option("--algorithm", cmd->algorithm,
                  "minhash-lsh, lshbloom, simhash or suffix-array")
      ->capture_default_str();
  sub->add_option("--verify", cmd->verify,
                  "none (an index hit is a duplicate), estimate (MinHash "
                  "estimate >= threshold) or exact (exact Jaccard of the "
                  "shingle sets >= threshold)")
      ->capture_default_str();
  sub->add_option("--threshold", cmd->threshold, "Jaccard threshold")
      ->capture_default_str();
  sub->add_option("--bands", cmd->bands,
                  "LSH bands (0: chosen from --threshold and --verify)")
      ->capture_default_str();
  sub->add_option("--max-distance", cmd->max_distance,
                  "simhash: largest Hamming distance of a duplicate")
      ->capture_default_str();
  sub->add_option("--expected-docs", cmd->expected_docs,
                  "lshbloom: documents to size the Bloom filters for (0: "
                  "estimated from the input size)")
      ->capture_default_str();
  sub->add_option("--bloom-fp", cmd->bloom_fp,
                  "lshbloom: target chance that a unique document is taken "
                  "for a duplicate")
      ->capture_default_str();
  sub->add_option("--min-length", cmd->min_length,
                  "suffix-array: shortest repeated span to remove, in bytes")
      ->capture_default_str();
  sub->add_option("--threads", cmd->threads,
                  "Fingerprinting threads (0: one per core)")
      ->capture_default_str();
  sub->add_option("--clusters", cmd->clusters,
                  "Write one JSON line per duplicate cluster");
  sub->add_option("--stats", cmd->stats, "Write run statistics as JSON");
  sub->add_option("--spans", cmd->spans,
                  "suffix-array: write one JSON line per removed span");
  sub->add_flag("--skip-invalid", cmd->skip_invalid,
                "Count and drop malformed records instead of stopping");
  sub->add_flag("--drop-empty", cmd->drop_empty,
                "Drop documents without tokens (kept by default)");
  sub->add_option("--max-record-bytes", cmd->max_record_bytes,
                  "Refuse a record (a line, or a file with --doc-per-file) "
                  "longer than this many bytes instead of buffering it whole")
      ->capture_default_str();
  sub->add_flag("--no-progress", cmd->no_progress,
                "No progress line on stderr (shown only on a terminal)");
  AddFingerprintFlags(sub, &cmd->fingerprint, /*with_algo=*/false);
  return sub;
}

absl::Status RunDedupCommand(const DedupCommand& cmd, std::ostream& out) {
  ASSIGN_OR_RETURN(const dedup::DedupOptions options, ToOptions(cmd));
  ASSIGN_OR_RETURN(const dedup::RunStats stats, dedup::RunDedup(options));
  // Standard output may carry the records themselves.
  if (!options.stream && options.output != "-") {
    // suffix-array shortens records instead of removing them.
    const bool spans = options.algorithm == Algorithm::kSuffixArray;
    out << absl::StrFormat(
        "dedup: %d records, %d kept, %d %s (%.2f%%), %d empty, %d "
        "invalid, %.2f s, %.0f docs/s\n",
        stats.total, stats.unique, stats.duplicates,
        spans ? "shortened" : "removed", 100 * stats.duplicate_ratio(),
        stats.empty, stats.invalid, stats.seconds,
        stats.total / std::max(stats.seconds, 1e-9));
  }
  return absl::OkStatus();
}

}  // namespace neardup::cli
