#ifndef NEARDUP_STORAGE_SRC_CONFIG_HASHES_H_
#define NEARDUP_STORAGE_SRC_CONFIG_HASHES_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "neardup/core/collection_config.h"

namespace neardup::storage {

struct ConfigHashes {
  uint64_t minhash = 0;
  uint64_t simhash = 0;  // 0 when SimHash is disabled
  uint64_t tlsh = 0;     // 0 unless the collection keeps TLSH
};

// The config hashes of the fingerprints a collection with this (normalized)
// config makes, computed by building its CollectionFingerprinter, so they
// are exactly the hashes core stamps on signatures.
absl::StatusOr<ConfigHashes> ComputeConfigHashes(
    const CollectionConfig& config);

}  // namespace neardup::storage

#endif  // NEARDUP_STORAGE_SRC_CONFIG_HASHES_H_
