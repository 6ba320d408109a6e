#ifndef NEARDUP_CORE_INDEX_LSH_PARAMS_H_
#define NEARDUP_CORE_INDEX_LSH_PARAMS_H_

// Banding of a MinHash signature for locality-sensitive hashing: the first
// bands x rows of the H slots are cut into `bands` bands of `rows`
// consecutive slots; two documents become candidates when any band matches
// exactly. Slots past the bands still count when a candidate is scored.

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace neardup {

struct LshParams {
  int bands = 16;
  int rows = 8;

  // Slots the bands cover. 64-bit on purpose: bands and rows arrive from
  // requests and stored records, and their product must never wrap.
  int64_t slots_used() const { return int64_t{bands} * rows; }
  bool operator==(const LshParams&) const = default;
};

// Probability that two documents with Jaccard similarity `s` share at least
// one band: 1 - (1 - s^r)^b.
double LshCandidateProbability(double s, const LshParams& params);

// txtfp-compatible choice of bands x rows for a Jaccard threshold `t`: over
// every divisor b of H (r = H / b) minimise FP + FN, where
//   FP = integral_0^t P(s) ds,  FN = integral_t^1 (1 - P(s)) ds,
// each a 200-interval trapezoid; the smallest b wins ties.
// H = 128: 0.5 -> 32x4, 0.7 -> 16x8, 0.8 -> 8x16, 0.9 -> 4x32.
// INVALID_ARGUMENT unless 0 < t < 1 and H > 0.
absl::StatusOr<LshParams> LshParamsForThreshold(double t, int num_perm);
// datasketch's choice (MinHashLSH's `weights`): over every b x r that fits
// in H slots (not only divisors), minimise fp_weight * FP + fn_weight * FN,
// integrated as above; the first (b, then r, ascending) wins ties.
// INVALID_ARGUMENT also for a negative weight or two zeros.
absl::StatusOr<LshParams> LshParamsWeighted(double t, int num_perm,
                                            double fp_weight, double fn_weight);

// Candidate probability a recall-first banding guarantees at its floor.
inline constexpr double kRecallFloorProbability = 0.995;

// How many of its bands a query may leave out and still find a pair at
// Jaccard `s` with probability >= `probability`: the largest k with
// 1 - (1 - s^r)^(b - k) >= probability, 0 when all b bands do not reach it.
// Computed by multiplications only, so every machine gets the same answer.
int SkippableBands(const LshParams& params, double s, double probability);

// How a collection picks its banding when none is given.
enum class BandingRule {
  // Among every b x r <= H with P(min_threshold) >= kRecallFloorProbability,
  // the one with the least S-curve area below the floor (the fewest useless
  // candidates); ties to fewer slots, then to fewer bands.
  kRecallFirst,
  // txtfp's LshParamsForThreshold(threshold): b x r == H, FP + FN balanced.
  kTxtfp,
};

// "recall-first" or "txtfp".
std::string_view BandingRuleName(BandingRule rule);
absl::StatusOr<BandingRule> ParseBandingRule(std::string_view name);

// The recall-first banding for a recall floor in (0, 1). H = 128:
// 0.4 -> 31x2, 0.5 -> 40x3, 0.6 -> 22x3, 0.7 -> 20x4, 0.8 -> 18x6,
// 0.9 -> 11x9 (pinned in lsh_params_test.cc).
// INVALID_ARGUMENT when no b x r <= H reaches kRecallFloorProbability at the
// floor (the message names the lowest floor H allows).
absl::StatusOr<LshParams> LshParamsRecallFirst(double floor, int num_perm);

// Integral_0^floor P(s) ds (200-interval trapezoid): the mass of candidates
// below the floor, which verification has to discard.
double CandidateAreaBelow(double floor, const LshParams& params);

// Largest MinHash width any index accepts; collections allow 64, 128, 256.
inline constexpr int kMaxNumPerm = 1024;

// INVALID_ARGUMENT unless 1 <= num_perm <= kMaxNumPerm, 1 <= bands <= num_perm,
// 1 <= rows <= num_perm and bands * rows <= num_perm (computed without
// overflow).
absl::Status ValidateLshParams(const LshParams& params, int num_perm);

// Band key: XXH3_64bits (seed 0) of the band's `rows` slots as little-endian
// bytes (txtfp-compatible).
uint64_t BandKey(const uint64_t* band_slots, int rows);
// The 32-bit tag an index files a band under (a mix of BandKey): documents
// sharing a band's tag are each other's candidates, whether their keys are
// equal or only their tags (the staged dedup pairs documents by it too).
uint32_t BandTag(const uint64_t* band_slots, int rows);

}  // namespace neardup

#endif  // NEARDUP_CORE_INDEX_LSH_PARAMS_H_
