#include "neardup/core/index/flat_vector_index.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>

#include "absl/strings/str_cat.h"
#include "neardup/core/internal/dot_kernel.h"

namespace neardup {
namespace {

// Rows scored per kernel call: the scores stay in L1.
constexpr size_t kBlockRows = 256;

// Added to every int8 error bound: covers the float32 rounding of the
// bound's own arithmetic and the distance between the float32 kernel's
// score and the exact dot product (under 2e-5 for unit vectors of 4096
// dimensions).
constexpr float kBoundSlack = 1e-4f;

thread_local size_t last_rescored = 0;

size_t RoundUp(size_t n, size_t lanes) {
  return (n + lanes - 1) / lanes * lanes;
}

}  // namespace

absl::StatusOr<std::unique_ptr<FlatVectorIndex>> FlatVectorIndex::Create(
    int dim) {
  if (dim < 1 || dim > 4096) {
    return absl::InvalidArgumentError(
        absl::StrCat("dim must be in [1, 4096], got ", dim));
  }
  const size_t d = static_cast<size_t>(dim);
  return std::unique_ptr<FlatVectorIndex>(new FlatVectorIndex(
      dim, RoundUp(d, internal::kDotLanes), RoundUp(d, internal::kInt8Lanes)));
}

size_t FlatVectorIndex::LastRescored() { return last_rescored; }

std::vector<float> FlatVectorIndex::Padded(std::span<const float> unit) const {
  std::vector<float> padded(stride_, 0.0f);
  std::copy(unit.begin(), unit.end(), padded.begin());
  return padded;
}

FlatVectorIndex::Quantized FlatVectorIndex::Quantize(
    std::span<const float> unit, int8_t* codes) const {
  float max_abs = 0;
  for (float x : unit) max_abs = std::max(max_abs, std::abs(x));
  Quantized q;
  std::fill(codes, codes + code_stride_, int8_t{0});
  if (max_abs == 0) return q;
  q.scale = max_abs / 127.0f;
  for (size_t i = 0; i < unit.size(); ++i) {
    const long code = std::lrint(unit[i] / q.scale);
    codes[i] = static_cast<int8_t>(std::clamp(code, -127L, 127L));
    q.l1 += std::abs(int32_t{codes[i]});
  }
  return q;
}

absl::Status FlatVectorIndex::Upsert(uint32_t id, std::span<const float> unit) {
  if (unit.size() != static_cast<size_t>(dim_)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "vector has ", unit.size(), " dimensions; the index has ", dim_));
  }
  WriterLock lock(&mu_);
  if (!row_of_.contains(id)) {
    try {
      rows_.resize(rows_.size() + stride_, 0.0f);
      codes_.resize(codes_.size() + code_stride_, 0);
      quantized_.emplace_back();
      ids_.push_back(id);
      row_of_.emplace(id, static_cast<uint32_t>(ids_.size() - 1));
    } catch (const std::bad_alloc&) {
      // Back to the state before: the arrays line up with the map.
      const size_t n = row_of_.size();
      rows_.resize(n * stride_);
      codes_.resize(n * code_stride_);
      quantized_.resize(n);
      ids_.resize(n);
      return absl::ResourceExhaustedError("flat vector index: out of memory");
    }
  }
  const uint32_t row = row_of_.find(id)->second;
  std::copy(unit.begin(), unit.end(), rows_.begin() + row * stride_);
  quantized_[row] = Quantize(unit, codes_.data() + row * code_stride_);
  return absl::OkStatus();
}

absl::Status FlatVectorIndex::Reserve(size_t additional) {
  // Writes call this per batch: most find room under the shared lock and
  // never wait for searches to end.
  auto has_room = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    const size_t needed = ids_.size() + additional;
    return needed <= ids_.capacity() && needed * stride_ <= rows_.capacity() &&
           needed * code_stride_ <= codes_.capacity() &&
           needed <= quantized_.capacity();
  };
  {
    ReaderLock lock(&mu_);
    if (has_room()) return absl::OkStatus();
  }
  WriterLock lock(&mu_);
  if (has_room()) return absl::OkStatus();
  const size_t needed = ids_.size() + additional;
  try {
    // Doubling, as push_back would, so that reserving per batch stays
    // amortized O(1) per vector.
    const size_t target = std::max(needed, ids_.capacity() * 2);
    rows_.reserve(target * stride_);
    codes_.reserve(target * code_stride_);
    quantized_.reserve(target);
    ids_.reserve(target);
    row_of_.reserve(target);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError("flat vector index: out of memory");
  }
  return absl::OkStatus();
}

