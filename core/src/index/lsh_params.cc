#include "neardup/core/index/lsh_params.h"

#include <bit>
#include <cmath>

#include "absl/strings/str_cat.h"
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

}  // namespace

double LshCandidateProbability(double s, const LshParams& params) {
  return 1.0 - std::pow(1.0 - std::pow(s, params.rows), params.bands);
}

absl::StatusOr<LshParams> LshParamsForThreshold(double t, int num_perm) {
  if (!(t > 0.0 && t < 1.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("LSH threshold must be in (0, 1), got ", t));
  }
  if (num_perm < 1 || num_perm > kMaxNumPerm) {
    return absl::InvalidArgumentError(absl::StrCat(
        "num_perm must be in [1, ", kMaxNumPerm, "], got ", num_perm));
  }
  LshParams best{num_perm, 1};
  double best_error = INFINITY;
  for (int bands = 1; bands <= num_perm; ++bands) {
    if (num_perm % bands != 0) continue;
    const LshParams params{bands, num_perm / bands};
    auto p = [&](double s) { return LshCandidateProbability(s, params); };
    const double false_positive = Integrate(p, 0.0, t);
    const double false_negative =
        Integrate([&](double s) { return 1.0 - p(s); }, t, 1.0);
    const double error = false_positive + false_negative;
    if (error < best_error) {  // strict: the smallest b wins ties
      best_error = error;
      best = params;
    }
  }
  return best;
}

absl::Status ValidateLshParams(const LshParams& params, int num_perm) {
  if (num_perm < 1 || num_perm > kMaxNumPerm) {
    return absl::InvalidArgumentError(absl::StrCat(
        "num_perm must be in [1, ", kMaxNumPerm, "], got ", num_perm));
  }
  if (params.bands < 1 || params.bands > num_perm || params.rows < 1 ||
      params.rows > num_perm || params.slots_used() != num_perm) {
    return absl::InvalidArgumentError(
        absl::StrCat("LSH bands x rows must multiply to num_perm (", num_perm,
                     "), got ", params.bands, " x ", params.rows));
  }
  return absl::OkStatus();
}

uint64_t BandKey(const uint64_t* band_slots, int rows) {
  // The slots are already little-endian in memory on every supported target.
  static_assert(std::endian::native == std::endian::little);
  return XXH3_64bits(band_slots, sizeof(uint64_t) * rows);
}

}  // namespace neardup
