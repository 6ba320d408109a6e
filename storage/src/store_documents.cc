// Store: documents and their signatures.

#include <algorithm>
#include <functional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "collection_state.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/config_hash.h"
#include "neardup/storage/internal/keys.h"
#include "neardup/storage/internal/record_codec.h"
#include "neardup/storage/internal/scan_ahead.h"
#include "neardup/storage/store.h"
#include "neardup/storage/validation.h"
#include "rocksdb/db.h"
#include "rocksdb/snapshot.h"
#include "rocksdb/write_batch.h"
#include "rocksdb_status.h"
#include "signature_families.h"

namespace neardup::storage {
namespace {

std::string Quoted(std::string_view bytes) {
  return absl::StrCat("\"", absl::CHexEscape(AbslView(bytes)), "\"");
}

absl::Status DocumentNotFound(const CollectionRecord& collection,
                              std::string_view external_id) {
  return absl::NotFoundError(absl::StrCat("document ", Quoted(external_id),
                                          " not found in collection \"",
                                          collection.name, "\""));
}

absl::StatusOr<uint32_t> DecodeInternalId(std::string_view value) {
  const std::optional<uint32_t> id = keys::DecodeU32LittleEndian(value);
  if (!id.has_value()) {
    return absl::DataLossError("stored internal id is not a u32");
  }
  return *id;
}

// A stored document that is broken, incomplete or signed with another config.
// Names the collection and the document: only that document can be repaired.
absl::Status CorruptDocument(const CollectionRecord& collection,
                             uint32_t internal_id, std::string_view what) {
  return absl::DataLossError(absl::StrCat("collection \"", collection.name,
                                          "\", internal id ", internal_id, ": ",
                                          AbslView(what)));
}

// The last log sequence written to the collection (0: none).
absl::StatusOr<uint64_t> ReadLogSequence(
    rocksdb::DB& db, rocksdb::ColumnFamilyHandle* meta,
    const CollectionRecord& collection,
    const rocksdb::ReadOptions& read_options = rocksdb::ReadOptions()) {
  std::string value;
  const rocksdb::Status read =
      db.Get(read_options, meta, keys::LogSequenceKey(collection.id), &value);
  if (read.IsNotFound()) return 0;
  RETURN_IF_ERROR(FromRocksDb(read, "read log sequence"));
  const std::optional<uint64_t> sequence = keys::DecodeU64LittleEndian(value);
  if (!sequence.has_value()) {
    return absl::DataLossError(absl::StrCat("collection \"", collection.name,
                                            "\": log sequence is not a u64"));
  }
  return *sequence;
}

// A replica's writes go forward in its log; one that does not means a
// second applier on the collection, or a log made anew.
absl::Status CheckLogSequenceAdvances(rocksdb::DB& db,
                                      rocksdb::ColumnFamilyHandle* meta,
                                      const CollectionRecord& collection,
                                      uint64_t sequence) {
  ASSIGN_OR_RETURN(const uint64_t recorded,
                   ReadLogSequence(db, meta, collection));
  if (sequence > recorded) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("collection \"", collection.name, "\": log sequence ",
                   sequence, " is not after the recorded ", recorded,
                   " (two appliers, or a log made anew?)"));
}

// A family's value of one document, decoded and checked against the
// collection; DATA_LOSS naming the document otherwise.
template <typename Family>
absl::StatusOr<typename Family::Value> DecodeChecked(
    const Family& family, const CollectionRecord& collection,
    uint32_t internal_id, std::string_view bytes) {
  absl::StatusOr<typename Family::Value> value =
      family.Decode(collection, bytes);
  if (!value.ok()) {
    return CorruptDocument(collection, internal_id,
                           StdView(value.status().message()));
  }
  return value;
}

// A family's value of one document under `read_options`: nullopt when the
// collection does not keep the family or the document has none of an
// optional one; DATA_LOSS when one every document has is missing.
template <typename Family>
absl::StatusOr<std::optional<typename Family::Value>> ReadFamily(
    const Family& family, rocksdb::DB& db, rocksdb::ColumnFamilyHandle* handle,
    const rocksdb::ReadOptions& read_options,
    const CollectionRecord& collection, uint32_t internal_id,
    const std::string& doc_key) {
  if (!family.Kept(collection.config)) return std::nullopt;
  std::string bytes;
  const rocksdb::Status read = db.Get(read_options, handle, doc_key, &bytes);
  if (read.IsNotFound()) {
    if (!family.kEveryDocument) return std::nullopt;
    return CorruptDocument(
        collection, internal_id,
        absl::StrCat("document has no ", AbslView(family.Name()), " entry"));
  }
  RETURN_IF_ERROR(
      FromRocksDb(read, absl::StrCat("read ", AbslView(family.Name()))));
  ASSIGN_OR_RETURN(typename Family::Value value,
                   DecodeChecked(family, collection, internal_id, bytes));
  return std::optional<typename Family::Value>(std::move(value));
}

// Writes a family's value of `doc`, or drops the one a replaced document
// had of an optional family (its old value must not outlive it).
template <typename Family>
void PutFamily(const Family& family, rocksdb::WriteBatch& batch,
               rocksdb::ColumnFamilyHandle* handle,
               const CollectionRecord& stored, const std::string& doc_key,
               const DocumentWrite& doc, bool replaced) {
  const typename Family::Value* value = family.Of(doc);
  if (family.Kept(stored.config) && value != nullptr) {
    batch.Put(handle, doc_key, family.Encode(stored, *value));
  } else if (!family.kEveryDocument && replaced) {
    batch.Delete(handle, doc_key);
  }
}

// One family's values of `internal_ids`, read with one MultiGet (so from one
// implicit snapshot), decoded and checked; nullopt where absent.
template <typename Family>
absl::StatusOr<std::vector<std::optional<typename Family::Value>>>
MultiGetDecoded(const Family& family, rocksdb::DB& db,
                rocksdb::ColumnFamilyHandle* handle,
                const CollectionRecord& stored,
                std::span<const uint32_t> internal_ids) {
  std::vector<std::string> keys;
  keys.reserve(internal_ids.size());
  for (uint32_t id : internal_ids) keys.push_back(keys::DocKey(stored.id, id));
  std::vector<rocksdb::Slice> slices(keys.begin(), keys.end());
  std::vector<rocksdb::PinnableSlice> values(keys.size());
  std::vector<rocksdb::Status> statuses(keys.size());
  if (!keys.empty()) {
    db.MultiGet(rocksdb::ReadOptions(), handle, slices.size(), slices.data(),
                values.data(), statuses.data());
  }
  std::vector<std::optional<typename Family::Value>> out(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    if (statuses[i].IsNotFound()) continue;
    RETURN_IF_ERROR(FromRocksDb(
        statuses[i], absl::StrCat("read ", AbslView(family.Name()))));
    ASSIGN_OR_RETURN(out[i], DecodeChecked(family, stored, internal_ids[i],
                                           values[i].ToStringView()));
  }
  return out;
}

// Reads a value that must exist because another entry of the same document
// does (they are written in one batch).
absl::StatusOr<std::string> GetRequired(
    rocksdb::DB& db, const rocksdb::ReadOptions& read_options,
    rocksdb::ColumnFamilyHandle* family, const std::string& key,
    const CollectionRecord& collection, uint32_t internal_id) {
  std::string value;
  const rocksdb::Status status = db.Get(read_options, family, key, &value);
  if (status.IsNotFound()) {
    return CorruptDocument(
        collection, internal_id,
        absl::StrCat("document has no ", family->GetName(), " entry"));
  }
  RETURN_IF_ERROR(
      FromRocksDb(status, absl::StrCat("read ", family->GetName())));
  return value;
}

// About what PutDocuments writes for `docs`: reserved up front, so the batch
// (kilobytes per document) is not copied again at every doubling.
size_t WriteBatchBytes(const CollectionConfig& config,
                       std::span<const DocumentWrite* const> docs,
                       std::span<const std::string> encoded_evidence) {
  constexpr size_t kKeysAndRecord = 256;  // keys, headers, document record
  size_t bytes = 64;
  for (size_t i = 0; i < docs.size(); ++i) {
    const DocumentWrite& doc = *docs[i];
    bytes += kKeysAndRecord + doc.external_id.size() +
             doc.minhash.slots.size() * sizeof(uint64_t);
    for (const auto& [key, value] : doc.metadata) {
      bytes += key.size() + value.size() + 4;
    }
    if (doc.shingles && config.verification == Verification::kExact) {
      const bool encoded =
          i < encoded_evidence.size() && !encoded_evidence[i].empty();
      bytes += encoded ? encoded_evidence[i].size()
                       : doc.shingles->size() * sizeof(uint64_t);
    }
    if (config.store_text && doc.text) bytes += doc.text->size();
    if (config.embedding.enabled() && doc.embedding) {
      bytes += doc.embedding->size() * sizeof(float);
    }
  }
  return bytes;
}

}  // namespace

