#ifndef NEARDUP_STORAGE_CONFIG_CODEC_H_
#define NEARDUP_STORAGE_CONFIG_CODEC_H_

// A collection's config as the store keeps it (records.CollectionConfig),
// for whoever else must keep one durably: the cluster's registry. The same
// config gives the same bytes; a config of a newer build that this one
// cannot read is DATA_LOSS.

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "neardup/core/collection_config.h"

namespace neardup::storage {

std::string EncodeCollectionConfig(const CollectionConfig& config);
absl::StatusOr<CollectionConfig> DecodeCollectionConfig(std::string_view bytes);

}  // namespace neardup::storage

#endif  // NEARDUP_STORAGE_CONFIG_CODEC_H_
