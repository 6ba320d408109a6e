#include "neardup/core/index/internal/pod_vector.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <new>

namespace neardup::index_internal {
namespace {

size_t RoundUpToPages(size_t bytes) {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

void* Map(size_t bytes) {
  void* data = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (data == MAP_FAILED) throw std::bad_alloc();
  return data;
}

}  // namespace

void PodStorage::Reallocate(size_t bytes, size_t keep) {
  if (bytes == 0) {
    Release();
    return;
  }
  const bool map = bytes >= kMapBytes;
  if (map) bytes = RoundUpToPages(bytes);
  if (map && mapped_) {
    // The kernel moves the pages; nothing is copied.
    void* moved = mremap(data_, bytes_, bytes, MREMAP_MAYMOVE);
    if (moved == MAP_FAILED) throw std::bad_alloc();
    data_ = moved;
    bytes_ = bytes;
    return;
  }
  if (!map && !mapped_) {
    void* grown = std::realloc(data_, bytes);
    if (grown == nullptr) throw std::bad_alloc();
    data_ = grown;
    bytes_ = bytes;
    return;
  }
  // Crossing between malloc and a mapping: one copy of a small array.
  void* fresh = map ? Map(bytes) : std::malloc(bytes);
  if (fresh == nullptr) throw std::bad_alloc();
  if (keep > 0) std::memcpy(fresh, data_, keep);
  Release();
  data_ = fresh;
  bytes_ = bytes;
  mapped_ = map;
}

void PodStorage::Release() noexcept {
  if (data_ != nullptr) {
    if (mapped_) {
      munmap(data_, bytes_);
    } else {
      std::free(data_);
    }
  }
  data_ = nullptr;
  bytes_ = 0;
  mapped_ = false;
}

}  // namespace neardup::index_internal