absl::StatusOr<PutResult> Store::PutDocument(const CollectionRecord& collection,
                                             const DocumentWrite& doc,
                                             const WriteOptions& options) {
  const DocumentWrite* one[] = {&doc};
  ASSIGN_OR_RETURN(std::vector<absl::StatusOr<PutResult>> results,
                   PutDocuments(collection, one, options));
  return std::move(results.front());
}

absl::StatusOr<std::vector<absl::StatusOr<PutResult>>> Store::PutDocuments(
    const CollectionRecord& collection,
    std::span<const DocumentWrite* const> docs, const WriteOptions& options,
    std::span<const std::string> encoded_evidence) {
  if (!encoded_evidence.empty() && encoded_evidence.size() != docs.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(encoded_evidence.size(), " encoded evidence values for ",
                     docs.size(), " documents"));
  }
  ASSIGN_OR_RETURN(const std::shared_ptr<CollectionState> state,
                   FindCollection(collection));
  // Check against the stored record, not the caller's copy of it.
  const CollectionRecord& stored = state->record;
  const uint32_t collection_id = stored.id;
  const int64_t now = options.unix_micros != 0
                          ? options.unix_micros
                          : absl::ToUnixMicros(absl::Now());
  std::vector<absl::StatusOr<PutResult>> results(docs.size(),
                                                 absl::UnknownError(""));

  MutexLock lock(&state->mu);
  if (state->dropped) {
    return absl::NotFoundError(
        absl::StrCat("collection \"", stored.name, "\" was dropped"));
  }
  rocksdb::WriteBatch batch(
      WriteBatchBytes(stored.config, docs, encoded_evidence));
  const uint32_t first_new_id = state->next_doc_id;
  uint32_t next_id = first_new_id;
  // Freed ids this batch reuses: given back if the batch is not written.
  std::vector<uint32_t> reused;
  // Ids given out earlier in this batch, which RocksDB cannot see yet.
  absl::flat_hash_map<std::string, std::pair<uint32_t, int64_t>> batch_ids;
  // Every distinct id is looked up in one MultiGet, which batches the
  // filter and index probes of the whole upsert batch (at 4M documents the
  // separate Gets were 3% of the machine's ingest CPU). Nothing is written
  // before the batch, so the answers hold for the whole loop.
  std::vector<std::string> id_keys(docs.size());
  std::vector<rocksdb::Slice> lookup_keys;
  absl::flat_hash_map<std::string_view, size_t> lookup_of;
  for (size_t i = 0; i < docs.size(); ++i) {
    id_keys[i] = keys::IdKey(collection_id, docs[i]->external_id);
    if (lookup_of.try_emplace(docs[i]->external_id, lookup_keys.size())
            .second) {
      lookup_keys.emplace_back(id_keys[i]);
    }
  }
  std::vector<rocksdb::PinnableSlice> found_values(lookup_keys.size());
  std::vector<rocksdb::Status> found_statuses(lookup_keys.size());
  db_->MultiGet(rocksdb::ReadOptions(), handle(ColumnFamily::kIds),
                lookup_keys.size(), lookup_keys.data(), found_values.data(),
                found_statuses.data());
  for (size_t i = 0; i < docs.size(); ++i) {
    const DocumentWrite& doc = *docs[i];
    if (absl::Status valid = ValidateDocumentWrite(stored, doc); !valid.ok()) {
      results[i] = valid;
      continue;
    }
    auto metadata = SortedMetadata(doc.metadata);
    if (!metadata.ok()) {
      results[i] = metadata.status();
      continue;
    }
    const std::string& id_key = id_keys[i];
    PutResult result;
    // A copy keeps its times (a snapshot's document).
    int64_t created_unix_micros =
        doc.created_unix_micros != 0 ? doc.created_unix_micros : now;
    if (auto it = batch_ids.find(doc.external_id); it != batch_ids.end()) {
      result = {it->second.first, true};
      created_unix_micros = it->second.second;
    } else {
      const size_t lookup = lookup_of.at(doc.external_id);
      const rocksdb::Status& found = found_statuses[lookup];
      if (found.ok()) {
        auto internal_id = DecodeInternalId(std::string_view(
            found_values[lookup].data(), found_values[lookup].size()));
        if (!internal_id.ok()) return internal_id.status();
        result = {*internal_id, true};
        ASSIGN_OR_RETURN(
            const std::string old_bytes,
            GetRequired(*db_, rocksdb::ReadOptions(),
                        handle(ColumnFamily::kDocs),
                        keys::DocKey(collection_id, result.internal_id), stored,
                        result.internal_id));
        ASSIGN_OR_RETURN(const DocumentRecord old,
                         DecodeDocumentRecord(old_bytes));
        created_unix_micros = old.created_unix_micros;
      } else if (found.IsNotFound()) {
        if (!state->free_ids.empty()) {
          result = {state->free_ids.back(), false};
          state->free_ids.pop_back();
          reused.push_back(result.internal_id);
        } else if (next_id >= keys::kInternalIdLimit) {
          results[i] = absl::ResourceExhaustedError(absl::StrCat(
              "collection \"", stored.name, "\" has used up its internal ids"));
          continue;
        } else {
          result = {next_id++, false};
        }
        batch.Put(handle(ColumnFamily::kIds), id_key,
                  keys::EncodeU32LittleEndian(result.internal_id));
      } else {
        return FromRocksDb(found, "look up external id");
      }
      batch_ids[doc.external_id] = {result.internal_id, created_unix_micros};
    }
    const std::string doc_key = keys::DocKey(collection_id, result.internal_id);
    const DocumentRecord record{
        .external_id = doc.external_id,
        .metadata = *std::move(metadata),
        // Text lives in its own family (below); records of format 1 may
        // still carry it inline.
        .text = std::nullopt,
        .created_unix_micros = created_unix_micros,
        .updated_unix_micros = std::max(
            doc.updated_unix_micros != 0 ? doc.updated_unix_micros : now,
            created_unix_micros),
    };
    batch.Put(handle(ColumnFamily::kDocs), doc_key,
              EncodeDocumentRecord(record));
    PutFamily(MinHashFamily{}, batch, handle(ColumnFamily::kMinHash), stored,
              doc_key, doc, result.replaced);
    PutFamily(SimHashFamily{}, batch, handle(ColumnFamily::kSimHash), stored,
              doc_key, doc, result.replaced);
    if (stored.config.store_text && doc.text) {
      batch.Put(handle(ColumnFamily::kText), doc_key, *doc.text);
    } else if (result.replaced) {
      batch.Delete(handle(ColumnFamily::kText), doc_key);
    }
    if (!encoded_evidence.empty() && !encoded_evidence[i].empty() &&
        EvidenceFamily::Kept(stored.config) && doc.shingles) {
      // Encoded by the caller, outside this collection's lock; validated
      // above: the document's config hash is the stored one.
      batch.Put(handle(ColumnFamily::kEvidence), doc_key, encoded_evidence[i]);
    } else {
      PutFamily(EvidenceFamily{}, batch, handle(ColumnFamily::kEvidence),
                stored, doc_key, doc, result.replaced);
    }
    for (size_t k = 0; k < KeptFamilies().size(); ++k) {
      PutFamily(KeptColumnFamily{*KeptFamilies()[k]}, batch, kept_handle(k),
                stored, doc_key, doc, result.replaced);
    }
    PutFamily(EmbeddingFamily{}, batch, handle(ColumnFamily::kEmbedding),
              stored, doc_key, doc, result.replaced);
    results[i] = result;
  }
  auto give_back = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(state->mu) {
    state->free_ids.insert(state->free_ids.end(), reused.rbegin(),
                           reused.rend());
  };
  if (batch.Count() == 0) {
    give_back();
    return results;
  }
  if (options.log_sequence != 0) {
    absl::Status forward = CheckLogSequenceAdvances(
        *db_, handle(ColumnFamily::kMeta), stored, options.log_sequence);
    if (!forward.ok()) {
      give_back();
      return forward;
    }
    batch.Put(handle(ColumnFamily::kMeta), keys::LogSequenceKey(collection_id),
              keys::EncodeU64LittleEndian(options.log_sequence));
  }
  if (next_id != first_new_id) {
    batch.Put(handle(ColumnFamily::kMeta), keys::NextDocIdKey(collection_id),
              keys::EncodeU32LittleEndian(next_id));
  }
  if (absl::Status written =
          WriteGuarded(batch, options.sync, DiskSpaceGuard::WriteKind::kGrowing,
                       "put documents");
      !written.ok()) {
    give_back();
    return written;
  }
  state->next_doc_id = next_id;
  return results;
}

