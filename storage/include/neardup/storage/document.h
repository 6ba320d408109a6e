#ifndef NEARDUP_STORAGE_DOCUMENT_H_
#define NEARDUP_STORAGE_DOCUMENT_H_

// Documents going into and coming out of a Store.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "neardup/core/kept_family.h"
#include "neardup/core/minhash.h"

namespace neardup::storage {

// Key/value pairs; keys are unique. Stored sorted by key.
using Metadata = std::vector<std::pair<std::string, std::string>>;

struct DocumentWrite {
  std::string external_id;  // 1 to 1024 arbitrary bytes
  Metadata metadata;
  // Kept only when the collection has store_text; otherwise silently dropped.
  std::optional<std::string> text;
  MinHashSignature minhash;  // width must equal the collection's num_perm
  uint64_t minhash_config_hash = 0;
  // Required when the collection has SimHash enabled, refused otherwise.
  std::optional<uint64_t> simhash;
  uint64_t simhash_config_hash = 0;
  // Exact evidence (sorted, distinct shingle hashes made with the minhash
  // config, narrowed to evidence_bits): kept when the collection verifies
  // exactly. Documents written as signatures have none; replacing one drops
  // the old evidence.
  std::optional<std::vector<uint64_t>> shingles;
  // The width of `shingles`' hashes, which must be the collection's; 0:
  // not said (then they must only fit the collection's width).
  int evidence_bits = 0;
  // Values of the collection's kept families (others are refused), each
  // normalized and with the family's config hash; replacing a document
  // drops the old values of the families it has none of.
  std::vector<KeptValue> kept;
  // Required when the collection has an embedding space, refused otherwise:
  // the unit vector (UnitEmbedding) and the model that made it, which must
  // be the space's.
  std::optional<std::vector<float>> embedding;
  std::string embedding_model_id;
  // The times a copy keeps (a replica loading a peer's snapshot): creation
  // of a new document, and the write's. 0: as any write (the write's time;
  // a replace keeps its creation time).
  int64_t created_unix_micros = 0;
  int64_t updated_unix_micros = 0;

  bool operator==(const DocumentWrite&) const = default;
};

struct PutResult {
  uint32_t internal_id = 0;
  bool replaced = false;  // the external id existed; its internal id is kept
};

// Which parts of a stored document a read fetches.
enum class DocumentParts {
  kAll,  // record and signatures
  // id, metadata, times: no text (kept apart since store format 2) and no
  // signatures. What naming a match needs.
  kRecordOnly,
};

struct StoredDocument {
  // Dense per-collection id, allocated from 0; a deleted document's id is
  // reused by a later new document, so ids stay as dense as the live
  // documents. The index keys its rows by it.
  uint32_t internal_id = 0;
  std::string external_id;
  Metadata metadata;  // sorted by key
  std::optional<std::string> text;
  MinHashSignature minhash;
  std::optional<uint64_t> simhash;
  int64_t created_unix_micros = 0;  // first put of this external id
  int64_t updated_unix_micros = 0;  // latest put
  // Exact evidence; only a DocumentCursor opened with evidence reads it.
  std::optional<std::vector<uint64_t>> shingles;
  // The kept families' values it has, in KeptFamilies() order (kAll reads).
  std::vector<KeptValue> kept;
  // The unit vector, in collections with an embedding space (kAll reads).
  std::optional<std::vector<float>> embedding;

  bool operator==(const StoredDocument&) const = default;
};

// What an in-memory index needs to be rebuilt.
struct StoredSignatures {
  uint32_t internal_id = 0;
  MinHashSignature minhash;
  std::optional<uint64_t> simhash;
  std::optional<std::vector<float>> embedding;  // with an embedding space

  bool operator==(const StoredSignatures&) const = default;
};

}  // namespace neardup::storage

#endif  // NEARDUP_STORAGE_DOCUMENT_H_
