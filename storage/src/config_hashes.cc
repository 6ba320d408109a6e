#include "config_hashes.h"

#include "neardup/base/status_macros.h"
#include "neardup/core/minhash.h"
#include "neardup/core/simhash.h"

namespace neardup::storage {

absl::StatusOr<ConfigHashes> ComputeConfigHashes(
    const CollectionConfig& config) {
  ConfigHashes hashes;
  ASSIGN_OR_RETURN(const MinHasher minhasher,
                   MinHasher::Create(MinHashConfigOf(config)));
  hashes.minhash = minhasher.config_hash();
  if (config.simhash_enabled) {
    ASSIGN_OR_RETURN(const SimHasher simhasher,
                     SimHasher::Create(SimHashConfigOf(config)));
    hashes.simhash = simhasher.config_hash();
  }
  return hashes;
}

}  // namespace neardup::storage