absl::Status Store::SetFreeInternalIds(const CollectionRecord& collection,
                                       std::vector<uint32_t> free_ids) {
  ASSIGN_OR_RETURN(const std::shared_ptr<CollectionState> state,
                   FindCollection(collection));
  MutexLock lock(&state->mu);
  for (uint32_t id : free_ids) {
    if (id >= state->next_doc_id) {
      return absl::InvalidArgumentError(absl::StrCat("free internal id ", id,
                                                     " is not below the bound ",
                                                     state->next_doc_id));
    }
  }
  // Lowest ids last: pop_back hands them out first, keeping ids compact.
  std::sort(free_ids.begin(), free_ids.end(), std::greater<>());
  state->free_ids = std::move(free_ids);
  return absl::OkStatus();
}

absl::StatusOr<uint32_t> Store::InternalIdBound(
    const CollectionRecord& collection) const {
  ASSIGN_OR_RETURN(const std::shared_ptr<CollectionState> state,
                   FindCollection(collection));
  MutexLock lock(&state->mu);
  return state->next_doc_id;
}

absl::StatusOr<StoredDocument> Store::GetDocument(
    const CollectionRecord& collection, std::string_view external_id) const {
  ASSIGN_OR_RETURN(const std::shared_ptr<CollectionState> state,
                   FindCollection(collection));
  RETURN_IF_ERROR(ValidateExternalId(external_id));
  // One snapshot: the id entry and the document must be of the same write.
  rocksdb::ManagedSnapshot snapshot(db_.get());
  rocksdb::ReadOptions read_options;
  read_options.snapshot = snapshot.snapshot();
  std::string value;
  const rocksdb::Status found =
      db_->Get(read_options, handle(ColumnFamily::kIds),
               keys::IdKey(state->record.id, external_id), &value);
  if (found.IsNotFound()) return DocumentNotFound(state->record, external_id);
  RETURN_IF_ERROR(FromRocksDb(found, "look up external id"));
  ASSIGN_OR_RETURN(const uint32_t internal_id, DecodeInternalId(value));
  return ReadDocument(*state, internal_id, read_options);
}

