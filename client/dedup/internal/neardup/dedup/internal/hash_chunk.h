#ifndef NEARDUP_DEDUP_INTERNAL_HASH_CHUNK_H_
#define NEARDUP_DEDUP_INTERNAL_HASH_CHUNK_H_

// Where --verification exact keeps shingle hashes. The worker that fingerprints a
// batch writes each document's hashes once, into a chunk; the in-order stage
// then shares that chunk with the TokenSetStore for every document it keeps
// instead of copying the hashes. Kept sets are most of dedup's memory, and
// copying them on the single in-order thread (with the page faults of fresh
// memory) was its largest cost.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace neardup::dedup {

// Fixed-capacity, append-only memory for hashes; never reallocated, so a
// span into it stays valid as long as the chunk lives. Backed by huge pages
// where the kernel allows: faulting it in 4 KiB at a time costs more than
// writing it.
class HashChunk {
 public:
  explicit HashChunk(size_t capacity);
  HashChunk(const HashChunk&) = delete;
  HashChunk& operator=(const HashChunk&) = delete;

  size_t capacity() const { return capacity_; }
  size_t size() const { return size_; }
  size_t room() const { return capacity_ - size_; }
  size_t capacity_bytes() const { return capacity_ * sizeof(uint64_t); }

  // Copies `hashes` behind what the chunk holds (they must fit in room()).
  // Only one thread may append; earlier spans may be read and rewritten by
  // another meanwhile (different memory).
  std::span<uint64_t> Append(std::span<const uint64_t> hashes);

  // Set and read by the in-order stage only: where the TokenSetStore keeps
  // this chunk among those it holds, or -1.
  int store_slot = -1;

 private:
  struct Free {
    void operator()(uint64_t* p) const;
  };
  std::unique_ptr<uint64_t, Free> data_;
  size_t capacity_;
  size_t size_ = 0;
};

// Appends documents' hashes to a chunk of its own, starting a new one (2 MiB
// growing to 32 MiB) when the current one is full. One writer per batch
// slot, used by one thread at a time.
class HashChunkWriter {
 public:
  // The copy of `hashes` and the chunk that holds it (null when empty).
  std::span<uint64_t> Append(std::span<const uint64_t> hashes,
                             std::shared_ptr<HashChunk>* chunk);

 private:
  std::shared_ptr<HashChunk> current_;
  int chunks_started_ = 0;
};

}  // namespace neardup::dedup

#endif  // NEARDUP_DEDUP_INTERNAL_HASH_CHUNK_H_
