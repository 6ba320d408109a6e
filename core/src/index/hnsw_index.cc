#include "neardup/core/index/hnsw_index.h"

// hnswlib 0.6.2's SSE path prefetches through the link one past a full
// neighbour list, reading 4 bytes beyond an upper layer's allocation. The
// value only feeds a prefetch (which cannot fault) and the read stays inside
// the allocator's chunk, but AddressSanitizer rightly reports it: sanitized
// builds take the portable path, which reads nothing it should not.
#if defined(__SANITIZE_ADDRESS__)
#define NO_MANUAL_VECTORIZATION
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_MANUAL_VECTORIZATION
#endif
#endif
#include <hnswlib/hnswlib.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <mutex>
#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "neardup/base/sync.h"

namespace neardup {

struct HnswIndex::Impl {
  explicit Impl(const HnswOptions& options)
      : space(static_cast<size_t>(options.dim)),
        graph(&space, options.initial_capacity, options.m,
              options.ef_construction, options.seed) {
    graph.setEf(static_cast<size_t>(options.ef_search));
  }

  // The stored vector of `id` dotted with `unit` (summed in double, in
  // order); nullopt when `id` is not live. Under mu (shared).
  std::optional<float> CosineLocked(uint32_t id,
                                    std::span<const float> unit) const
      ABSL_SHARED_LOCKS_REQUIRED(mu) {
    if (!live.contains(id)) return std::nullopt;
    const auto slot = graph.label_lookup_.find(id);
    if (slot == graph.label_lookup_.end()) return std::nullopt;
    const float* stored =
        reinterpret_cast<const float*>(graph.getDataByInternalId(slot->second));
    double dot = 0;
    for (size_t i = 0; i < unit.size(); ++i) {
      dot += static_cast<double>(stored[i]) * unit[i];
    }
    return static_cast<float>(dot);
  }