absl::StatusOr<StoredDocument> Store::GetDocumentByInternalId(
    const CollectionRecord& collection, uint32_t internal_id,
    DocumentParts parts) const {
  ASSIGN_OR_RETURN(const std::shared_ptr<CollectionState> state,
                   FindCollection(collection));
  if (parts == DocumentParts::kRecordOnly) {  // one Get is atomic by itself
    return ReadDocument(*state, internal_id, rocksdb::ReadOptions(), parts);
  }
  rocksdb::ManagedSnapshot snapshot(db_.get());
  rocksdb::ReadOptions read_options;
  read_options.snapshot = snapshot.snapshot();
  return ReadDocument(*state, internal_id, read_options);
}

absl::StatusOr<StoredDocument> Store::ReadDocument(
    const CollectionState& state, uint32_t internal_id,
    const rocksdb::ReadOptions& read_options, DocumentParts parts) const {
  const CollectionRecord& collection = state.record;
  const std::string doc_key = keys::DocKey(collection.id, internal_id);
  std::string doc_bytes;
  const rocksdb::Status found =
      db_->Get(read_options, handle(ColumnFamily::kDocs), doc_key, &doc_bytes);
  if (found.IsNotFound()) {
    return absl::NotFoundError(absl::StrCat("no document with internal id ",
                                            internal_id, " in collection \"",
                                            collection.name, "\""));
  }
  RETURN_IF_ERROR(FromRocksDb(found, "read document"));
  ASSIGN_OR_RETURN(DocumentRecord record, DecodeDocumentRecord(doc_bytes));

  StoredDocument doc;
  doc.internal_id = internal_id;
  doc.external_id = std::move(record.external_id);
  doc.metadata = std::move(record.metadata);
  doc.text = std::move(record.text);  // inline: written by format 1
  doc.created_unix_micros = record.created_unix_micros;
  doc.updated_unix_micros = record.updated_unix_micros;
  if (parts == DocumentParts::kRecordOnly) return doc;
  if (collection.config.store_text && !doc.text) {
    std::string text;
    const rocksdb::Status read =
        db_->Get(read_options, handle(ColumnFamily::kText), doc_key, &text);
    if (read.ok()) {
      doc.text = std::move(text);
    } else if (!read.IsNotFound()) {  // NotFound: written as signatures
      RETURN_IF_ERROR(FromRocksDb(read, "read text"));
    }
  }
  auto read = [&]<typename Family>(const Family& family) {
    return ReadFamily(family, *db_, handle(Family::kColumnFamily), read_options,
                      collection, internal_id, doc_key);
  };
  ASSIGN_OR_RETURN(std::optional<MinHashSignature> minhash,
                   read(MinHashFamily{}));
  if (minhash.has_value()) doc.minhash = std::move(*minhash);  // kept: always
  ASSIGN_OR_RETURN(doc.simhash, read(SimHashFamily{}));
  ASSIGN_OR_RETURN(doc.embedding, read(EmbeddingFamily{}));
  for (size_t k = 0; k < KeptFamilies().size(); ++k) {
    const KeptColumnFamily family{*KeptFamilies()[k]};
    ASSIGN_OR_RETURN(std::optional<std::string> value,
                     ReadFamily(family, *db_, kept_handle(k), read_options,
                                collection, internal_id, doc_key));
    if (value.has_value()) {
      doc.kept.push_back({std::string(family.Name()), *std::move(value),
                          family.ConfigHash(collection)});
    }
  }
  return doc;
}

