#include "neardup/dedup/internal/hash_chunk.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace neardup::dedup {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;

}  // namespace

void HashChunk::Free::operator()(uint64_t* p) const { std::free(p); }

HashChunk::HashChunk(size_t capacity) {
  const size_t wanted = std::max<size_t>(capacity, 1) * sizeof(uint64_t);
  const size_t bytes = (wanted + kHugePage - 1) / kHugePage * kHugePage;
  auto* data = static_cast<uint64_t*>(std::aligned_alloc(kHugePage, bytes));
  if (data == nullptr) throw std::bad_alloc();
  madvise(data, bytes, MADV_HUGEPAGE);  // advice only: errors are fine
  data_.reset(data);
  capacity_ = bytes / sizeof(uint64_t);
}

std::span<uint64_t> HashChunk::Append(std::span<const uint64_t> hashes) {
  // Callers size chunks first; past the end would corrupt the heap.
  if (hashes.size() > room()) std::abort();
  uint64_t* const at = data_.get() + size_;
  if (!hashes.empty()) {
    std::memcpy(at, hashes.data(), hashes.size_bytes());
  }
  size_ += hashes.size();
  return {at, hashes.size()};
}

std::span<uint64_t> HashChunkWriter::Append(std::span<const uint64_t> hashes,
                                            std::shared_ptr<HashChunk>* chunk) {
  if (hashes.empty()) {
    chunk->reset();
    return {};
  }
  if (current_ == nullptr || current_->room() < hashes.size()) {
    const size_t step = kHugePage << std::min(chunks_started_, 4);
    current_ = std::make_shared<HashChunk>(
        std::max(step / sizeof(uint64_t), hashes.size()));
    ++chunks_started_;
  }
  *chunk = current_;
  return current_->Append(hashes);
}

}  // namespace neardup::dedup
