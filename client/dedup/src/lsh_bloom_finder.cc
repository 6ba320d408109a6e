// lshbloom (LSHBloom, arXiv 2411.04257): the LSH band keys of the kept
// documents go into one Bloom filter per band instead of hash tables, so
// memory is a few bytes per document whatever the corpus. A document is a
// duplicate when any of its band keys was seen in that band. Nothing else is
// kept, so matches cannot be verified or traced to a representative.

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "duplicate_finder.h"
#include "neardup/base/status_macros.h"
#include "neardup/dedup/internal/bloom_filter.h"

namespace neardup::dedup {
namespace {

class LshBloomFinder : public DuplicateFinder {
 public:
  LshBloomFinder(LshParams lsh, uint64_t expected_docs, double doc_fp)
      : lsh_(lsh), expected_docs_(expected_docs) {
    // P(doc false positive) = 1 - (1 - p_band)^bands.
    band_fp_ = 1.0 - std::pow(1.0 - doc_fp, 1.0 / lsh.bands);
    filters_.reserve(lsh.bands);
    for (int b = 0; b < lsh.bands; ++b) {
      filters_.emplace_back(expected_docs, band_fp_);
    }
  }

  absl::StatusOr<std::optional<Match>> FindOrKeep(
      uint32_t /*doc*/, DocFingerprint* fingerprint) override {
    const std::vector<uint64_t>& slots = fingerprint->minhash.slots;
    if (static_cast<int64_t>(slots.size()) != lsh_.slots_used()) {
      return absl::InternalError("signature width does not match the bands");
    }
    keys_.resize(lsh_.bands);
    bool seen = false;
    for (int b = 0; b < lsh_.bands; ++b) {
      keys_[b] = BandKey(slots.data() + b * lsh_.rows, lsh_.rows);
      seen = seen || filters_[b].MayContain(keys_[b]);
    }
    if (seen) {
      return Match{kUnknownDoc, std::numeric_limits<double>::quiet_NaN()};
    }
    for (int b = 0; b < lsh_.bands; ++b) filters_[b].Insert(keys_[b]);
    ++kept_;
    return std::nullopt;
  }

  size_t MemoryBytes() const override {
    size_t bytes = 0;
    for (const BloomFilter& f : filters_) bytes += f.MemoryBytes();
    return bytes;
  }

  nlohmann::ordered_json Stats() const override {
    const double per_doc =
        static_cast<double>(MemoryBytes()) /
        static_cast<double>(std::max<uint64_t>(expected_docs_, 1));
    return {{"bands", lsh_.bands},
            {"rows", lsh_.rows},
            {"expected_docs", expected_docs_},
            {"bloom_bytes", MemoryBytes()},
            {"bloom_bytes_per_expected_doc", per_doc},
            {"bloom_probes", filters_.front().num_probes()},
            {"band_false_positive", band_fp_},
            {"kept", kept_}};
  }

  bool names_representatives() const override { return false; }

 private:
  LshParams lsh_;
  uint64_t expected_docs_;
  double band_fp_ = 0;
  std::vector<BloomFilter> filters_;
  std::vector<uint64_t> keys_;
  uint64_t kept_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<DuplicateFinder>> MakeLshBloomFinder(
    const DedupOptions& options, uint64_t expected_docs) {
  // Without verification the band curve itself must sit on the threshold.
  ASSIGN_OR_RETURN(LshParams lsh, ChooseBanding(options.threshold,
                                                options.fingerprint.num_perm,
                                                Verify::kNone, options.bands));
  return std::make_unique<LshBloomFinder>(lsh, expected_docs,
                                          options.bloom_false_positive);
}

}  // namespace neardup::dedup