absl::StatusOr<std::vector<std::optional<std::vector<uint64_t>>>>
Store::GetShingleSets(const CollectionRecord& collection,
                      std::span<const uint32_t> internal_ids) const {
  ASSIGN_OR_RETURN(const std::shared_ptr<CollectionState> state,
                   FindCollection(collection));
  return MultiGetDecoded(EvidenceFamily{}, *db_,
                         handle(ColumnFamily::kEvidence), state->record,
                         internal_ids);
}

absl::StatusOr<std::vector<std::optional<MinHashSignature>>>
Store::GetMinHashes(const CollectionRecord& collection,
                    std::span<const uint32_t> internal_ids) const {
  ASSIGN_OR_RETURN(const std::shared_ptr<CollectionState> state,
                   FindCollection(collection));
  return MultiGetDecoded(MinHashFamily{}, *db_, handle(ColumnFamily::kMinHash),
                         state->record, internal_ids);
}

absl::StatusOr<std::vector<std::optional<std::string>>> Store::GetKeptValues(
    const CollectionRecord& collection, std::string_view family,
    std::span<const uint32_t> internal_ids) const {
  ASSIGN_OR_RETURN(const std::shared_ptr<CollectionState> state,
                   FindCollection(collection));
  const int index = KeptFamilyIndex(family);
  if (index < 0 || !state->record.config.Keeps(family)) {
    return std::vector<std::optional<std::string>>(internal_ids.size());
  }
  return MultiGetDecoded(KeptColumnFamily{*KeptFamilies()[index]}, *db_,
                         kept_handle(index), state->record, internal_ids);
}

absl::StatusOr<uint64_t> Store::LogSequence(
    const CollectionRecord& collection) const {
  ASSIGN_OR_RETURN(const std::shared_ptr<CollectionState> state,
                   FindCollection(collection));
  return ReadLogSequence(*db_, handle(ColumnFamily::kMeta), state->record);
}

