// `neardup dedup`: flags -> DedupOptions -> neardup::dedup::RunDedup.

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "neardup/base/status_macros.h"
#include "neardup/cli/cli_options.h"
#include "neardup/cli/commands.h"
#include "neardup/dataset/input_format.h"
#include "neardup/dedup/dedup.h"
#include "staged_dedup.h"

namespace neardup::cli {
using dedup::Algorithm;

CLI::App* AddDedupCommand(CLI::App* app, DedupCommand* cmd) {
  dedup::DedupOptions& o = cmd->options;
  CLI::App* sub = app->add_subcommand(
      "dedup",
      "Remove near-duplicate records from JSONL/CSV/TSV/TXT datasets (the "
      "first occurrence is kept; kept records are copied byte for byte)");
  sub->add_option("inputs", o.input.inputs,
                  "Input files (folders with "
                  "--doc-per-file)");
  sub->add_option("-o,--output", o.output,
                  "Output file (folder with --doc-per-file); written to a "
                  "temporary name and renamed when the run succeeds");
  sub->add_flag("--stream", o.stream,
                "Read standard input, write each kept record to standard "
                "output as soon as it is decided");
  AddParsedOption(sub, "--format", &o.input.format, dataset::ParseFormatName,
                  "auto (by extension, the default), jsonl, csv, tsv or txt");
  sub->add_option("--field", o.input.field, "JSON field or CSV/TSV column")
      ->capture_default_str();
  sub->add_flag("--doc-per-file", o.input.doc_per_file,
                "TXT: every file (under the input folders) is one document");
  AddParsedOption(sub, "--method", &o.algorithm, dedup::ParseAlgorithm,
                  "minhash-lsh (default), lshbloom, simhash, suffix-array "
                  "or perceptual (rolling shingles + winnowing + MinHash)");
  AddDeprecatedParsedOption(sub, "--algorithm", "--method", &o.algorithm,
                            dedup::ParseAlgorithm);
  CLI::Option* verification = AddParsedOption(
      sub, "--verification", &o.verify, dedup::ParseVerify,
      "exact (the default: exact Jaccard of the shingle sets >= threshold), "
      "estimate (MinHash estimate >= threshold; lshbloom's default) or none "
      "(an index hit is a duplicate)");
  CLI::Option* verify = AddDeprecatedParsedOption(
      sub, "--verify", "--verification", &o.verify, dedup::ParseVerify);
  // lshbloom keeps no shingle sets: its default is the estimate.
  sub->parse_complete_callback([&o, verification, verify] {
    if (verification->count() == 0 && verify->count() == 0 &&
        o.algorithm == Algorithm::kLshBloom) {
      o.verify = dedup::Verify::kEstimate;
    }
  });
  sub->add_option("--threshold", o.threshold, "Jaccard threshold")
      ->capture_default_str();
  sub->add_option("--evidence-bits", o.evidence_bits,
                  "--verification exact: the shingle hashes compared keep "
                  "their top 32 or all 64 bits (32 matches a collection's "
                  "default evidence_bits, for its dump as --reference)")
      ->capture_default_str();
  sub->add_option("--bands", o.bands,
                  "LSH bands (0: chosen from --threshold and --verification)")
      ->capture_default_str();
  sub->add_option("--max-distance", o.max_distance,
                  "simhash: largest Hamming distance of a duplicate")
      ->capture_default_str();
  AddParsedOption(sub, "--simhash-variant", &o.simhash_variant,
                  ParseSimHashVariant,
                  "simhash: txtfp (default) or newsbot (MD5 per lowercase "
                  "ASCII alphanumeric token)");
  sub->add_option("--bits", o.simhash_bits,
                  "simhash --simhash-variant newsbot: 64 (shorter and 128-bit "
                  "SimHashes are for fingerprint and compare)")
      ->capture_default_str();
  AddContentTypeFlag(sub, &o.content_type);
  sub->add_flag("--explain", o.explain,
                "with --clusters: list the passages each removed document "
                "shares with its representative (byte ranges of the "
                "records' texts; reads the inputs a second time)");
  sub->add_option("--winnow-window", o.winnow_window,
                  "perceptual: winnowing window in shingles (1 keeps every "
                  "shingle)")
      ->capture_default_str();
  sub->add_option("--expected-docs", o.expected_docs,
                  "lshbloom: documents to size the Bloom filters for (0: "
                  "estimated from the input size)")
      ->capture_default_str();
  sub->add_option("--bloom-fp", o.bloom_false_positive,
                  "lshbloom: target chance that a unique document is taken "
                  "for a duplicate")
      ->capture_default_str();
  sub->add_option("--min-length", o.min_length,
                  "suffix-array: shortest repeated span to remove, in bytes")
      ->capture_default_str();
  sub->add_option("--threads", o.threads,
                  "Fingerprinting threads (0: one per core)")
      ->capture_default_str();
  sub->add_option("--clusters", o.clusters_path,
                  "Write one JSON line per duplicate cluster");
  sub->add_option("--stats", o.stats_path, "Write run statistics as JSON");
  sub->add_option("--spans", o.spans_path,
                  "suffix-array: write one JSON line per removed span");
  sub->add_flag("--skip-invalid", o.skip_invalid,
                "Count and drop malformed records instead of stopping");
  sub->add_flag("--drop-empty", o.drop_empty,
                "Drop documents without tokens (kept by default)");
  sub->add_option("--max-record-bytes", o.input.max_record_bytes,
                  "Refuse a record (a line, or a file with --doc-per-file) "
                  "longer than this many bytes instead of buffering it whole")
      ->capture_default_str();
  sub->add_flag_callback(
      "--no-progress", [&o] { o.progress = false; },
      "No progress line on stderr (shown only on a terminal)");
  AddFingerprintFlags(sub, &o.fingerprint);
  sub->add_option("--reference", o.references,
                  "Staged run: a corpus to dedup against, read-only (an "
                  "earlier staged run's --work-dir, or a `neardup export "
                  "--with-signatures` dump); repeatable, taken in order "
                  "before the inputs; its documents are never written")
      ->allow_extra_args(false);
  sub->add_option("--tasks", cmd->tasks,
                  "Run in stages of this many tasks each, sharing files under "
                  "--work-dir (same output as one process; docs/dedup.md)")
      ->capture_default_str();
  sub->add_option("--work-dir", cmd->work_dir,
                  "Staged run: where its tasks write their files (a shared "
                  "filesystem for tasks on several machines); a rerun with "
                  "the same options resumes where the last one stopped");
  sub->add_option("--memory", cmd->memory,
                  "Staged run: what each task may hold in memory for its "
                  "sorts (512M, 2G, ...); past it, sorted runs spill to "
                  "--work-dir")
      ->capture_default_str();
  sub->add_option("--runner", cmd->runner,
                  "Staged run: local (processes on this machine) or slurm "
                  "(a job array per stage, submitted with sbatch)")
      ->capture_default_str();
  sub->add_option("--slurm-option", cmd->slurm_options,
                  "Staged run on Slurm: an sbatch option for every stage's "
                  "job (repeatable), e.g. --slurm-option=--partition=cpu");
  sub->add_flag("--plan-only", cmd->plan_only,
                "Staged run: write the plan into --work-dir and return; the "
                "tasks are then run with `neardup dedup-task` (Kubernetes "
                "indexed jobs, deploy/k8s/dedup, or any scheduler)");
  sub->add_flag("--no-wait", cmd->no_wait,
                "Staged run on Slurm: submit the jobs and return (rerun the "
                "command later to wait for them and get the stats)");
  sub->add_option("--parallel", cmd->parallel,
                  "Staged run, local runner: tasks at once (0: one per core)")
      ->capture_default_str();
  return sub;
}

absl::Status RunDedupCommand(const DedupCommand& cmd, std::ostream& out) {
  const dedup::DedupOptions& options = cmd.options;
  dedup::RunStats stats;
  if (cmd.tasks > 0 || !cmd.work_dir.empty()) {
    ASSIGN_OR_RETURN(const std::optional<dedup::RunStats> staged,
                     RunStagedDedup(cmd, out));
    if (!staged) return absl::OkStatus();  // submitted, not waited for
    stats = *staged;
  } else {
    ASSIGN_OR_RETURN(stats, dedup::RunDedup(options));
  }
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
