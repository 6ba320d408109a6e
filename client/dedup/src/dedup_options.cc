#include "neardup/dedup/dedup_options.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/perceptual.h"
#include "neardup/core/shingle_set.h"
#include "neardup/extract/content_type.h"

namespace neardup::dedup {
namespace {

// Dedup's SimHash index splits 64 bits into blocks: it takes 64-bit
// SimHashes only.
constexpr int kIndexedSimHashBits = 64;

}  // namespace

absl::StatusOr<Algorithm> ParseAlgorithm(std::string_view name) {
  return kDedupMethods.Parse(name);
}

PerceptualConfig PerceptualConfigOf(const DedupOptions& options) {
  return neardup::PerceptualConfigOf(options.fingerprint,
                                     options.winnow_window);
}

std::string_view AlgorithmName(Algorithm algorithm) {
  return kDedupMethods.Name(algorithm);
}

absl::StatusOr<Verify> ParseVerify(std::string_view name) {
  return kDedupVerifications.Parse(name);
}

std::string_view VerifyName(Verify verify) {
  return kDedupVerifications.Name(verify);
}

absl::Status ValidateMethodOptions(const DedupOptions& o) {
  if (!(o.threshold > 0.0 && o.threshold < 1.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--threshold must be in (0, 1), got ", o.threshold));
  }
  if (o.threads < 0 || o.threads > 256) {
    return absl::InvalidArgumentError("--threads must be in [0, 256]");
  }
  if (o.max_distance < 0 || o.max_distance > 32) {
    return absl::InvalidArgumentError("--max-distance must be in [0, 32]");
  }
  if (!(o.bloom_false_positive > 0.0 && o.bloom_false_positive < 0.5)) {
    return absl::InvalidArgumentError("--bloom-fp must be in (0, 0.5)");
  }
  if (o.min_length < 8) {
    return absl::InvalidArgumentError("--min-length must be at least 8");
  }
  if (o.algorithm == Algorithm::kLshBloom) {
    if (o.verify == Verify::kExact) {
      return absl::InvalidArgumentError(
          "lshbloom keeps no documents, so it cannot verify exactly; use "
          "--verification estimate (or none) with lshbloom, or --method "
          "minhash-lsh for --verification exact");
    }
  }
  if (o.simhash_variant == SimHashVariant::kNewsbot) {
    if (o.algorithm != Algorithm::kSimHash) {
      return absl::InvalidArgumentError(
          "--simhash-variant newsbot needs --method simhash");
    }
    if (o.simhash_bits != kIndexedSimHashBits) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--bits must be 64 for dedup, got ", o.simhash_bits,
          ": its SimHash index splits 64 bits into blocks, and shorter "
          "fingerprints would leave most blocks zero (every document a "
          "candidate of every other); 16-, 32- and 128-bit newsbot SimHashes "
          "are for fingerprint and compare"));
    }
  } else if (o.simhash_bits != kIndexedSimHashBits) {
    return absl::InvalidArgumentError(
        "--bits applies to --simhash-variant newsbot only (txtfp's SimHash "
        "has 64 bits)");
  }
  if (o.algorithm == Algorithm::kPerceptual) {
    const absl::Status valid = ValidatePerceptualConfig(PerceptualConfigOf(o));
    if (!valid.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          valid.message(), " (--ngram sets k, --winnow-window sets w)"));
    }
  } else if (o.winnow_window != kDefaultWinnowWindow) {
    return absl::InvalidArgumentError(
        "--winnow-window applies to --method perceptual only");
  }
  if (o.batch_records == 0 || o.batch_bytes == 0) {
    return absl::InvalidArgumentError("batch sizes must be positive");
  }
  if (!ValidEvidenceBits(o.evidence_bits)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--evidence-bits must be 32 or 64, got ", o.evidence_bits));
  }
  if (o.evidence_bits != 64 && o.algorithm == Algorithm::kSuffixArray) {
    return absl::InvalidArgumentError(
        "--evidence-bits narrows the shingle sets of --verification exact; "
        "suffix-array compares spans of text and keeps none");
  }
  if (o.evidence_bits != 64 && o.verify != Verify::kExact) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--evidence-bits ", o.evidence_bits,
        " narrows the shingle sets of --verification exact; this run "
        "verifies by ",
        AbslView(VerifyName(o.verify)), " and keeps none"));
  }
  return absl::OkStatus();
}

absl::Status ValidateOptions(const DedupOptions& o) {
  RETURN_IF_ERROR(ValidateMethodOptions(o));
  if (o.stream && !(o.input.inputs.empty() ||
                    (o.input.inputs.size() == 1 && o.input.inputs[0] == "-"))) {
    return absl::InvalidArgumentError(
        "--stream reads standard input only (give no input, or -)");
  }
  if (!o.stream && o.output.empty()) {
    return absl::InvalidArgumentError("missing -o OUTPUT (or use --stream)");
  }
  if (o.algorithm == Algorithm::kLshBloom) {
    if (!o.clusters_path.empty()) {
      return absl::InvalidArgumentError(
          "lshbloom cannot name cluster representatives (it keeps no "
          "documents); --clusters needs minhash-lsh or simhash");
    }
  }
  if (!o.content_type.empty()) {
    if (auto type = extract::ParseContentType(o.content_type); !type.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--content-type: ", type.status().message()));
    }
  }
  if (o.explain) {
    if (o.clusters_path.empty()) {
      return absl::InvalidArgumentError(
          "--explain adds passages to the clusters: it needs --clusters FILE");
    }
    // The passages come from a second read of the inputs.
    if (o.stream || std::find(o.input.inputs.begin(), o.input.inputs.end(),
                              "-") != o.input.inputs.end()) {
      return absl::InvalidArgumentError(
          "--explain reads the inputs a second time, so it cannot read "
          "standard input (-) or --stream; save the input to a file first");
    }
  }
  if (o.input.max_record_bytes < 1) {
    return absl::InvalidArgumentError("--max-record-bytes must be at least 1");
  }
  if (o.algorithm == Algorithm::kSuffixArray) {
    if (o.stream) {
      return absl::InvalidArgumentError(
          "suffix-array needs the whole corpus; it cannot --stream");
    }
    // It reads its input twice (corpus, then output): a pipe would be empty
    // the second time and the output silently empty.
    for (const std::string& input : o.input.inputs) {
      if (input == "-") {
        return absl::InvalidArgumentError(
            "suffix-array reads its input twice, so it cannot read standard "
            "input (-); save it to a file first");
      }
    }
    if (o.input.doc_per_file) {
      return absl::InvalidArgumentError(
          "suffix-array rewrites records; it does not support "
          "--doc-per-file");
    }
    if (!o.clusters_path.empty()) {
      return absl::InvalidArgumentError(
          "suffix-array removes spans, not documents: use --spans FILE "
          "instead of --clusters");
    }
    if (!o.content_type.empty()) {
      return absl::InvalidArgumentError(
          "suffix-array rewrites the text of records, so it reads plain text "
          "only (no --content-type)");
    }
  } else if (!o.spans_path.empty()) {
    return absl::InvalidArgumentError("--spans needs --method suffix-array");
  }
  return absl::OkStatus();
}

}  // namespace neardup::dedup
