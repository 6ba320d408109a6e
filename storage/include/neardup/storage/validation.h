#ifndef NEARDUP_STORAGE_INTERNAL_VALIDATION_H_
#define NEARDUP_STORAGE_INTERNAL_VALIDATION_H_

// Checks on what callers hand the store, done before anything is written.
// Every error is INVALID_ARGUMENT except signatures from another config
// (FAILED_PRECONDITION).

#include <cstddef>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "neardup/storage/collection_record.h"
#include "neardup/storage/document.h"

namespace neardup::storage {

inline constexpr size_t kMaxCollectionNameBytes = 128;
inline constexpr size_t kMaxExternalIdBytes = 1024;

// 1 to 128 bytes of [A-Za-z0-9_.-].
absl::Status ValidateCollectionName(std::string_view name);
// NOT_FOUND naming `name` only when it is a valid collection name: a
// request's bytes are not echoed into messages and logs unchecked.
absl::Status CollectionNotFound(std::string_view name);
// 1 to 1024 bytes, any bytes.
absl::Status ValidateExternalId(std::string_view external_id);

// External id, config hashes, MinHash width and SimHash presence against the
// collection.
absl::Status ValidateDocumentWrite(const CollectionRecord& collection,
                                   const DocumentWrite& doc);

// `metadata` sorted by key; INVALID_ARGUMENT on a duplicate key.
absl::StatusOr<Metadata> SortedMetadata(Metadata metadata);

}  // namespace neardup::storage

#endif  // NEARDUP_STORAGE_INTERNAL_VALIDATION_H_
