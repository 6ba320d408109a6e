#ifndef NEARDUP_STORAGE_SRC_COLLECTION_STATE_H_
#define NEARDUP_STORAGE_SRC_COLLECTION_STATE_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "neardup/base/sync.h"
#include "neardup/storage/collection_record.h"
#include "neardup/storage/store.h"

namespace neardup::storage {

// What the Store keeps in memory per live collection: its record (a mirror
// of the collections column family) and its document id counter.
struct Store::CollectionState {
  CollectionState(CollectionRecord record, uint32_t next_doc_id)
      : record(std::move(record)), next_doc_id(next_doc_id) {}

  const CollectionRecord record;
  // Serializes writers of this collection: an external id's lookup and the
  // allocation of its internal id must be atomic.
  Mutex mu;
  uint32_t next_doc_id ABSL_GUARDED_BY(mu);
  // Internal ids below next_doc_id that no document holds (deleted), handed
  // out again before new ones, so ids (and the index's rows) follow the
  // live documents, not every document ever written. Not persisted: the
  // index rebuild finds the gaps (SetFreeInternalIds).
  std::vector<uint32_t> free_ids ABSL_GUARDED_BY(mu);
  // Set by DropCollection, so a writer that found the state just before the
  // drop cannot bring the collection's entries back.
  bool dropped ABSL_GUARDED_BY(mu) = false;
};

}  // namespace neardup::storage

#endif  // NEARDUP_STORAGE_SRC_COLLECTION_STATE_H_
