#include "neardup/core/minhash.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/config_hash.h"
#include "neardup/core/internal/minhash_kernel.h"
#include "neardup/core/internal/token_hashing.h"
#include "neardup/core/shingle_set.h"

namespace neardup {
namespace {

bool ValidNumPerm(int h) { return h == 64 || h == 128 || h == 256; }

absl::Status EmptyDocument() {
  return absl::InvalidArgumentError("empty document: no tokens to fingerprint");
}

}  // namespace

std::string MinHashSignature::Serialize() const {
  std::string out(8 + 8 * slots.size(), '\0');
  out[0] = static_cast<char>(kMinHashSchema & 0xFF);
  out[1] = static_cast<char>(kMinHashSchema >> 8);
  // Little-endian hosts only (x86-64, AArch64 Linux): slots copy verbatim.
  std::memcpy(out.data() + 8, slots.data(), 8 * slots.size());
  return out;
}

absl::StatusOr<MinHashSignature> MinHashSignature::Parse(
    std::string_view bytes) {
  if (bytes.size() < 8 || (bytes.size() - 8) % 8 != 0 ||
      !ValidNumPerm(static_cast<int>((bytes.size() - 8) / 8))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "MinHash signature has ", bytes.size(),
        " bytes; expected 8 + 8*H with H in {64, 128, 256} (520, 1032 or "
        "2056)"));
  }
  const uint16_t schema =
      static_cast<uint8_t>(bytes[0]) |
      (static_cast<uint16_t>(static_cast<uint8_t>(bytes[1])) << 8);
  if (schema != kMinHashSchema) {
    return absl::InvalidArgumentError(
        absl::StrCat("MinHash signature schema ", schema, " is not supported (",
                     "expected ", kMinHashSchema, ")"));
  }
  for (int i = 2; i < 8; ++i) {
    if (bytes[i] != 0) {
      return absl::InvalidArgumentError(
          "MinHash signature padding bytes 2..7 must be zero");
    }
  }
  MinHashSignature sig;
  sig.slots.resize((bytes.size() - 8) / 8);
  std::memcpy(sig.slots.data(), bytes.data() + 8, bytes.size() - 8);
  return sig;
}

double EstimateJaccardUnchecked(const uint64_t* a, const uint64_t* b, int h) {
  int equal = 0;
  for (int i = 0; i < h; ++i) equal += a[i] == b[i];
  return static_cast<double>(equal) / h;
}

absl::StatusOr<double> EstimateJaccard(const MinHashSignature& a,
                                       const MinHashSignature& b) {
  if (a.slots.size() != b.slots.size() || a.slots.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot compare MinHash signatures of width ",
                     a.slots.size(), " and ", b.slots.size()));
  }
  return EstimateJaccardUnchecked(a.slots.data(), b.slots.data(), a.num_perm());
}

double EstimateFloorForExact(double threshold, int num_perm) {
  constexpr double kMissProbability = 1e-6;
  if (threshold <= 0) return 0;
  if (threshold >= 1) threshold = 1;
  const int h = num_perm;
  if (threshold == 1) return 1.0;
  // Lower tail P(X <= c) from c = 0 up, the pmf by its recurrence
  // P(k + 1) = P(k) (h - k) / (k + 1) t / (1 - t), in log space (P(0) =
  // (1 - t)^h underflows for large h). No lgamma: it writes a global.
  const double log_ratio = std::log(threshold) - std::log1p(-threshold);
  double log_pmf = h * std::log1p(-threshold);
  double tail = 0;
  int c = 0;
  for (; c <= h; ++c) {
    if (c > 0) {
      log_pmf += std::log(static_cast<double>(h - c + 1) / c) + log_ratio;
    }
    tail += std::exp(log_pmf);
    if (tail > kMissProbability) break;  // P(X <= c) too likely: keep c
  }
  return static_cast<double>(c) / h;
}

double ExactJaccard(std::span<const Hash128> a, std::span<const Hash128> b) {
  if (a.empty() && b.empty()) return 1.0;
  size_t i = 0, j = 0, common = 0;
  while (i < a.size() && j < b.size()) {
    const bool a_less =
        a[i].lo != b[j].lo ? a[i].lo < b[j].lo : a[i].hi < b[j].hi;
    if (a[i] == b[j]) {
      ++common, ++i, ++j;
    } else if (a_less) {
      ++i;
    } else {
      ++j;
    }
  }
  return static_cast<double>(common) /
         static_cast<double>(a.size() + b.size() - common);
}