absl::Status Store::RecordLogSequence(const CollectionRecord& collection,
                                      uint64_t sequence) {
  ASSIGN_OR_RETURN(const std::shared_ptr<CollectionState> state,
                   FindCollection(collection));
  MutexLock lock(&state->mu);  // ordered with the collection's writes
  if (state->dropped) {
    return absl::NotFoundError(
        absl::StrCat("collection \"", state->record.name, "\" was dropped"));
  }
  ASSIGN_OR_RETURN(
      const uint64_t recorded,
      ReadLogSequence(*db_, handle(ColumnFamily::kMeta), state->record));
  if (sequence == recorded) return absl::OkStatus();
  RETURN_IF_ERROR(CheckLogSequenceAdvances(*db_, handle(ColumnFamily::kMeta),
                                           state->record, sequence));
  rocksdb::WriteBatch batch;
  batch.Put(handle(ColumnFamily::kMeta), keys::LogSequenceKey(state->record.id),
            keys::EncodeU64LittleEndian(sequence));
  return WriteGuarded(batch, /*sync=*/false,
                      DiskSpaceGuard::WriteKind::kShrinking,
                      "record log sequence");
}

absl::Status Store::MarkSnapshotLoading(const CollectionRecord& collection) {
  ASSIGN_OR_RETURN(const std::shared_ptr<CollectionState> state,
                   FindCollection(collection));
  MutexLock lock(&state->mu);
  if (state->dropped) {
    return absl::NotFoundError(
        absl::StrCat("collection \"", state->record.name, "\" was dropped"));
  }
  rocksdb::WriteBatch batch;
  batch.Put(handle(ColumnFamily::kMeta),
            keys::SnapshotLoadingKey(state->record.id), "");
  // Synced: the documents that follow must never be taken for a whole copy.
  return WriteGuarded(batch, /*sync=*/true, DiskSpaceGuard::WriteKind::kGrowing,
                      "mark snapshot loading");
}

absl::Status Store::FinishSnapshotLoading(const CollectionRecord& collection,
                                          uint64_t log_sequence) {
  ASSIGN_OR_RETURN(const std::shared_ptr<CollectionState> state,
                   FindCollection(collection));
  MutexLock lock(&state->mu);
  if (state->dropped) {
    return absl::NotFoundError(
        absl::StrCat("collection \"", state->record.name, "\" was dropped"));
  }
  rocksdb::WriteBatch batch;
  if (log_sequence != 0) {
    RETURN_IF_ERROR(CheckLogSequenceAdvances(*db_, handle(ColumnFamily::kMeta),
                                             state->record, log_sequence));
    batch.Put(handle(ColumnFamily::kMeta),
              keys::LogSequenceKey(state->record.id),
              keys::EncodeU64LittleEndian(log_sequence));
  }
  batch.Delete(handle(ColumnFamily::kMeta),
               keys::SnapshotLoadingKey(state->record.id));
  return WriteGuarded(batch, /*sync=*/true,
                      DiskSpaceGuard::WriteKind::kShrinking,
                      "finish snapshot loading");
}

absl::StatusOr<bool> Store::SnapshotLoading(
    const CollectionRecord& collection) const {
  ASSIGN_OR_RETURN(const std::shared_ptr<CollectionState> state,
                   FindCollection(collection));
  std::string value;
  const rocksdb::Status read =
      db_->Get(rocksdb::ReadOptions(), handle(ColumnFamily::kMeta),
               keys::SnapshotLoadingKey(state->record.id), &value);
  if (read.IsNotFound()) return false;
  RETURN_IF_ERROR(FromRocksDb(read, "read snapshot mark"));
  return true;
}

absl::StatusOr<uint32_t> Store::DeleteDocument(
    const CollectionRecord& collection, std::string_view external_id,
    const WriteOptions& options) {
  ASSIGN_OR_RETURN(const std::shared_ptr<CollectionState> state,
                   FindCollection(collection));
  RETURN_IF_ERROR(ValidateExternalId(external_id));
  const uint32_t collection_id = state->record.id;
  const std::string id_key = keys::IdKey(collection_id, external_id);

  MutexLock lock(&state->mu);
  if (state->dropped) return DocumentNotFound(state->record, external_id);
  std::string value;
  const rocksdb::Status found = db_->Get(
      rocksdb::ReadOptions(), handle(ColumnFamily::kIds), id_key, &value);
  rocksdb::WriteBatch batch;
  if (options.log_sequence != 0) {
    // Even when there is nothing to delete: the entry was applied, alike on
    // every replica.
    RETURN_IF_ERROR(CheckLogSequenceAdvances(*db_, handle(ColumnFamily::kMeta),
                                             state->record,
                                             options.log_sequence));
    batch.Put(handle(ColumnFamily::kMeta), keys::LogSequenceKey(collection_id),
              keys::EncodeU64LittleEndian(options.log_sequence));
  }
  if (found.IsNotFound()) {
    if (batch.Count() > 0) {
      RETURN_IF_ERROR(WriteGuarded(batch, options.sync,
                                   DiskSpaceGuard::WriteKind::kShrinking,
                                   "record log sequence"));
    }
    return DocumentNotFound(state->record, external_id);
  }
  RETURN_IF_ERROR(FromRocksDb(found, "look up external id"));
  ASSIGN_OR_RETURN(const uint32_t internal_id, DecodeInternalId(value));

  const std::string doc_key = keys::DocKey(collection_id, internal_id);
  batch.Delete(handle(ColumnFamily::kIds), id_key);
  for (rocksdb::ColumnFamilyHandle* family : document_handles()) {
    batch.Delete(family, doc_key);
  }
  RETURN_IF_ERROR(WriteGuarded(batch, options.sync,
                               DiskSpaceGuard::WriteKind::kShrinking,
                               "delete document"));
  // Reusable once the caller has taken it out of its indexes: Collection
  // holds its write lock across both, and puts take that lock too.
  state->free_ids.push_back(internal_id);
  return internal_id;
}

