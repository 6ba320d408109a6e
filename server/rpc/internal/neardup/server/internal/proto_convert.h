#ifndef NEARDUP_SERVER_INTERNAL_PROTO_CONVERT_H_
#define NEARDUP_SERVER_INTERNAL_PROTO_CONVERT_H_

// Between the public API messages (neardup.v1) and core/storage types.

#include <optional>

#include "absl/status/statusor.h"
#include "neardup/core/collection_config.h"
#include "neardup/core/kept_family.h"
#include "neardup/engine/collection.h"
#include "neardup/storage/document.h"
#include "neardup/v1/neardup.pb.h"

namespace neardup::server {

// Fills defaults and validates (INVALID_ARGUMENT names the field).
absl::StatusOr<CollectionConfig> ConfigFromProto(
    const v1::FingerprintConfig& proto);
v1::FingerprintConfig ConfigToProto(const CollectionConfig& config);

v1::Collection CollectionToProto(const engine::Collection& collection);

// Checks the wire signatures (layout, width) and their config hashes against
// the collection's: FAILED_PRECONDITION on a mismatch.
// signatures.kept (and the deprecated signatures.tlsh), normalized, for the
// families the collection keeps (others are ignored). INVALID_ARGUMENT for
// a family no build knows, one given twice or a value that does not parse;
// FAILED_PRECONDITION for another config hash.
absl::StatusOr<std::vector<KeptValue>> KeptFromProto(
    const v1::Signatures& proto, const storage::CollectionRecord& record);

absl::Status SignaturesFromProto(const v1::Signatures& proto,
                                 const engine::Collection& collection,
                                 MinHashSignature* minhash,
                                 std::optional<uint64_t>* simhash);

// What a write or a probe of signatures must carry besides the MinHash.
struct SignatureRules {
  bool simhash_required = false;  // when the collection has SimHash on
  // Reads signatures.shingle_set (when the collection verifies exactly),
  // refusing one over this many bytes; 0: the set is not read.
  size_t max_shingle_set_bytes = 0;
  // Refuses a set of more hashes than this (a text has no more distinct
  // shingles than bytes, so --max-document-bytes bounds it).
  size_t max_shingle_set_hashes = SIZE_MAX;
};

// signatures as the engine takes them, for an upsert or a query: the
// MinHash and SimHash (SignaturesFromProto), the shingle set under
// `rules`, the kept families' values (KeptFromProto). Errors name the field.
absl::StatusOr<engine::SignatureInput> SignatureInputFromProto(
    const v1::Signatures& proto, const engine::Collection& collection,
    const SignatureRules& rules);

// The unit vector of `proto` for `record`'s embedding space, named
// `field` in errors: FAILED_PRECONDITION when the collection has no space or
// the model differs, INVALID_ARGUMENT for the wrong dimension, a non-finite
// component or a zero norm.
absl::StatusOr<std::vector<float>> EmbeddingFromProto(
    const v1::Embedding& proto, const storage::CollectionRecord& record,
    std::string_view field);

v1::Document DocumentToProto(const storage::StoredDocument& doc,
                             const storage::CollectionRecord& record);

storage::Metadata MetadataFromProto(
    const google::protobuf::Map<std::string, std::string>& proto);

}  // namespace neardup::server

#endif  // NEARDUP_SERVER_INTERNAL_PROTO_CONVERT_H_
