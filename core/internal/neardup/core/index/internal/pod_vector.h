#ifndef NEARDUP_CORE_INDEX_INTERNAL_POD_VECTOR_H_
#define NEARDUP_CORE_INDEX_INTERNAL_POD_VECTOR_H_

// A growable array of trivially copyable values for the index's big per-row
// and per-slot arrays. std::vector copies every element when it outgrows its
// capacity and gets fresh 4 KiB pages each time; an index of 1M documents
// growing by an eighth at a time spent ~7 % of ingest in those copies.
// Here arrays of 64 KiB and more live in their own memory mapping, which
// grows by moving page tables (mremap) instead of bytes; smaller arrays use
// malloc/realloc. It does not ask for transparent huge pages: on this
// project's test VM they cut queries at 1M documents from ~10K to ~8K QPS
// (bench/README.md). Hosts with THP "always" still give them.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <utility>

namespace neardup::index_internal {

// Untyped memory for PodVector. Throws std::bad_alloc like std::vector.
class PodStorage {
 public:
  // Mapped from this size up (below it a mapping's page rounding costs too
  // much per small table).
  static constexpr size_t kMapBytes = size_t{64} << 10;

  PodStorage() = default;
  ~PodStorage() { Release(); }
  PodStorage(PodStorage&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        bytes_(std::exchange(other.bytes_, 0)),
        mapped_(std::exchange(other.mapped_, false)) {}
  PodStorage& operator=(PodStorage&& other) noexcept {
    if (this != &other) {
      Release();
      data_ = std::exchange(other.data_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
      mapped_ = std::exchange(other.mapped_, false);
    }
    return *this;
  }
  PodStorage(const PodStorage&) = delete;
  PodStorage& operator=(const PodStorage&) = delete;

  void* data() const { return data_; }
  size_t capacity_bytes() const { return bytes_; }
  bool mapped() const { return mapped_; }

  // Makes the capacity `bytes` (mapped sizes round up to whole pages),
  // keeping the first `keep` bytes (keep <= both old and new capacity).
  void Reallocate(size_t bytes, size_t keep);

 private:
  void Release() noexcept;

  void* data_ = nullptr;
  size_t bytes_ = 0;
  bool mapped_ = false;
};

template <typename T>
class PodVector {
  static_assert(std::is_trivially_copyable_v<T> &&
                std::is_trivially_destructible_v<T>);

 public:
  PodVector() = default;
  PodVector(PodVector&& other) noexcept
      : storage_(std::move(other.storage_)),
        size_(std::exchange(other.size_, 0)) {}
  PodVector& operator=(PodVector&& other) noexcept {
    storage_ = std::move(other.storage_);
    size_ = std::exchange(other.size_, 0);
    return *this;
  }
  PodVector(const PodVector& other) { *this = other; }
  PodVector& operator=(const PodVector& other) {
    if (this != &other) {
      size_ = 0;
      reserve(other.size_);
      if (other.size_ > 0) {
        std::memcpy(data(), other.data(), other.size_ * sizeof(T));
      }
      size_ = other.size_;
    }
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return storage_.capacity_bytes() / sizeof(T); }

  T* data() { return static_cast<T*>(storage_.data()); }
  const T* data() const { return static_cast<const T*>(storage_.data()); }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }

  void reserve(size_t n) {
    if (n > capacity()) storage_.Reallocate(n * sizeof(T), size_ * sizeof(T));
  }
  // New elements are `fill`.
  void resize(size_t n, T fill = T{}) {
    reserve(n);
    if (n > size_) std::fill(data() + size_, data() + n, fill);
    size_ = n;
  }
  void assign(size_t n, T fill) {
    size_ = 0;
    resize(n, fill);
  }
  void clear() { size_ = 0; }

 private:
  PodStorage storage_;
  size_t size_ = 0;
};

}  // namespace neardup::index_internal

#endif  // NEARDUP_CORE_INDEX_INTERNAL_POD_VECTOR_H_
