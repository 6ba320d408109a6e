#ifndef NEARDUP_STORAGE_SRC_SIGNATURE_FAMILIES_H_
#define NEARDUP_STORAGE_SRC_SIGNATURE_FAMILIES_H_

// The signature families a store keeps per document, each described once
// (the kept families, TLSH..., by one struct over core's KeptFamily):
// its column family, the name its errors use, whether a collection keeps
// it, whether every document of such a collection has one, where a write
// carries it, and how its value is coded and checked. Store's reads and
// writes are written once over these (store_documents.cc).

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/config_hash.h"
#include "neardup/core/shingle_set.h"
#include "neardup/storage/collection_record.h"
#include "neardup/storage/column_families.h"
#include "neardup/storage/document.h"
#include "neardup/storage/internal/record_codec.h"

namespace neardup::storage {

// DATA_LOSS unless a stored value carries the collection's config hash.
inline absl::Status CheckStoredConfigHash(std::string_view family,
                                          uint64_t stored, uint64_t expected) {
  if (stored == expected) return absl::OkStatus();
  return absl::DataLossError(absl::StrCat(
      "stored ", AbslView(family), " config_hash ", FormatHex64(stored),
      " differs from the collection's ", FormatHex64(expected)));
}

// Decodes a value that carries a config hash, checked against `expected`.
template <typename Stored, typename Value, typename Field>
absl::StatusOr<Value> DecodeHashed(std::string_view family,
                                   absl::StatusOr<Stored> stored,
                                   uint64_t expected, Field field) {
  if (!stored.ok()) return stored.status();
  RETURN_IF_ERROR(CheckStoredConfigHash(family, stored->config_hash, expected));
  return std::move((*stored).*field);
}

struct MinHashFamily {
  using Value = MinHashSignature;
  static constexpr ColumnFamily kColumnFamily = ColumnFamily::kMinHash;
  static constexpr std::string_view kName = "minhash";
  static constexpr std::string_view Name() { return kName; }
  static bool Kept(const CollectionConfig&) { return true; }
  static constexpr bool kEveryDocument = true;
  static const Value* Of(const DocumentWrite& doc) { return &doc.minhash; }
  static std::string Encode(const CollectionRecord& c, const Value& value) {
    return EncodeMinHashValue(c.minhash_config_hash, value);
  }
  static absl::StatusOr<Value> Decode(const CollectionRecord& c,
                                      std::string_view bytes) {
    return DecodeHashed<MinHashValue, Value>(kName, DecodeMinHashValue(bytes),
                                             c.minhash_config_hash,
                                             &MinHashValue::signature);
  }
};

struct SimHashFamily {
  using Value = uint64_t;
  static constexpr ColumnFamily kColumnFamily = ColumnFamily::kSimHash;
  static constexpr std::string_view kName = "simhash";
  static constexpr std::string_view Name() { return kName; }
  static bool Kept(const CollectionConfig& config) {
    return config.simhash_enabled;
  }
  static constexpr bool kEveryDocument = true;
  static const Value* Of(const DocumentWrite& doc) {
    return doc.simhash ? &*doc.simhash : nullptr;
  }
  static std::string Encode(const CollectionRecord& c, const Value& value) {
    return EncodeSimHashValue(
        {.config_hash = c.simhash_config_hash, .value = value});
  }
  static absl::StatusOr<Value> Decode(const CollectionRecord& c,
                                      std::string_view bytes) {
    return DecodeHashed<SimHashValue, Value>(kName, DecodeSimHashValue(bytes),
                                             c.simhash_config_hash,
                                             &SimHashValue::value);
  }
};

// Exact evidence: only documents written from text have it.
struct EvidenceFamily {
  using Value = std::vector<uint64_t>;
  static constexpr ColumnFamily kColumnFamily = ColumnFamily::kEvidence;
  static constexpr std::string_view kName = "evidence";
  static constexpr std::string_view Name() { return kName; }
  static bool Kept(const CollectionConfig& config) {
    return config.verification == Verification::kExact;
  }
  static constexpr bool kEveryDocument = false;
  static const Value* Of(const DocumentWrite& doc) {
    return doc.shingles ? &*doc.shingles : nullptr;
  }
  static uint64_t ConfigHash(const CollectionRecord& c) {
    return EvidenceConfigHash(c.minhash_config_hash, EvidenceBitsOf(c.config));
  }
  static std::string Encode(const CollectionRecord& c, const Value& value) {
    return EncodeEvidenceValue(ConfigHash(c), value, EvidenceBitsOf(c.config));
  }
  static absl::StatusOr<Value> Decode(const CollectionRecord& c,
                                      std::string_view bytes) {
    return DecodeHashed<EvidenceValue, Value>(
        kName, DecodeEvidenceValue(bytes, EvidenceBitsOf(c.config)),
        ConfigHash(c), &EvidenceValue::shingles);
  }
};

// A kept family (core/kept_family.h), in the column family of its name: a
// text too short or too uniform for it has none.
struct KeptColumnFamily {
  using Value = std::string;  // the normalized text form
  const KeptFamily& family;