absl::Status Store::ForEachSignature(
    const CollectionRecord& collection,
    absl::FunctionRef<absl::Status(StoredSignatures)> fn) const {
  ASSIGN_OR_RETURN(const std::shared_ptr<CollectionState> state,
                   FindCollection(collection));
  const CollectionRecord& stored = state->record;
  const std::string begin = keys::CollectionPrefix(stored.id);
  const std::string end = keys::CollectionRangeEnd(stored.id);
  const rocksdb::Slice upper_bound(end);
  rocksdb::ManagedSnapshot snapshot(db_.get());
  rocksdb::ReadOptions read_options;
  read_options.snapshot = snapshot.snapshot();
  // A full scan would evict the entries that serve lookups.
  read_options.fill_cache = false;
  read_options.iterate_upper_bound = &upper_bound;
  // Sequential: large reads ahead, for a store the page cache does not hold
  // (10M documents are ~10 GB of signatures).
  read_options.readahead_size = size_t{4} << 20;

  // The families are keyed by internal id: walk them in lockstep.
  std::unique_ptr<rocksdb::Iterator> minhash(
      db_->NewIterator(read_options, handle(ColumnFamily::kMinHash)));
  // The signatures' files, read into the page cache ahead of the scan.
  rocksdb::ColumnFamilyMetaData minhash_files;
  db_->GetColumnFamilyMetaData(handle(ColumnFamily::kMinHash), &minhash_files);
  ScanAhead ahead(FilesOfRange(minhash_files, begin, end),
                  /*lead_bytes=*/uint64_t{256} << 20);
  auto companion = [&](bool wanted, ColumnFamily family) {
    std::unique_ptr<rocksdb::Iterator> it;
    if (wanted) {
      it.reset(db_->NewIterator(read_options, handle(family)));
      it->Seek(begin);
    }
    return it;
  };
  std::unique_ptr<rocksdb::Iterator> simhash =
      companion(SimHashFamily::Kept(stored.config), ColumnFamily::kSimHash);
  std::unique_ptr<rocksdb::Iterator> embedding =
      companion(EmbeddingFamily::Kept(stored.config), ColumnFamily::kEmbedding);
  // The companion's value for the minhash iterator's document, which every
  // document must have.
  auto aligned =
      [&](rocksdb::Iterator& it, uint32_t internal_id,
          std::string_view what) -> absl::StatusOr<std::string_view> {
    while (it.Valid() && it.key().compare(minhash->key()) < 0) it.Next();
    if (!it.Valid() || it.key() != minhash->key()) {
      RETURN_IF_ERROR(
          FromRocksDb(it.status(), absl::StrCat("scan ", AbslView(what))));
      return CorruptDocument(
          stored, internal_id,
          absl::StrCat("document has no ", AbslView(what), " entry"));
    }
    return it.value().ToStringView();
  };
  uint64_t rows = 0;
  for (minhash->Seek(begin); minhash->Valid(); minhash->Next()) {
    // A long scan (an index rebuild) keeps the store from counting as idle.
    if (++rows % 4096 == 0) {
      NoteActivity();
      ahead.At(minhash->key().ToStringView());
    }
    const std::optional<uint32_t> internal_id =
        keys::ParseDocKey(minhash->key().ToStringView(), stored.id);
    if (!internal_id.has_value()) {
      return absl::DataLossError(
          absl::StrCat("collection \"", stored.name, "\": malformed key ",
                       Quoted(minhash->key().ToStringView()), " in minhash"));
    }
    StoredSignatures signatures;
    signatures.internal_id = *internal_id;
    ASSIGN_OR_RETURN(signatures.minhash,
                     DecodeChecked(MinHashFamily{}, stored, *internal_id,
                                   minhash->value().ToStringView()));
    if (simhash != nullptr) {
      ASSIGN_OR_RETURN(const std::string_view bytes,
                       aligned(*simhash, *internal_id, "simhash"));
      ASSIGN_OR_RETURN(
          signatures.simhash,
          DecodeChecked(SimHashFamily{}, stored, *internal_id, bytes));
    }
    if (embedding != nullptr) {
      ASSIGN_OR_RETURN(const std::string_view bytes,
                       aligned(*embedding, *internal_id, "embedding"));
      ASSIGN_OR_RETURN(
          signatures.embedding,
          DecodeChecked(EmbeddingFamily{}, stored, *internal_id, bytes));
    }
    RETURN_IF_ERROR(fn(std::move(signatures)));
  }
  return FromRocksDb(minhash->status(), "scan minhash");
}

