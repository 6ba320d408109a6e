#include "neardup/storage/validation.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/config_hash.h"
#include "neardup/core/kept_family.h"

namespace neardup::storage {
namespace {

bool IsNameByte(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' ||
         c == '.' || c == '-';
}

absl::Status ConfigMismatch(std::string_view algorithm, uint64_t got,
                            const CollectionRecord& collection,
                            uint64_t expected) {
  return absl::FailedPreconditionError(
      absl::StrCat(AbslView(algorithm), " config_hash ", FormatHex64(got),
                   " does not match collection \"", collection.name, "\" (",
                   FormatHex64(expected),
                   "): the signature was computed with another "
                   "configuration"));
}

// Each value of a family the collection keeps, at most once, made with its
// config and in the family's normalized form.
absl::Status ValidateKept(const CollectionRecord& collection,
                          const DocumentWrite& doc) {
  for (size_t i = 0; i < doc.kept.size(); ++i) {
    const KeptValue& kept = doc.kept[i];
    const auto hash = std::find_if(
        collection.kept_config_hashes.begin(),
        collection.kept_config_hashes.end(),
        [&](const KeptConfigHash& h) { return h.family == kept.family; });
    if (hash == collection.kept_config_hashes.end()) {
      const std::vector<std::string>& kept_ones =
          collection.config.kept_families;
      return absl::InvalidArgumentError(absl::StrCat(
          "collection \"", collection.name, "\" keeps no ",
          absl::CHexEscape(kept.family),
          kept_ones.empty()
              ? std::string(" (it keeps no kept families)")
              : absl::StrCat(" (it keeps: ", absl::StrJoin(kept_ones, ","),
                             ")")));
    }
    for (size_t j = 0; j < i; ++j) {
      if (doc.kept[j].family == kept.family) {
        return absl::InvalidArgumentError(absl::StrCat(
            "two ", absl::CHexEscape(kept.family), " values for one document"));
      }
    }
    if (kept.config_hash != hash->config_hash) {
      return ConfigMismatch(kept.family, kept.config_hash, collection,
                            hash->config_hash);
    }
    ASSIGN_OR_RETURN(const KeptFamily* family, KeptFamilyNamed(kept.family));
    absl::StatusOr<std::string> normalized = family->normalize(kept.value);
    if (!normalized.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(kept.family, " value: ", normalized.status().message()));
    }
    if (*normalized != kept.value) {
      return absl::InvalidArgumentError(
          absl::StrCat(kept.family, " value is not in its normalized form (",
                       *normalized, ")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateCollectionName(std::string_view name) {
  if (name.empty() || name.size() > kMaxCollectionNameBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("collection name must be 1 to ", kMaxCollectionNameBytes,
                     " bytes, got ", name.size()));
  }
  if (!std::all_of(name.begin(), name.end(), IsNameByte)) {
    return absl::InvalidArgumentError(
        absl::StrCat("collection name \"", absl::CHexEscape(AbslView(name)),
                     "\" may only contain A-Z a-z 0-9 _ . -"));
  }
  return absl::OkStatus();
}

absl::Status CollectionNotFound(std::string_view name) {
  if (!ValidateCollectionName(name).ok()) {
    return absl::NotFoundError(
        "no such collection (the name given is not a valid collection name)");
  }
  return absl::NotFoundError(
      absl::StrCat("no collection named '", AbslView(name), "'"));
}

absl::Status ValidateExternalId(std::string_view external_id) {
  if (external_id.empty() || external_id.size() > kMaxExternalIdBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("external id must be 1 to ", kMaxExternalIdBytes,
                     " bytes, got ", external_id.size()));
  }
  return absl::OkStatus();
}

namespace {

absl::Status ValidateEmbedding(const CollectionRecord& collection,
                               const DocumentWrite& doc) {
  const EmbeddingSpace& space = collection.config.embedding;
  if (!space.enabled()) {
    if (doc.embedding.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("collection \"", collection.name,
                       "\" has no embedding space; leave the embedding out"));
    }
    return absl::OkStatus();
  }
  if (!doc.embedding.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("collection \"", collection.name,
                     "\" requires an embedding of model \"", space.model_id,
                     "\" (dim ", space.dim, ") with every document"));
  }
  if (doc.embedding_model_id != space.model_id) {
    return absl::FailedPreconditionError(absl::StrCat(
        "embedding from model \"", absl::CHexEscape(doc.embedding_model_id),
        "\" does not match collection \"", collection.name, "\" (model \"",
        space.model_id, "\"): vectors of different models are not comparable"));
  }
  if (doc.embedding->size() != static_cast<size_t>(space.dim)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "embedding has ", doc.embedding->size(), " dimensions; collection \"",
        collection.name, "\" has dim ", space.dim));
  }
  double norm2 = 0;
  for (float x : *doc.embedding) {
    if (!std::isfinite(x)) {
      return absl::InvalidArgumentError("embedding has a non-finite component");
    }
    norm2 += double{x} * x;
  }
  if (std::abs(norm2 - 1) > 1e-3) {
    return absl::InvalidArgumentError(
        "embedding is not a unit vector (normalize it with UnitEmbedding)");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateDocumentWrite(const CollectionRecord& collection,
                                   const DocumentWrite& doc) {
  RETURN_IF_ERROR(ValidateExternalId(doc.external_id));
  if (doc.minhash_config_hash != collection.minhash_config_hash) {
    return ConfigMismatch("minhash", doc.minhash_config_hash, collection,
                          collection.minhash_config_hash);
  }
  if (doc.minhash.num_perm() != collection.config.num_perm) {
    return absl::InvalidArgumentError(
        absl::StrCat("minhash signature has ", doc.minhash.num_perm(),
                     " slots; collection \"", collection.name,
                     "\" uses num_perm ", collection.config.num_perm));
  }
  if (doc.shingles.has_value() &&
      std::adjacent_find(doc.shingles->begin(), doc.shingles->end(),
                         std::greater_equal<>()) != doc.shingles->end()) {
    return absl::InvalidArgumentError(
        "shingle set must be strictly increasing");
  }
  if (doc.shingles.has_value() && doc.evidence_bits != 0 &&
      doc.evidence_bits != EvidenceBitsOf(collection.config)) {
    return absl::FailedPreconditionError(
        absl::StrCat("shingle set of ", doc.evidence_bits,
                     "-bit hashes; collection \"", collection.name, "\" keeps ",
                     EvidenceBitsOf(collection.config), "-bit evidence"));
  }
  if (const int bits = EvidenceBitsOf(collection.config);
      doc.shingles.has_value() && !doc.shingles->empty() && bits < 64 &&
      (doc.shingles->back() >> bits) != 0) {
    // Evidence of another width would never share a hash with this
    // collection's, and could not be stored in its encoding.
    return absl::InvalidArgumentError(
        absl::StrCat("shingle set holds a hash wider than collection \"",
                     collection.name, "\"'s evidence_bits (", bits, ")"));
  }
  RETURN_IF_ERROR(ValidateKept(collection, doc));
  RETURN_IF_ERROR(ValidateEmbedding(collection, doc));
  if (!collection.config.simhash_enabled) {
    if (doc.simhash.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "collection \"", collection.name, "\" has SimHash disabled"));
    }
    return absl::OkStatus();
  }
  if (!doc.simhash.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "collection \"", collection.name, "\" requires a SimHash"));
  }
  if (doc.simhash_config_hash != collection.simhash_config_hash) {
    return ConfigMismatch("simhash", doc.simhash_config_hash, collection,
                          collection.simhash_config_hash);
  }
  return absl::OkStatus();
}

absl::StatusOr<Metadata> SortedMetadata(Metadata metadata) {
  std::sort(metadata.begin(), metadata.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  auto duplicate = std::adjacent_find(
      metadata.begin(), metadata.end(),
      [](const auto& a, const auto& b) { return a.first == b.first; });
  if (duplicate != metadata.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "duplicate metadata key \"", absl::CHexEscape(duplicate->first), "\""));
  }
  return metadata;
}

}  // namespace neardup::storage
