#include "neardup/core/index/lsh_params.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/enum_tables.h"
#include "neardup/core/index/internal/key_chains.h"
#include "neardup/core/internal/inline_hash.h"

namespace neardup {
namespace {

constexpr int kIntegrationSteps = 200;

// Trapezoid rule over [lo, hi] with kIntegrationSteps intervals.
template <typename F>
double Integrate(F f, double lo, double hi) {
  const double step = (hi - lo) / kIntegrationSteps;
  double sum = 0.5 * (f(lo) + f(hi));
  for (int i = 1; i < kIntegrationSteps; ++i) sum += f(lo + i * step);
  return sum * step;
}

// fp_weight * FP + fn_weight * FN of `params` at threshold t.
double WeightedError(double t, const LshParams& params, double fp_weight,
                     double fn_weight) {
  auto p = [&](double s) { return LshCandidateProbability(s, params); };
  const double false_positive = Integrate(p, 0.0, t);
  const double false_negative =
      Integrate([&](double s) { return 1.0 - p(s); }, t, 1.0);
  return fp_weight * false_positive + fn_weight * false_negative;
}

absl::Status CheckThresholdAndWidth(double t, int num_perm) {
  if (!(t > 0.0 && t < 1.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("LSH threshold must be in (0, 1), got ", t));
  }
  if (num_perm < 1 || num_perm > kMaxNumPerm) {
    return absl::InvalidArgumentError(absl::StrCat(
        "num_perm must be in [1, ", kMaxNumPerm, "], got ", num_perm));
  }
  return absl::OkStatus();
}

}  // namespace

double LshCandidateProbability(double s, const LshParams& params) {
  return 1.0 - std::pow(1.0 - std::pow(s, params.rows), params.bands);
}

int SkippableBands(const LshParams& params, double s, double probability) {
  if (!(s > 0.0) || params.bands < 1 || params.rows < 1) return 0;
  double band_hit = 1.0;  // s^r
  for (int row = 0; row < params.rows; ++row) band_hit *= std::min(s, 1.0);
  double miss = 1.0;  // (1 - s^r)^m after m bands
  for (int used = 1; used <= params.bands; ++used) {
    miss *= 1.0 - band_hit;
    if (1.0 - miss >= probability) return params.bands - used;
  }
  return 0;
}

absl::StatusOr<LshParams> LshParamsForThreshold(double t, int num_perm) {
  RETURN_IF_ERROR(CheckThresholdAndWidth(t, num_perm));
  LshParams best{num_perm, 1};
  double best_error = INFINITY;
  for (int bands = 1; bands <= num_perm; ++bands) {
    if (num_perm % bands != 0) continue;
    const LshParams params{bands, num_perm / bands};
    const double error = WeightedError(t, params, 1.0, 1.0);
    if (error < best_error) {  // strict: the smallest b wins ties
      best_error = error;
      best = params;
    }
  }
  return best;
}

absl::StatusOr<LshParams> LshParamsWeighted(double t, int num_perm,
                                            double fp_weight,
                                            double fn_weight) {
  RETURN_IF_ERROR(CheckThresholdAndWidth(t, num_perm));
  if (!(fp_weight >= 0.0 && fn_weight >= 0.0 && fp_weight + fn_weight > 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("LSH weights must be >= 0 and not both 0, got (",
                     fp_weight, ", ", fn_weight, ")"));
  }
  LshParams best{1, num_perm};
  double best_error = INFINITY;
  for (int bands = 1; bands <= num_perm; ++bands) {
    for (int rows = 1; rows <= num_perm / bands; ++rows) {
      const LshParams params{bands, rows};
      const double error = WeightedError(t, params, fp_weight, fn_weight);
      if (error < best_error) {  // strict: the first (b, r) wins ties
        best_error = error;
        best = params;
      }
    }
  }
  return best;
}

std::string_view BandingRuleName(BandingRule rule) {
  return kBandingRules.Name(rule);
}

absl::StatusOr<BandingRule> ParseBandingRule(std::string_view name) {
  return kBandingRules.Parse(name);
}

double CandidateAreaBelow(double floor, const LshParams& params) {
  return Integrate([&](double s) { return LshCandidateProbability(s, params); },
                   0.0, floor);
}

absl::StatusOr<LshParams> LshParamsRecallFirst(double floor, int num_perm) {
  if (!(floor > 0.0 && floor < 1.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("recall floor must be in (0, 1), got ", floor));
  }
  if (num_perm < 1 || num_perm > kMaxNumPerm) {
    return absl::InvalidArgumentError(absl::StrCat(
        "num_perm must be in [1, ", kMaxNumPerm, "], got ", num_perm));
  }
  auto reaches = [&](const LshParams& p) {
    return LshCandidateProbability(floor, p) >= kRecallFloorProbability;
  };
  std::optional<LshParams> best;
  double best_area = INFINITY;
  for (int rows = 1; rows <= num_perm; ++rows) {
    // P grows with the bands, so the fewest bands that reach the floor give
    // this row count's smallest area.
    const int max_bands = num_perm / rows;
    const double miss = 1.0 - std::pow(floor, rows);
    // floor^rows below double precision: no number of bands helps.
    if (!(miss < 1)) continue;
    // Both logs are negative, so the estimate is >= 1 (or +inf).
    const double estimate =
        std::ceil(std::log(1.0 - kRecallFloorProbability) / std::log(miss));
    if (!(estimate <= max_bands)) continue;
    LshParams params{std::max(1, static_cast<int>(estimate)), rows};
    while (params.bands > 1 && reaches(LshParams{params.bands - 1, rows})) {
      --params.bands;
    }
    while (params.bands < max_bands && !reaches(params)) ++params.bands;
    if (!reaches(params)) continue;
    const double area = CandidateAreaBelow(floor, params);
    const bool better =
        !best || area < best_area ||
        (area == best_area && (params.slots_used() < best->slots_used() ||
                               (params.slots_used() == best->slots_used() &&
                                params.bands < best->bands)));
    if (better) {
      best = params;
      best_area = area;
    }
  }
  if (!best) {
    // One row in every slot has the highest P at any floor.
    const double lowest =
        1.0 - std::pow(1.0 - kRecallFloorProbability, 1.0 / num_perm);
    return absl::InvalidArgumentError(absl::StrCat(
        "no banding of ", num_perm, " slots finds ",
        kRecallFloorProbability * 100, "% of the pairs at Jaccard ", floor,
        "; the lowest floor ", num_perm, " slots allow is ",
        std::ceil(lowest * 1000) / 1000, " (or use more slots)"));
  }
  return *best;
}

absl::Status ValidateLshParams(const LshParams& params, int num_perm) {
  if (num_perm < 1 || num_perm > kMaxNumPerm) {
    return absl::InvalidArgumentError(absl::StrCat(
        "num_perm must be in [1, ", kMaxNumPerm, "], got ", num_perm));
  }
  if (params.bands < 1 || params.bands > num_perm || params.rows < 1 ||
      params.rows > num_perm || params.slots_used() > num_perm) {
    return absl::InvalidArgumentError(absl::StrCat(
        "LSH bands x rows must be positive and cover at most "
        "num_perm (",
        num_perm, ") slots, got ", params.bands, " x ", params.rows));
  }
  return absl::OkStatus();
}

uint64_t BandKey(const uint64_t* band_slots, int rows) {
  // The slots are already little-endian in memory on every supported target.
  static_assert(std::endian::native == std::endian::little);
  return XXH3_64bits(band_slots, sizeof(uint64_t) * rows);
}

uint32_t BandTag(const uint64_t* band_slots, int rows) {
  return index_internal::TagOf(BandKey(band_slots, rows));
}

}  // namespace neardup
