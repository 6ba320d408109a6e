#ifndef NEARDUP_STORAGE_INTERNAL_KEYS_H_
#define NEARDUP_STORAGE_INTERNAL_KEYS_H_

// Key layout of every column family (see column_families.h):
//
//   meta         "format_version"               -> u32 LE
//                "next_collection_id"           -> u32 LE
//                "next_doc_id/" + P             -> u32 LE
//                "log_sequence/" + P            -> u64 LE (cluster replicas)
//   collections  collection name                -> records.CollectionRecord
//   ids          P + external id bytes          -> u32 LE internal id
//   docs         P + internal id (u32 BE)       -> records.DocumentRecord
//   minhash      P + internal id (u32 BE)       -> records.MinHashValue
//   simhash      P + internal id (u32 BE)       -> records.SimHashValue
//
// P is the collection id as 4 bytes big-endian: a collection's entries are
// one contiguous key range (one DeleteRange drops it), and big-endian
// internal ids iterate in numeric order.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace neardup::storage::keys {

inline constexpr std::string_view kFormatVersion = "format_version";
inline constexpr std::string_view kNextCollectionId = "next_collection_id";
inline constexpr std::string_view kNextDocIdPrefix = "next_doc_id/";
inline constexpr std::string_view kLogSequencePrefix = "log_sequence/";
inline constexpr std::string_view kSnapshotLoadingPrefix = "snapshot_loading/";

// The first collection id handed out; 0 is never a real collection, so a
// default-constructed CollectionRecord matches nothing.
inline constexpr uint32_t kFirstCollectionId = 1;
// Exclusive upper limits. The last collection id is kept free so every
// prefix has a successor (CollectionRangeEnd); the last internal id is the
// index's "no row" sentinel.
inline constexpr uint32_t kCollectionIdLimit = 0xFFFFFFFFu;
inline constexpr uint32_t kInternalIdLimit = 0xFFFFFFFFu;

void AppendU32BigEndian(uint32_t value, std::string* out);
std::optional<uint32_t> ReadU32BigEndian(std::string_view bytes);  // 4 bytes
std::string EncodeU32LittleEndian(uint32_t value);
std::optional<uint32_t> DecodeU32LittleEndian(std::string_view bytes);

// P: 4 bytes.
std::string CollectionPrefix(uint32_t collection_id);
// P of the next collection: the exclusive end of this collection's range.
// `collection_id` must be < kCollectionIdLimit.
std::string CollectionRangeEnd(uint32_t collection_id);

std::string NextDocIdKey(uint32_t collection_id);
// The cluster log's last sequence a replica applied to the collection.
std::string LogSequenceKey(uint32_t collection_id);
// Present while a replica loads a peer's snapshot into the collection.
std::string SnapshotLoadingKey(uint32_t collection_id);
std::string EncodeU64LittleEndian(uint64_t value);
std::optional<uint64_t> DecodeU64LittleEndian(std::string_view bytes);
std::string IdKey(uint32_t collection_id, std::string_view external_id);
// Key in docs, minhash and simhash.
std::string DocKey(uint32_t collection_id, uint32_t internal_id);
// The internal id of a docs/minhash/simhash key of `collection_id`;
// nullopt for a key of another collection or of another shape.
std::optional<uint32_t> ParseDocKey(std::string_view key,
                                    uint32_t collection_id);

}  // namespace neardup::storage::keys

#endif  // NEARDUP_STORAGE_INTERNAL_KEYS_H_
