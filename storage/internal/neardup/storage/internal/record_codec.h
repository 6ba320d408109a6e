#ifndef NEARDUP_STORAGE_INTERNAL_RECORD_CODEC_H_
#define NEARDUP_STORAGE_INTERNAL_RECORD_CODEC_H_

// Values of the collections, docs, minhash and simhash column families <->
// bytes (protobuf messages of storage/proto/records.proto). Decoding errors
// are DATA_LOSS: these bytes were written by the store itself.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "neardup/core/kept_family.h"
#include "neardup/core/minhash.h"
#include "neardup/storage/collection_record.h"
#include "neardup/storage/document.h"

namespace neardup::storage {

std::string EncodeCollectionRecord(const CollectionRecord& record);
absl::StatusOr<CollectionRecord> DecodeCollectionRecord(std::string_view bytes);

// A "docs" value: everything about a document but its signatures.
struct DocumentRecord {
  std::string external_id;
  Metadata metadata;  // sorted by key, unique keys
  std::optional<std::string> text;
  int64_t created_unix_micros = 0;
  int64_t updated_unix_micros = 0;
};
std::string EncodeDocumentRecord(const DocumentRecord& record);
absl::StatusOr<DocumentRecord> DecodeDocumentRecord(std::string_view bytes);

struct MinHashValue {
  uint64_t config_hash = 0;
  MinHashSignature signature;
};
std::string EncodeMinHashValue(uint64_t config_hash,
                               const MinHashSignature& signature);
// Also parses the signature (MinHashSignature::Parse).
absl::StatusOr<MinHashValue> DecodeMinHashValue(std::string_view bytes);

struct SimHashValue {
  uint64_t config_hash = 0;
  uint64_t value = 0;
};
std::string EncodeSimHashValue(const SimHashValue& value);
absl::StatusOr<SimHashValue> DecodeSimHashValue(std::string_view bytes);

// An "evidence" value: the shingle set, Elias-Fano coded (shingle_set.h).
struct EvidenceValue {
  uint64_t config_hash = 0;
  std::vector<uint64_t> shingles;
};
// `shingles` below 2^evidence_bits (the collection's width, 32 or 64); the
// decoder must be given the same width.
std::string EncodeEvidenceValue(uint64_t config_hash,
                                std::span<const uint64_t> shingles,
                                int evidence_bits);
absl::StatusOr<EvidenceValue> DecodeEvidenceValue(std::string_view bytes,
                                                  int evidence_bits);

// A kept family's value of a text document (its column family is named as
// the family). Decoding checks the value with the family's normalize.
std::string EncodeKeptValue(uint64_t config_hash, std::string_view value);
absl::StatusOr<KeptValue> DecodeKeptValue(const KeptFamily& family,
                                          std::string_view bytes);

// An "embedding" value: a unit vector and the model that made it.
struct EmbeddingValue {
  std::string model_id;
  std::vector<float> vector;
};
std::string EncodeEmbeddingValue(std::string_view model_id,
                                 std::span<const float> vector);
absl::StatusOr<EmbeddingValue> DecodeEmbeddingValue(std::string_view bytes);

}  // namespace neardup::storage

#endif  // NEARDUP_STORAGE_INTERNAL_RECORD_CODEC_H_