void FoldTokenHashes(std::span<const Hash128> hashes,
                     std::span<uint64_t> slots) {
  if (hashes.empty() || slots.empty()) return;
  // The kernel writes fresh slots; a small stack batch keeps folds cheap.
  constexpr size_t kStackSlots = 256;
  uint64_t stack[kStackSlots];
  std::vector<uint64_t> heap;
  uint64_t* fresh = stack;
  if (slots.size() > kStackSlots) {
    heap.resize(slots.size());
    fresh = heap.data();
  }
  internal::MinHashSlots(hashes.data(), hashes.size(),
                         static_cast<int>(slots.size()), fresh);
  for (size_t i = 0; i < slots.size(); ++i) {
    slots[i] = std::min(slots[i], fresh[i]);
  }
}

MinHasher::MinHasher(MinHashConfig config, Canonicalizer canonicalizer,
                     std::shared_ptr<const Tokenizer> tokenizer)
    : config_(std::move(config)),
      canonicalizer_(std::move(canonicalizer)),
      tokenizer_(std::move(tokenizer)) {
  config_hash_ = ConfigHash(canonicalizer_.ConfigString(), tokenizer_->Name(),
                            algorithm(), config_.family, config_.seed);
}

absl::StatusOr<MinHasher> MinHasher::Create(const MinHashConfig& config) {
  if (!ValidNumPerm(config.num_perm)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "num_perm must be 64, 128 or 256 (got ", config.num_perm, ")"));
  }
  ASSIGN_OR_RETURN(Canonicalizer canonicalizer,
                   Canonicalizer::Create(config.canonicalizer));
  ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> tokenizer,
                   MakeTokenizer(config.tokenizer));
  MinHashConfig normalized = config;
  normalized.tokenizer = tokenizer->Name();
  return MinHasher(std::move(normalized), std::move(canonicalizer),
                   std::shared_ptr<const Tokenizer>(std::move(tokenizer)));
}

std::string MinHasher::algorithm() const {
  return absl::StrCat("minhash-h", config_.num_perm);
}

absl::StatusOr<MinHashSignature> MinHasher::Fingerprint(
    std::string_view text) const {
  ASSIGN_OR_RETURN(std::string_view canonical,
                   internal::CanonicalizeToScratch(canonicalizer_, text));
  return FingerprintCanonical(canonical);
}

absl::StatusOr<MinHashSignature> MinHasher::Fingerprint(
    std::string_view text, std::vector<uint64_t>* shingles) const {
  ASSIGN_OR_RETURN(std::string_view canonical,
                   internal::CanonicalizeToScratch(canonicalizer_, text));
  return FingerprintCanonical(canonical, shingles);
}

absl::StatusOr<MinHashSignature> MinHasher::FingerprintWithRawHashes(
    std::string_view text, std::vector<uint64_t>* raw_hashes) const {
  ASSIGN_OR_RETURN(std::string_view canonical,
                   internal::CanonicalizeToScratch(canonicalizer_, text));
  return FingerprintHashes(canonical, raw_hashes, /*sort_unique=*/false);
}

absl::StatusOr<MinHashSignature> MinHasher::FingerprintCanonical(
    std::string_view canonical, std::vector<uint64_t>* shingles) const {
  return FingerprintHashes(canonical, shingles, /*sort_unique=*/true);
}

absl::StatusOr<MinHashSignature> MinHasher::FingerprintHashes(
    std::string_view canonical, std::vector<uint64_t>* shingles,
    bool sort_unique) const {
  std::vector<Hash128>& hashes = internal::TokenHashScratch(canonical.size());
  hashes.clear();
  internal::HashTokens(*tokenizer_, config_.family, config_.seed, canonical,
                       &hashes);
  if (hashes.empty()) return EmptyDocument();
  MinHashSignature sig;
  sig.slots.resize(config_.num_perm);
  internal::MinHashSlots(hashes.data(), hashes.size(), config_.num_perm,
                         sig.slots.data());
  if (shingles != nullptr) {
    shingles->clear();  // reused buffers keep their capacity
    shingles->reserve(hashes.size());
    for (const Hash128& h : hashes) shingles->push_back(h.lo);
    if (sort_unique) SortUniqueHashes(shingles);
  }
  return sig;
}

absl::StatusOr<std::vector<Hash128>> MinHasher::TokenSet(
    std::string_view text) const {
  ASSIGN_OR_RETURN(std::string_view canonical,
                   internal::CanonicalizeToScratch(canonicalizer_, text));
  std::vector<Hash128> set;
  internal::HashTokens(*tokenizer_, config_.family, config_.seed, canonical,
                       &set);
  internal::SortUnique(&set);
  return set;
}

}  // namespace neardup
