#ifndef NEARDUP_STORAGE_COLUMN_FAMILIES_H_
#define NEARDUP_STORAGE_COLUMN_FAMILIES_H_

// Every RocksDB column family of a neardup store, declared once. Key and value
// layouts: storage/src/keys.h and storage/proto/records.proto.

#include <array>
#include <cstddef>
#include <string_view>

namespace neardup::storage {

// The value is the index into kColumnFamilies and into the store's handle
// table (names, not positions, are what is on disk).
enum class ColumnFamily : int {
  kDefault = 0,
  kMeta,
  kCollections,
  kIds,
  kDocs,
  kMinHash,
  kSimHash,
  kEvidence,
  kText,
  kEmbedding,
  kCount,
};

struct ColumnFamilyInfo {
  std::string_view name;  // RocksDB column family name; never rename
  std::string_view description;
};

inline constexpr size_t kNumColumnFamilies =
    static_cast<size_t>(ColumnFamily::kCount);

// In enum order.
inline constexpr std::array<ColumnFamilyInfo, kNumColumnFamilies>
    kColumnFamilies = {{
        {"default", "unused; RocksDB requires it"},
        {"meta", "format_version, collection and document id counters"},
        {"collections", "collection name -> CollectionRecord"},
        {"ids", "collection id + external id -> internal id"},
        {"docs", "collection id + internal id -> DocumentRecord"},
        {"minhash", "collection id + internal id -> MinHashValue"},
        {"simhash", "collection id + internal id -> SimHashValue"},
        {"evidence",
         "collection id + internal id -> EvidenceValue (exact shingle set)"},
        {"text",
         "collection id + internal id -> the document's text (store_text), "
         "apart from its record so naming a match never reads it"},
        {"embedding",
         "collection id + internal id -> EmbeddingValue (the unit vector, "
         "tagged with its model_id)"},
    }};

// The families keyed by collection id + internal id: a document's entries,
// all deleted with it (and so are its kept families', below).
inline constexpr std::array<ColumnFamily, 6> kDocumentColumnFamilies = {
    ColumnFamily::kDocs,     ColumnFamily::kMinHash, ColumnFamily::kSimHash,
    ColumnFamily::kEvidence, ColumnFamily::kText,    ColumnFamily::kEmbedding};

// Besides these, each kept family (core/kept_family.h) has a column family
// of its own name ("tlsh"), keyed by collection id + internal id -> KeptValue.
// The store opens them after the ones above, in KeptFamilies() order.

constexpr const ColumnFamilyInfo& ColumnFamilyInfoOf(ColumnFamily cf) {
  return kColumnFamilies[static_cast<size_t>(cf)];
}

}  // namespace neardup::storage

#endif  // NEARDUP_STORAGE_COLUMN_FAMILIES_H_