  std::string_view Name() const { return family.name; }
  bool Kept(const CollectionConfig& config) const {
    return config.Keeps(family.name);
  }
  static constexpr bool kEveryDocument = false;
  const Value* Of(const DocumentWrite& doc) const {
    for (const KeptValue& kept : doc.kept) {
      if (kept.family == family.name) return &kept.value;
    }
    return nullptr;
  }
  // 0 when the collection does not keep the family.
  uint64_t ConfigHash(const CollectionRecord& c) const {
    for (const KeptConfigHash& kept : c.kept_config_hashes) {
      if (kept.family == family.name) return kept.config_hash;
    }
    return 0;
  }
  std::string Encode(const CollectionRecord& c, const Value& value) const {
    return EncodeKeptValue(ConfigHash(c), value);
  }
  absl::StatusOr<Value> Decode(const CollectionRecord& c,
                               std::string_view bytes) const {
    ASSIGN_OR_RETURN(KeptValue value, DecodeKeptValue(family, bytes));
    RETURN_IF_ERROR(
        CheckStoredConfigHash(family.name, value.config_hash, ConfigHash(c)));
    return std::move(value.value);
  }
};

// A unit vector, tagged with its model instead of a config hash: a vector
// of another model or size would be compared as if it meant the same.
struct EmbeddingFamily {
  using Value = std::vector<float>;
  static constexpr ColumnFamily kColumnFamily = ColumnFamily::kEmbedding;
  static constexpr std::string_view kName = "embedding";
  static constexpr std::string_view Name() { return kName; }
  static bool Kept(const CollectionConfig& config) {
    return config.embedding.enabled();
  }
  static constexpr bool kEveryDocument = true;
  static const Value* Of(const DocumentWrite& doc) {
    return doc.embedding ? &*doc.embedding : nullptr;
  }
  static std::string Encode(const CollectionRecord& c, const Value& value) {
    return EncodeEmbeddingValue(c.config.embedding.model_id, value);
  }
  static absl::StatusOr<Value> Decode(const CollectionRecord& c,
                                      std::string_view bytes) {
    ASSIGN_OR_RETURN(EmbeddingValue value, DecodeEmbeddingValue(bytes));
    const EmbeddingSpace& space = c.config.embedding;
    if (value.model_id != space.model_id ||
        value.vector.size() != static_cast<size_t>(space.dim)) {
      return absl::DataLossError(absl::StrCat(
          "stored embedding of model \"", absl::CHexEscape(value.model_id),
          "\", dim ", value.vector.size(), " differs from the collection's (\"",
          space.model_id, "\", dim ", space.dim, ")"));
    }
    return std::move(value.vector);
  }
};

}  // namespace neardup::storage

#endif  // NEARDUP_STORAGE_SRC_SIGNATURE_FAMILIES_H_
