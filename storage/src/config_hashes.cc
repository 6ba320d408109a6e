#include "config_hashes.h"

#include "neardup/base/status_macros.h"
#include "neardup/core/collection_fingerprinter.h"

namespace neardup::storage {

absl::StatusOr<ConfigHashes> ComputeConfigHashes(
    const CollectionConfig& config) {
  ASSIGN_OR_RETURN(const CollectionFingerprinter fingerprinter,
                   CollectionFingerprinter::Create(config));
  return ConfigHashes{.minhash = fingerprinter.minhash_config_hash(),
                      .simhash = fingerprinter.simhash_config_hash(),
                      .tlsh = fingerprinter.tlsh_config_hash()};
}

}  // namespace neardup::storage
