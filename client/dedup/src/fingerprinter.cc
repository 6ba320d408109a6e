#include "fingerprinter.h"

#include <simdjson.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"

namespace neardup::dedup {

absl::StatusOr<Fingerprinter> Fingerprinter::Create(
    const DedupOptions& options) {
  Fingerprinter f;
  f.algorithm_ = options.algorithm;
  f.exact_ = options.verify == Verify::kExact;
  // The MinHasher also defines the token sets for exact verification.
  ASSIGN_OR_RETURN(const MinHashConfig minhash_config,
                   MinHashConfigOf(options.fingerprint));
  ASSIGN_OR_RETURN(MinHasher minhash, MinHasher::Create(minhash_config));
  f.minhash_.emplace(std::move(minhash));
  if (options.algorithm == Algorithm::kSimHash) {
    ASSIGN_OR_RETURN(const SimHashConfig simhash_config,
                     SimHashConfigOf(options.fingerprint));
    ASSIGN_OR_RETURN(SimHasher simhash, SimHasher::Create(simhash_config));
    f.simhash_.emplace(std::move(simhash));
  }
  return f;
}

void Fingerprinter::Compute(std::string_view text, DocFingerprint* out) const {
  out->kind = DocFingerprint::Kind::kOk;
  out->error.clear();
  out->token_set.clear();
  if (!simdjson::validate_utf8(text.data(), text.size())) {
    out->kind = DocFingerprint::Kind::kInvalid;
    out->error = "invalid UTF-8 in the text";
    return;
  }
  // With valid UTF-8 the only document error left is "no tokens".
  if (algorithm_ == Algorithm::kSimHash) {
    absl::StatusOr<uint64_t> hash = simhash_->Fingerprint(text);
    if (!hash.ok()) {
      out->kind = DocFingerprint::Kind::kEmpty;
      return;
    }
    out->simhash = *hash;
  } else {
    absl::StatusOr<MinHashSignature> sig = minhash_->Fingerprint(text);
    if (!sig.ok()) {
      out->kind = DocFingerprint::Kind::kEmpty;
      return;
    }
    out->minhash = *std::move(sig);
  }
  if (exact_) {
    absl::StatusOr<std::vector<Hash128>> set = minhash_->TokenSet(text);
    if (!set.ok()) {
      out->kind = DocFingerprint::Kind::kEmpty;
      return;
    }
    // TokenSet is sorted by (lo, hi): the low halves come out sorted.
    out->token_set.reserve(set->size());
    for (const Hash128& h : *set) {
      if (out->token_set.empty() || out->token_set.back() != h.lo) {
        out->token_set.push_back(h.lo);
      }
    }
  }
}

double ExactJaccard64(const uint64_t* a, size_t a_size, const uint64_t* b,
                      size_t b_size) {
  if (a_size == 0 && b_size == 0) return 1.0;
  size_t i = 0, j = 0, common = 0;
  while (i < a_size && j < b_size) {
    if (a[i] == b[j]) {
      ++common, ++i, ++j;
    } else if (a[i] < b[j]) {
      ++i;
    } else {
      ++j;
    }
  }
  return static_cast<double>(common) /
         static_cast<double>(a_size + b_size - common);
}

}  // namespace neardup::dedup
