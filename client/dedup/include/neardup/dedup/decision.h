#ifndef NEARDUP_DEDUP_DECISION_H_
#define NEARDUP_DEDUP_DECISION_H_

// What dedup decided about one document, in input order.

#include <cstdint>
#include <limits>

namespace neardup::dedup {

// A representative the method cannot name (lshbloom keeps no documents).
inline constexpr uint32_t kUnknownDoc = std::numeric_limits<uint32_t>::max();

enum class Outcome : uint8_t {
  kKept,       // written (an empty document too, unless drop_empty)
  kDuplicate,  // near a kept document
  kDropped,    // no tokens, and drop_empty
  kSkipped,    // malformed, and skip_invalid
  kInvalid,    // malformed: the run stops with its error
};

struct Decision {
  Outcome outcome = Outcome::kKept;
  // kDuplicate: the number of the kept document it duplicates (kUnknownDoc
  // when the method cannot say) and the similarity to it (NaN when unknown).
  uint32_t representative = kUnknownDoc;
  double similarity = 0;
};

}  // namespace neardup::dedup

#endif  // NEARDUP_DEDUP_DECISION_H_