absl::Status FlatVectorIndex::Remove(uint32_t id) {
  WriterLock lock(&mu_);
  const auto it = row_of_.find(id);
  if (it == row_of_.end()) {
    return absl::NotFoundError(absl::StrCat("id ", id, " is not in the index"));
  }
  const uint32_t row = it->second;
  const uint32_t last = static_cast<uint32_t>(ids_.size() - 1);
  row_of_.erase(it);
  if (row != last) {
    std::copy_n(rows_.begin() + last * stride_, stride_,
                rows_.begin() + row * stride_);
    std::copy_n(codes_.begin() + last * code_stride_, code_stride_,
                codes_.begin() + row * code_stride_);
    quantized_[row] = quantized_[last];
    ids_[row] = ids_[last];
    row_of_[ids_[row]] = row;
  }
  ids_.pop_back();
  quantized_.pop_back();
  rows_.resize(rows_.size() - stride_);
  codes_.resize(codes_.size() - code_stride_);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<IdCosine>> FlatVectorIndex::Search(
    std::span<const float> unit, size_t k, float min_cosine) const {
  if (unit.size() != static_cast<size_t>(dim_)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "vector has ", unit.size(), " dimensions; the index has ", dim_));
  }
  last_rescored = 0;
  std::vector<IdCosine> best;  // a heap, its worst on top
  if (k == 0) return best;
  const std::vector<float> query = Padded(unit);
  std::vector<int8_t> query_codes(code_stride_);
  const Quantized q = Quantize(unit, query_codes.data());
  ReaderLock lock(&mu_);
  const size_t n = ids_.size();

  // Pass 1, int8: |float score - scale_q * scale_r * int dot| <= bound, with
  // bound = scale_q * scale_r * (l1_q / 2 + l1_r / 2 + dim / 4) (each code
  // is off by at most half a step) + slack. Every row of the answer has an
  // upper bound at least the k-th best lower bound, and at least the floor.
  std::vector<float> upper(n);        // per call: no buffer outlives the query
  std::vector<float> lowest_of_best;  // min-heap of the k best lower bounds
  lowest_of_best.reserve(k + 1);
  int32_t dots[kBlockRows];
  const float quarter_dim = 0.25f * static_cast<float>(dim_);
  for (size_t begin = 0; begin < n; begin += kBlockRows) {
    const size_t count = std::min(kBlockRows, n - begin);
    internal::Int8DotMany(query_codes.data(),
                          codes_.data() + begin * code_stride_, count,
                          code_stride_, dots);
    for (size_t i = 0; i < count; ++i) {
      const Quantized& r = quantized_[begin + i];
      const float scales = q.scale * r.scale;
      const float approx = scales * static_cast<float>(dots[i]);
      const float bound =
          scales * (0.5f * static_cast<float>(q.l1 + r.l1) + quarter_dim) +
          kBoundSlack;
      upper[begin + i] = approx + bound;
      const float lower = approx - bound;
      if (lowest_of_best.size() < k) {
        lowest_of_best.push_back(lower);
        std::push_heap(lowest_of_best.begin(), lowest_of_best.end(),
                       std::greater<>());
      } else if (lower > lowest_of_best.front()) {
        std::pop_heap(lowest_of_best.begin(), lowest_of_best.end(),
                      std::greater<>());
        lowest_of_best.back() = lower;
        std::push_heap(lowest_of_best.begin(), lowest_of_best.end(),
                       std::greater<>());
      }
    }
  }
  float cutoff = min_cosine - 1e-6f;  // ReachesCosine's slack
  if (lowest_of_best.size() == k) {
    cutoff = std::max(cutoff, lowest_of_best.front());
  }

  // Pass 2, float32: the rows that may still belong, scored as a full
  // float scan would score them.
  for (size_t row = 0; row < n; ++row) {
    if (upper[row] < cutoff) continue;
    ++last_rescored;
    float score = 0;
    internal::DotMany(query.data(), rows_.data() + row * stride_, 1, stride_,
                      &score);
    if (!ReachesCosine(score, min_cosine)) continue;
    const IdCosine candidate{ids_[row], score};
    if (best.size() == k) {
      if (!BetterMatch(candidate, best.front())) continue;
      std::pop_heap(best.begin(), best.end(), BetterMatch);
      best.pop_back();
    }
    best.push_back(candidate);
    std::push_heap(best.begin(), best.end(), BetterMatch);
  }
  std::sort_heap(best.begin(), best.end(), BetterMatch);
  return best;
}

std::optional<float> FlatVectorIndex::Cosine(
    uint32_t id, std::span<const float> unit) const {
  if (unit.size() != static_cast<size_t>(dim_)) return std::nullopt;
  const std::vector<float> query = Padded(unit);
  ReaderLock lock(&mu_);
  const auto it = row_of_.find(id);
  if (it == row_of_.end()) return std::nullopt;
  float score = 0;
  internal::DotMany(query.data(), rows_.data() + it->second * stride_, 1,
                    stride_, &score);
  return score;
}

size_t FlatVectorIndex::size() const {
  ReaderLock lock(&mu_);
  return ids_.size();
}

size_t FlatVectorIndex::memory_bytes() const {
  ReaderLock lock(&mu_);
  return sizeof(*this) + rows_.capacity() * sizeof(float) + codes_.capacity() +
         quantized_.capacity() * sizeof(Quantized) +
         ids_.capacity() * sizeof(uint32_t) +
         row_of_.capacity() * (sizeof(std::pair<uint32_t, uint32_t>) + 1);
}

}  // namespace neardup
