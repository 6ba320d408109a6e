#ifndef NEARDUP_CORE_INDEX_INTERNAL_TWIN_CLASSES_H_
#define NEARDUP_CORE_INDEX_INTERNAL_TWIN_CLASSES_H_

// Classes of twin rows in one index shard: rows whose signatures are equal
// in every band tag and every kept slot bit, and whose twin keys are equal.
// Twins score the same against any probe, so only a class's representative
// sits in the band tables; the class lists every member in id order. A flood
// of N identical documents then costs a query one score plus the members it
// returns, not N. Implementation detail of MinHashLshIndex; not thread-safe.
//
// Rows outside any class pay nothing: the maps stay empty in an ordinary
// collection.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "neardup/core/index/internal/key_chains.h"

namespace neardup::index_internal {

class TwinClasses {
 public:
  static constexpr uint32_t kNoRepresentative = 0xFFFFFFFFu;
  // What a remove changed.
  struct Removal {
    bool was_member = false;  // `row` belonged to a class
    // When `row` was its class's representative and others remain: the
    // member that now represents them (the caller puts it in the tables).
    // Otherwise kNoRepresentative.
    uint32_t new_representative = kNoRepresentative;
  };

  bool empty() const { return class_of_.empty(); }
  // The key of the class `row` belongs to, if it belongs to one.
  const uint64_t* KeyOf(uint32_t row) const;
  // Adds `row` to the class of `representative` (made with `key` when the
  // representative has none yet).
  void Join(uint32_t representative, uint64_t key, uint32_t row);
  Removal Remove(uint32_t row);
  // Number of rows `representative` stands for (1 outside any class).
  size_t SizeOf(uint32_t representative) const;
  // Calls f(row) for the first `limit` members (0: all) of the class of
  // `representative` in ascending order; just f(representative) outside any
  // class.
  void ForEachMember(uint32_t representative, size_t limit,
                     absl::FunctionRef<void(uint32_t)> f) const;
  size_t MemoryBytes() const;

 private:
  struct Class {
    uint32_t representative;
    uint64_t key;
    absl::btree_set<uint32_t> members;  // the representative included
  };
  const Class* ClassOf(uint32_t row) const;

  // Class ids, not representatives, name classes: replacing a removed
  // representative then touches one entry, not every member's.
  absl::flat_hash_map<uint32_t, uint32_t> class_of_;  // row -> class id
  absl::flat_hash_map<uint32_t, Class> classes_;
  std::vector<uint32_t> free_class_ids_;
  uint32_t next_class_id_ = 0;
};

// Removes `row` from `twins` and from the `tables` it sits in: a member's
// row is in none, a representative's class keeps its table entries under
// the member that now represents it, and a row outside any class leaves
// every table.
void RemoveTwinOrRow(TwinClasses& twins, std::vector<KeyChains>& tables,
                     uint32_t row);

}  // namespace neardup::index_internal

#endif  // NEARDUP_CORE_INDEX_INTERNAL_TWIN_CLASSES_H_
