#include "neardup/core/index/flat_vector_index.h"

#include <algorithm>
#include <new>

#include "absl/strings/str_cat.h"
#include "neardup/core/internal/dot_kernel.h"

namespace neardup {
namespace {

// Rows scored per kernel call: the scores stay in L1.
constexpr size_t kBlockRows = 256;

}  // namespace

absl::StatusOr<std::unique_ptr<FlatVectorIndex>> FlatVectorIndex::Create(
    int dim) {
  if (dim < 1 || dim > 4096) {
    return absl::InvalidArgumentError(
        absl::StrCat("dim must be in [1, 4096], got ", dim));
  }
  const size_t lanes = internal::kDotLanes;
  const size_t stride = (static_cast<size_t>(dim) + lanes - 1) / lanes * lanes;
  return std::unique_ptr<FlatVectorIndex>(new FlatVectorIndex(dim, stride));
}

std::vector<float> FlatVectorIndex::Padded(std::span<const float> unit) const {
  std::vector<float> padded(stride_, 0.0f);
  std::copy(unit.begin(), unit.end(), padded.begin());
  return padded;
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
      ids_.push_back(id);
      row_of_.emplace(id, static_cast<uint32_t>(ids_.size() - 1));
    } catch (const std::bad_alloc&) {
      // Back to the state before: rows and ids line up with the map.
      rows_.resize(row_of_.size() * stride_);
      ids_.resize(row_of_.size());
      return absl::ResourceExhaustedError("flat vector index: out of memory");
    }
  }
  const uint32_t row = row_of_.find(id)->second;
  std::copy(unit.begin(), unit.end(), rows_.begin() + row * stride_);
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
    ids_[row] = ids_[last];
    row_of_[ids_[row]] = row;
  }
  ids_.pop_back();
  rows_.resize(rows_.size() - stride_);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<IdCosine>> FlatVectorIndex::Search(
    std::span<const float> unit, size_t k, float min_cosine) const {
  if (unit.size() != static_cast<size_t>(dim_)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "vector has ", unit.size(), " dimensions; the index has ", dim_));
  }
  std::vector<IdCosine> best;  // a heap, its worst on top
  if (k == 0) return best;
  const std::vector<float> query = Padded(unit);
  float scores[kBlockRows];
  ReaderLock lock(&mu_);
  const size_t n = ids_.size();
  for (size_t begin = 0; begin < n; begin += kBlockRows) {
    const size_t count = std::min(kBlockRows, n - begin);
    internal::DotMany(query.data(), rows_.data() + begin * stride_, count,
                      stride_, scores);
    for (size_t i = 0; i < count; ++i) {
      if (!ReachesCosine(scores[i], min_cosine)) continue;
      const IdCosine candidate{ids_[begin + i], scores[i]};
      if (best.size() == k) {
        if (!BetterMatch(candidate, best.front())) continue;
        std::pop_heap(best.begin(), best.end(), BetterMatch);
        best.pop_back();
      }
      best.push_back(candidate);
      std::push_heap(best.begin(), best.end(), BetterMatch);
    }
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
  return sizeof(*this) + rows_.capacity() * sizeof(float) +
         ids_.capacity() * sizeof(uint32_t) +
         row_of_.capacity() * (sizeof(std::pair<uint32_t, uint32_t>) + 1);
}

}  // namespace neardup