  hnswlib::InnerProductSpace space;
  hnswlib::HierarchicalNSW<float> graph;
  // Searches share; writes (which may grow the graph) are alone.
  mutable SharedMutex mu;
  std::unordered_set<uint32_t> live ABSL_GUARDED_BY(mu);
};

HnswIndex::HnswIndex(const HnswOptions& options, std::unique_ptr<Impl> impl)
    : options_(options), impl_(std::move(impl)) {}

HnswIndex::~HnswIndex() = default;

absl::StatusOr<std::unique_ptr<HnswIndex>> HnswIndex::Create(
    const HnswOptions& options) {
  if (options.dim < 1 || options.dim > 4096) {
    return absl::InvalidArgumentError(
        absl::StrCat("dim must be in [1, 4096], got ", options.dim));
  }
  if (options.m < 4 || options.m > 64) {
    return absl::InvalidArgumentError(
        absl::StrCat("m must be in [4, 64], got ", options.m));
  }
  if (options.ef_construction < options.m || options.ef_construction > 4096 ||
      options.ef_search < 16 || options.ef_search > 4096) {
    return absl::InvalidArgumentError(
        "ef_construction must be in [m, 4096] and ef_search in [16, 4096]");
  }
  if (options.initial_capacity < 1) {
    return absl::InvalidArgumentError("initial_capacity must be >= 1");
  }
  try {
    return std::unique_ptr<HnswIndex>(
        new HnswIndex(options, std::make_unique<Impl>(options)));
  } catch (const std::exception& e) {
    return absl::ResourceExhaustedError(absl::StrCat("HNSW index: ", e.what()));
  }
}

absl::Status HnswIndex::Upsert(uint32_t id, std::span<const float> unit) {
  if (unit.size() != static_cast<size_t>(options_.dim)) {
    return absl::InvalidArgumentError(
        absl::StrCat("vector has ", unit.size(), " dimensions; the index has ",
                     options_.dim));
  }
  WriterLock lock(&impl_->mu);
  hnswlib::HierarchicalNSW<float>& graph = impl_->graph;
  try {
    const bool known = graph.label_lookup_.count(id) > 0;
    if (!known && graph.cur_element_count >= graph.max_elements_) {
      graph.resizeIndex(std::max<size_t>(graph.max_elements_ * 2, 16));
    }
    // An existing label (live or deleted) is updated in place and undeleted.
    graph.addPoint(unit.data(), id);
    impl_->live.insert(id);
  } catch (const std::exception& e) {
    // A point added but not live is never returned (searches check live).
    return absl::ResourceExhaustedError(absl::StrCat("HNSW index: ", e.what()));
  }
  return absl::OkStatus();
}

absl::Status HnswIndex::Reserve(size_t additional) {
  {
    // Most calls find room without waiting for searches to end.
    ReaderLock lock(&impl_->mu);
    if (impl_->graph.cur_element_count + additional <=
        impl_->graph.max_elements_) {
      return absl::OkStatus();
    }
  }
  WriterLock lock(&impl_->mu);
  hnswlib::HierarchicalNSW<float>& graph = impl_->graph;
  const size_t needed = graph.cur_element_count + additional;
  if (needed <= graph.max_elements_) return absl::OkStatus();
  try {
    graph.resizeIndex(std::max(needed, graph.max_elements_ * 2));
  } catch (const std::exception& e) {
    return absl::ResourceExhaustedError(absl::StrCat("HNSW index: ", e.what()));
  }
  return absl::OkStatus();
}

absl::Status HnswIndex::Remove(uint32_t id) {
  WriterLock lock(&impl_->mu);
  if (impl_->live.erase(id) == 0) {
    return absl::NotFoundError(absl::StrCat("id ", id, " is not in the index"));
  }
  try {
    impl_->graph.markDelete(id);
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("HNSW index: ", e.what()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<IdCosine>> HnswIndex::Search(
    std::span<const float> unit, size_t k, float min_cosine) const {
  if (unit.size() != static_cast<size_t>(options_.dim)) {
    return absl::InvalidArgumentError(
        absl::StrCat("vector has ", unit.size(), " dimensions; the index has ",
                     options_.dim));
  }
  std::vector<IdCosine> out;
  if (k == 0) return out;
  ReaderLock lock(&impl_->mu);
  std::priority_queue<std::pair<float, hnswlib::labeltype>> found;
  try {
    found = impl_->graph.searchKnn(unit.data(), k);
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("HNSW index: ", e.what()));
  }
  while (!found.empty()) {
    // Scored again as Cosine scores (hnswlib's 1 - distance rounds
    // differently), so a semantic and a hybrid query agree on every match.
    const auto id = static_cast<uint32_t>(found.top().second);
    found.pop();
    const std::optional<float> cosine = impl_->CosineLocked(id, unit);
    if (cosine && ReachesCosine(*cosine, min_cosine)) {
      out.push_back({id, *cosine});
    }
  }
  std::sort(out.begin(), out.end(), BetterMatch);
  return out;
}

std::optional<float> HnswIndex::Cosine(uint32_t id,
                                       std::span<const float> unit) const {
  if (unit.size() != static_cast<size_t>(options_.dim)) return std::nullopt;
  ReaderLock lock(&impl_->mu);
  return impl_->CosineLocked(id, unit);
}

size_t HnswIndex::size() const {
  ReaderLock lock(&impl_->mu);
  return impl_->live.size();
}

size_t HnswIndex::memory_bytes() const {
  ReaderLock lock(&impl_->mu);
  const hnswlib::HierarchicalNSW<float>& graph = impl_->graph;
  const size_t slots = graph.max_elements_;
  size_t upper_links = 0;
  for (size_t i = 0; i < graph.cur_element_count; ++i) {
    upper_links += graph.element_levels_[i] * graph.size_links_per_element_;
  }
  // Base layer (links, vector, label), one pointer, level and lock per
  // slot, the fixed table of update locks, the upper layers' links, and
  // the label map and live set.
  return slots * (graph.size_data_per_element_ + sizeof(void*) + sizeof(int) +
                  sizeof(std::mutex)) +
         graph.link_list_update_locks_.size() * sizeof(std::mutex) +
         upper_links + graph.label_lookup_.size() * 4 * sizeof(void*) +
         impl_->live.size() * 4 * sizeof(void*);
}

}  // namespace neardup