absl::StatusOr<uint64_t> Store::CountDocuments(
    const CollectionRecord& collection) const {
  ASSIGN_OR_RETURN(const std::shared_ptr<CollectionState> state,
                   FindCollection(collection));
  const std::string begin = keys::CollectionPrefix(state->record.id);
  const std::string end = keys::CollectionRangeEnd(state->record.id);
  const rocksdb::Slice upper_bound(end);
  rocksdb::ReadOptions read_options;
  read_options.fill_cache = false;
  read_options.iterate_upper_bound = &upper_bound;
  std::unique_ptr<rocksdb::Iterator> it(
      db_->NewIterator(read_options, handle(ColumnFamily::kIds)));
  uint64_t count = 0;
  for (it->Seek(begin); it->Valid(); it->Next()) ++count;
  RETURN_IF_ERROR(FromRocksDb(it->status(), "count documents"));
  return count;
}

}  // namespace neardup::storage

namespace neardup::storage {

// Walks the docs family of one collection under a snapshot; each document
// is read whole (text, signatures) under that same snapshot.
class StoreDocumentCursor final : public DocumentCursor {
 public:
  StoreDocumentCursor(const Store* store,
                      std::shared_ptr<Store::CollectionState> state,
                      bool with_evidence)
      : store_(store),
        state_(std::move(state)),
        with_evidence_(with_evidence),
        snapshot_(store->db_.get()),
        end_(keys::CollectionRangeEnd(state_->record.id)),
        upper_bound_(end_) {
    read_options_.snapshot = snapshot_.snapshot();
    read_options_.fill_cache = false;  // a full scan would evict lookups
    read_options_.iterate_upper_bound = &upper_bound_;
    docs_.reset(store_->db_->NewIterator(read_options_,
                                         store_->handle(ColumnFamily::kDocs)));
    docs_->Seek(keys::CollectionPrefix(state_->record.id));
  }

  absl::StatusOr<std::vector<StoredDocument>> Next(size_t max_docs,
                                                   size_t max_bytes) override {
    store_->NoteActivity();  // exports read on
    std::vector<StoredDocument> out;
    size_t bytes = 0;
    for (; docs_->Valid() && out.size() < max_docs && bytes < max_bytes;
         docs_->Next()) {
      const std::optional<uint32_t> internal_id =
          keys::ParseDocKey(docs_->key().ToStringView(), state_->record.id);
      if (!internal_id.has_value()) {
        return absl::DataLossError(absl::StrCat(
            "collection \"", state_->record.name, "\": malformed key ",
            Quoted(docs_->key().ToStringView()), " in docs"));
      }
      ASSIGN_OR_RETURN(
          StoredDocument doc,
          store_->ReadDocument(*state_, *internal_id, read_options_));
      if (with_evidence_) {
        ASSIGN_OR_RETURN(doc.shingles, ReadEvidence(docs_->key(), doc));
        if (doc.shingles) bytes += doc.shingles->size() * sizeof(uint64_t);
      }
      bytes += doc.external_id.size() + (doc.text ? doc.text->size() : 0);
      for (const auto& [key, value] : doc.metadata) {
        bytes += key.size() + value.size();
      }
      out.push_back(std::move(doc));
    }
    RETURN_IF_ERROR(FromRocksDb(docs_->status(), "scan documents"));
    return out;
  }

  absl::StatusOr<uint64_t> LogSequence() override {
    return ReadLogSequence(*store_->db_, store_->handle(ColumnFamily::kMeta),
                           state_->record, read_options_);
  }

 private:
  // The document's shingle set under the cursor's snapshot; nullopt when it
  // has none (written as signatures, or an estimate collection).
  absl::StatusOr<std::optional<std::vector<uint64_t>>> ReadEvidence(
      const rocksdb::Slice& doc_key, const StoredDocument& doc) {
    return ReadFamily(EvidenceFamily{}, *store_->db_,
                      store_->handle(ColumnFamily::kEvidence), read_options_,
                      state_->record, doc.internal_id, doc_key.ToString());
  }

  const Store* const store_;
  const std::shared_ptr<Store::CollectionState> state_;
  const bool with_evidence_;
  rocksdb::ManagedSnapshot snapshot_;
  const std::string end_;
  const rocksdb::Slice upper_bound_;
  rocksdb::ReadOptions read_options_;
  std::unique_ptr<rocksdb::Iterator> docs_;
};

absl::StatusOr<std::unique_ptr<DocumentCursor>> Store::OpenDocumentCursor(
    const CollectionRecord& collection, bool with_evidence) const {
  ASSIGN_OR_RETURN(std::shared_ptr<CollectionState> state,
                   FindCollection(collection));
  return std::make_unique<StoreDocumentCursor>(this, std::move(state),
                                               with_evidence);
}

}  // namespace neardup::storage
