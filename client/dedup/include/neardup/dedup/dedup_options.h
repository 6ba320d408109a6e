#ifndef NEARDUP_DEDUP_DEDUP_OPTIONS_H_
#define NEARDUP_DEDUP_DEDUP_OPTIONS_H_

// Everything `neardup dedup` can be told, as one plain struct with defaults.
// The CLI fills it from flags; tests fill it directly.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "neardup/core/enum_tables.h"
#include "neardup/core/fingerprint_settings.h"
#include "neardup/core/newsbot_simhash.h"
#include "neardup/core/perceptual.h"
#include "neardup/dataset/input_files.h"

namespace neardup::dedup {

enum class Algorithm {
  kMinHashLsh,
  kLshBloom,
  kSimHash,
  kSuffixArray,
  kPerceptual,  // UCFP's rolling shingles + winnowing + MinHash, via LSH
};
enum class Verify {
  kNone,      // an index hit is a duplicate
  kEstimate,  // MinHash estimate >= threshold (SimHash: Hamming <= k)
  kExact,     // exact Jaccard of the shingle sets >= threshold
};

// The CLI's --method and --verification names (plan.json and --stats write
// them too); neither enum is in the API or the store, so both numbers are 0.
inline constexpr EnumTable<Algorithm, 5> kDedupMethods{
    "--method",
    {{{Algorithm::kMinHashLsh, "minhash-lsh", "minhash", 0, 0},
      {Algorithm::kLshBloom, "lshbloom", "", 0, 0},
      {Algorithm::kSimHash, "simhash", "", 0, 0},
      {Algorithm::kSuffixArray, "suffix-array", "", 0, 0},
      {Algorithm::kPerceptual, "perceptual", "", 0, 0}}}};
inline constexpr EnumTable<Verify, 3> kDedupVerifications{
    "--verification",
    {{{Verify::kExact, "exact", "", 0, 0},
      {Verify::kNone, "none", "", 0, 0},
      {Verify::kEstimate, "estimate", "", 0, 0}}}};

struct DedupOptions {
  // Inputs, format, text field, --doc-per-file, --max-record-bytes: read the
  // same way as `neardup ingest` reads them.
  dataset::DatasetOptions input;
  std::string output;   // file (directory with input.doc_per_file)
  bool stream = false;  // stdin -> stdout, record by record

  Algorithm algorithm = Algorithm::kMinHashLsh;
  Verify verify = Verify::kExact;  // lshbloom needs kEstimate or kNone
  double threshold = 0.85;         // Jaccard
  // --verification exact: the shingle hashes keep their top 32 or all 64
  // bits, as a collection's evidence_bits (a dump of a 32-bit collection
  // is a reference of a 32-bit run only). 64 is exact to the hash.
  int evidence_bits = 64;
  // 0: chosen from threshold and verify (see ChooseBanding).
  int bands = 0;
  int max_distance = kDefaultSimHashMaxDistance;  // simhash: Hamming radius k
  SimHashVariant simhash_variant = SimHashVariant::kTxtfp;
  int simhash_bits = kDefaultNewsbotBits;  // newsbot: 16, 32 or 64
  // perceptual: winnowing window in shingles (shingles are
  // fingerprint.shingle_k tokens, 0 meaning 9; the signature has
  // fingerprint.num_perm slots).
  int winnow_window = kDefaultWinnowWindow;
  uint64_t expected_docs = 0;  // lshbloom: 0 = estimate from input size
  double bloom_false_positive = 0.001;  // lshbloom: per-document target
  int min_length = 50;                  // suffix-array: bytes

  // Tokenizer, shingles, num_perm, seed, hash family, weighting and
  // canonicalizer: the same vocabulary as the CLI and the server.
  FingerprintSettings fingerprint;

  int threads = 0;  // fingerprint workers; 0 = hardware threads
  size_t batch_records = 2048;
  size_t batch_bytes = 1 << 20;

  bool skip_invalid = false;  // count and drop malformed records
  bool drop_empty = false;    // drop documents with no tokens
  std::string clusters_path;  // JSON line per cluster
  // With clusters_path: each cluster also lists the passages every removed
  // member shares with its representative (a second read of the inputs).
  bool explain = false;
  // What the records' texts hold: text/plain, text/html, text/markdown or
  // application/pdf. Empty: plain text, or with --doc-per-file by each
  // file's extension (.html/.htm, .md/.markdown, .pdf).
  std::string content_type;
  std::string stats_path;  // JSON object
  // Staged runs: corpora the inputs are deduplicated against, read-only,
  // in this order before the inputs: the work directory of an earlier
  // staged run (its kept documents) or a `neardup export --with-signatures`
  // dump (all its documents). Documents near one of theirs are removed;
  // theirs are never written.
  std::vector<std::string> references;
  std::string spans_path;  // suffix-array: removed spans
  bool progress = true;    // shown only when stderr is a terminal
};

// "minhash-lsh" (or "minhash"), "lshbloom", "simhash", "suffix-array",
// "perceptual".
absl::StatusOr<Algorithm> ParseAlgorithm(std::string_view name);
std::string_view AlgorithmName(Algorithm algorithm);
// The perceptual config of these options (k, w, num_perm, seed).
PerceptualConfig PerceptualConfigOf(const DedupOptions& options);
// "none", "estimate", "exact".
absl::StatusOr<Verify> ParseVerify(std::string_view name);
std::string_view VerifyName(Verify verify);

// Checks ranges and combinations once, before any input is read.
absl::Status ValidateOptions(const DedupOptions& options);
// The part of ValidateOptions about what is computed and decided (method,
// verification, fingerprints, threads), not about files: what a dedup of
// documents in memory (InMemoryDedup) checks.
absl::Status ValidateMethodOptions(const DedupOptions& options);

}  // namespace neardup::dedup

#endif  // NEARDUP_DEDUP_DEDUP_OPTIONS_H_
