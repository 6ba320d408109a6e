#ifndef NEARDUP_STORAGE_COLLECTION_RECORD_H_
#define NEARDUP_STORAGE_COLLECTION_RECORD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "neardup/core/collection_config.h"
#include "neardup/core/kept_family.h"

namespace neardup::storage {

// A collection as stored: immutable from creation until it is dropped.
struct CollectionRecord {
  // Allocated at creation, never reused, so a record of a dropped collection
  // never matches a newer collection of the same name.
  uint32_t id = 0;
  std::string name;
  CollectionConfig config;  // normalized (NormalizeCollectionConfig)
  // Config hashes of the collection's MinHash and SimHash (and of its kept
  // families, below); every stored signature carries the same ones.
  uint64_t minhash_config_hash = 0;
  uint64_t simhash_config_hash = 0;  // 0 when SimHash is disabled
  int64_t created_unix_micros = 0;
  // One per config.kept_families entry, in its order.
  std::vector<KeptConfigHash> kept_config_hashes = {};

  bool operator==(const CollectionRecord&) const = default;
};

}  // namespace neardup::storage

#endif  // NEARDUP_STORAGE_COLLECTION_RECORD_H_
