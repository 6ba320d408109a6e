#ifndef NEARDUP_BASE_SCRATCH_H_
#define NEARDUP_BASE_SCRATCH_H_

// Per-thread scratch keeps its capacity from one document to the next, so
// steady work allocates nothing. Capacity past kScratchKeepBytes came from
// one large document: it is given back before the next, smaller one, so a
// single 16 MB text does not pin 16 MB on every server thread for good.

#include <cstddef>

namespace neardup {

inline constexpr size_t kScratchKeepBytes = size_t{1} << 20;

// Call before reusing `scratch` for a job of about `needed` elements.
template <typename Container>
void TrimScratch(Container& scratch, size_t needed) {
  constexpr size_t kSize = sizeof(typename Container::value_type);
  if (scratch.capacity() * kSize > kScratchKeepBytes &&
      needed * 2 < scratch.capacity()) {
    Container().swap(scratch);
  }
}

}  // namespace neardup

#endif  // NEARDUP_BASE_SCRATCH_H_
