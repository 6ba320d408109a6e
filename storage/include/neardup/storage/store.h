#ifndef NEARDUP_STORAGE_STORE_H_
#define NEARDUP_STORAGE_STORE_H_

// The persistent store: collections, their documents and signatures in one
// RocksDB database. RocksDB is the truth; in-memory indexes are rebuilt from
// ForEachSignature.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "neardup/base/sync.h"
#include "neardup/core/collection_config.h"
#include "neardup/storage/collection_record.h"
#include "neardup/storage/column_families.h"
#include "neardup/storage/disk_space_guard.h"
#include "neardup/storage/document.h"
#include "neardup/storage/store_options.h"

namespace rocksdb {
class Cache;
class ColumnFamilyHandle;
class DB;
class Iterator;
class Status;
class WriteBatch;
struct ReadOptions;
}  // namespace rocksdb

namespace neardup::storage {

class BlobGcSwitch;
class IdleSettler;

struct StoreStats {
  uint64_t live_sst_bytes = 0;  // SST files of the current version
  // Blob files of the current version (the evidence family's values), and
  // how much of them is garbage not yet collected.
  uint64_t live_blob_bytes = 0;
  uint64_t blob_garbage_bytes = 0;
  bool blob_gc_on = false;       // see BlobGcSwitch
  uint64_t blob_gc_starts = 0;   // times it was switched on since Open
  uint64_t total_sst_bytes = 0;  // all SST files, incl. obsolete ones
  uint64_t estimated_pending_compaction_bytes = 0;
  uint64_t memtable_bytes = 0;  // active, unflushed and pinned memtables
  // Since Open: time writers spent delayed or stopped by RocksDB's write
  // controller, and how often a column family slowed or stopped writes
  // (too many L0 files, memtables or pending compaction bytes).
  uint64_t write_stall_micros = 0;
  uint64_t write_slowdowns = 0;
  uint64_t write_stops = 0;
  uint64_t block_cache_usage_bytes = 0;  // includes charged memtables
  uint64_t block_cache_capacity_bytes = 0;
  // The filesystem holding the store (statvfs; 0 when unknown).
  uint64_t disk_available_bytes = 0;
  uint64_t disk_capacity_bytes = 0;
  // Growing writes are refused: see DiskSpaceGuard.
  bool disk_full = false;
  std::string disk_full_reason;  // empty when not full
  uint64_t disk_reserve_bytes = 0;
};

// What a checkpoint captured, read back from the checkpoint itself.
struct CheckpointInfo {
  // Every write with a sequence number up to this one is in the checkpoint
  // (later ones may be too).
  uint64_t sequence_number = 0;
  // Documents per collection in the checkpoint, by name.
  std::map<std::string, uint64_t> documents;
  // Sum of the checkpoint's file sizes. Files hard-linked to the live store
  // count in full, though they take no extra space on the same filesystem.
  uint64_t bytes = 0;
};

// Documents of one collection from one consistent snapshot, in internal-id
// order, read batch by batch (what an export streams). Holds the snapshot,
// and so RocksDB's old versions, until destroyed. Not thread-safe.
class DocumentCursor {
 public:
  virtual ~DocumentCursor() = default;
  // The next documents, with text and signatures: at most `max_docs`, and
  // no more once `max_bytes` of text, metadata and evidence are collected
  // (at least one while any is left). Empty at the end.
  virtual absl::StatusOr<std::vector<StoredDocument>> Next(
      size_t max_docs, size_t max_bytes) = 0;
  // Store::LogSequence as of the cursor's snapshot: the documents are the
  // collection's state right after that log entry.
  virtual absl::StatusOr<uint64_t> LogSequence() = 0;
};

// A stored collection record this build cannot use: it does not decode,
// does not match its key or id counters. Kept (the documents are still on
// disk) and dropable; never served.
struct UnreadableCollection {
  std::string name;
  absl::Status reason;
};

// Thread-safe. Errors are absl::Status; RocksDB failures map to UNAVAILABLE
// (I/O), DATA_LOSS (corruption), RESOURCE_EXHAUSTED (no space) and so on.
// Below StoreOptions::min_free_disk_bytes of free space, puts and creates
// are refused with RESOURCE_EXHAUSTED (deletes and drops are not: they make
// room); writes resume by themselves once space is back.
//
// Document operations take the CollectionRecord returned by Create/Get/List;
// a record of a collection that has since been dropped gives NOT_FOUND.
class Store {
 public:
  // On-disk format this build writes and reads. 2 added the evidence column
  // family: a build of format 1 would replace documents without deleting
  // their evidence, so it must refuse a format-2 store. 3 added the tlsh
  // family and the perceptual and newsbot families, for the same reason. 4
  // added embedding spaces and their family. 5 made kept families open:
  // every build of format 5 reads a collection's list of kept families and
  // quarantines a collection keeping one it does not know, so a new kept
  // family needs no new format (a format-4 build could predate the list and
  // would ignore the family). 6 added a collection's evidence_bits: a build
  // of format 5 would read 32-bit evidence as 64-bit. Older stores are
  // upgraded in place when opened (their records read as they were; their
  // collections keep 64-bit evidence).
  static constexpr uint32_t kFormatVersion = 6;
  static constexpr uint32_t kOldestUpgradableFormat = 1;

  // Opens or creates the store in `dir`. FAILED_PRECONDITION when the
  // directory holds a RocksDB database that is not a neardup store, or one
  // written by a newer format version; NOT_FOUND when it holds nothing and
  // create_if_missing is false; INVALID_ARGUMENT for bad options.
  static absl::StatusOr<std::unique_ptr<Store>> Open(
      const std::string& dir, const StoreOptions& options = {});

  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // Normalizes `config` (NormalizeCollectionConfig), stamps its config hashes
  // and persists the record with sync. Names: 1 to 128 bytes of
  // [A-Za-z0-9_.-] (INVALID_ARGUMENT); ALREADY_EXISTS if taken.
  absl::StatusOr<CollectionRecord> CreateCollection(
      std::string_view name, const CollectionConfig& config);
  absl::StatusOr<CollectionRecord> GetCollection(std::string_view name) const;
  std::vector<CollectionRecord> ListCollections() const;  // by name
  // Records found at Open that could not be loaded, by name. GetCollection
  // answers FAILED_PRECONDITION for them.
  std::vector<UnreadableCollection> UnreadableCollections() const;
  // Removes the collection and all its documents atomically, with sync.
  // Also removes an unreadable record (and its documents when its id is
  // known).
  absl::Status DropCollection(std::string_view name);

  // Inserts or replaces the document with `doc.external_id`. A replace keeps
  // the internal id and the creation time. The document's entries and the id
  // counter are written in one atomic batch. Refused, with nothing written:
  // signatures from another config (FAILED_PRECONDITION, both hashes in the
  // message), a MinHash width other than num_perm, a SimHash missing when
  // the collection has it enabled or present when it has not, an empty or
  // over-long external id, duplicate metadata keys (INVALID_ARGUMENT).
  // `doc.text` is silently not stored unless the collection has store_text.
  // Puts and deletes of one collection are serialized (id lookup and
  // allocation must be atomic); different collections write in parallel.
  absl::StatusOr<PutResult> PutDocument(const CollectionRecord& collection,
                                        const DocumentWrite& doc,
                                        const WriteOptions& options = {});
  // PutDocument for many documents in one atomic batch (one WAL write).
  // Each document gets its own result (a later put of the same id in the
  // batch wins); the outer status fails only when the batch could not be
  // written, and then nothing was. `encoded_evidence`, when given, holds
  // EncodeEvidence(collection, *doc.shingles) for each document (empty for
  // those without evidence), made by the caller outside its write lock.
  absl::StatusOr<std::vector<absl::StatusOr<PutResult>>> PutDocuments(
      const CollectionRecord& collection,
      std::span<const DocumentWrite* const> docs,
      const WriteOptions& options = {},
      std::span<const std::string> encoded_evidence = {});
  // The last WriteOptions::log_sequence written to the collection (0: none).
  // A write carrying one not after it is refused (FAILED_PRECONDITION), and
  // a put of only refused documents does not record it.
  absl::StatusOr<uint64_t> LogSequence(
      const CollectionRecord& collection) const;
  // Records that the log through `sequence` was read (entries of other
  // shards passed over), without a document: nothing when it is the
  // recorded one, FAILED_PRECONDITION when before it.
  absl::Status RecordLogSequence(const CollectionRecord& collection,
                                 uint64_t sequence);
  // A replica loading a peer's snapshot into an empty collection marks it
  // first, and records the snapshot's log sequence and clears the mark in
  // one write once every document is in: a crash halfway is seen at the
  // next start (SnapshotLoading), and the copy made anew.
  absl::Status MarkSnapshotLoading(const CollectionRecord& collection);
  absl::Status FinishSnapshotLoading(const CollectionRecord& collection,
                                     uint64_t log_sequence);
  absl::StatusOr<bool> SnapshotLoading(
      const CollectionRecord& collection) const;
  // A document's evidence (its shingle set) as PutDocuments stores it.
  static std::string EncodeEvidence(const CollectionRecord& collection,
                                    std::span<const uint64_t> shingles);
  // NOT_FOUND when absent; INVALID_ARGUMENT for an empty or over-long id.
  // Reads one consistent snapshot.
  absl::StatusOr<StoredDocument> GetDocument(
      const CollectionRecord& collection, std::string_view external_id) const;
  // kRecordOnly reads one key instead of two or three: what a query needs
  // to name its matches.
  absl::StatusOr<StoredDocument> GetDocumentByInternalId(
      const CollectionRecord& collection, uint32_t internal_id,
      DocumentParts parts = DocumentParts::kAll) const;
  // The exact evidence of each document, in order: nullopt for a document
  // without (written as signatures, or gone). DATA_LOSS when a stored set
  // does not decode or carries another config hash.
  absl::StatusOr<std::vector<std::optional<std::vector<uint64_t>>>>
  GetShingleSets(const CollectionRecord& collection,
                 std::span<const uint32_t> internal_ids) const;
  // The stored MinHash signature of each document, in order: nullopt for a
  // document that is gone. DATA_LOSS for another config hash.
  absl::StatusOr<std::vector<std::optional<MinHashSignature>>> GetMinHashes(
      const CollectionRecord& collection,
      std::span<const uint32_t> internal_ids) const;
  // A kept family's value (its normalized text form) of each document, in
  // order: nullopt for a document without one (too short, written as
  // signatures without it, or gone), and for all when the collection does
  // not keep the family. DATA_LOSS for another config hash.
  absl::StatusOr<std::vector<std::optional<std::string>>> GetKeptValues(
      const CollectionRecord& collection, std::string_view family,
      std::span<const uint32_t> internal_ids) const;
  // Returns the internal id the document had; NOT_FOUND when absent.
  absl::StatusOr<uint32_t> DeleteDocument(const CollectionRecord& collection,
                                          std::string_view external_id,
                                          const WriteOptions& options = {});

  // Calls `fn` for every document of the collection in internal-id order,
  // from one consistent snapshot, without filling the block cache. Stops at
  // and returns the first error of `fn`. DATA_LOSS when a stored signature
  // carries another config hash or does not parse.
  absl::Status ForEachSignature(
      const CollectionRecord& collection,
      absl::FunctionRef<absl::Status(StoredSignatures)> fn) const;
  // Scans the collection's id entries: O(documents).
  absl::StatusOr<uint64_t> CountDocuments(
      const CollectionRecord& collection) const;
  // Ids below InternalIdBound that no document holds, found by the index
  // rebuild: puts reuse them before allocating new ones. INVALID_ARGUMENT
  // for an id at or above the bound.
  absl::Status SetFreeInternalIds(const CollectionRecord& collection,
                                  std::vector<uint32_t> free_ids);
  // One past the highest internal id handed out so far: an O(1) upper bound
  // of the document count, for sizing indexes before a rebuild. Deleted
  // documents' ids are reused, so it follows the peak of live documents.
  absl::StatusOr<uint32_t> InternalIdBound(
      const CollectionRecord& collection) const;

  // Writes a consistent, openable copy of the store into `dir`, which must
  // not exist yet (ALREADY_EXISTS) and whose parent must exist; hard links
  // where possible. Writers are not paused. Restore: Open(dir). The
  // document counts are read back from the checkpoint, so they are exactly
  // what it holds.
  absl::StatusOr<CheckpointInfo> Checkpoint(const std::string& dir);

  // A cursor over the collection's documents as they are now;
  // `with_evidence` also reads each document's shingle set (when it has one).
  absl::StatusOr<std::unique_ptr<DocumentCursor>> OpenDocumentCursor(
      const CollectionRecord& collection, bool with_evidence = false) const;

  StoreStats Stats() const;

  // A read happened (queries, gets): the store is not idle. Writes count by
  // themselves. See IdleSettler.
  void NoteActivity() const;

 private:
  struct CollectionState;
  friend class StoreDocumentCursor;

  // `handles` are in ColumnFamily order, then any families this build does
  // not know; the Store owns them.
  Store(std::string dir, std::unique_ptr<rocksdb::DB> db,
        std::vector<rocksdb::ColumnFamilyHandle*> handles,
        std::shared_ptr<rocksdb::Cache> block_cache,
        uint64_t min_free_disk_bytes);

  // Every write of documents and collections: the disk guard's check, the
  // write, and a note of a no-space failure.
  absl::Status WriteGuarded(rocksdb::WriteBatch& batch, bool sync,
                            DiskSpaceGuard::WriteKind kind,
                            std::string_view what);

  absl::Status InitializeOrCheckFormat(bool fresh);
  absl::Status LoadCollections();
  // Loads one stored record into collections_. An error quarantines the
  // record; it does not fail Open.
  absl::Status LoadCollection(std::string_view key, std::string_view value,
                              rocksdb::Iterator& docs)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(ddl_mu_, collections_mu_);
  // Records that share an id cannot all be right: all are quarantined.
  void QuarantineSharedIds() ABSL_EXCLUSIVE_LOCKS_REQUIRED(collections_mu_);
  bool IdInUseElsewhere(uint32_t id, std::string_view name) const
      ABSL_SHARED_LOCKS_REQUIRED(collections_mu_);
  // Adds the deletes of every entry of collection `id` but its record.
  void AddDropOfId(uint32_t id, rocksdb::WriteBatch& batch) const;
  // The live state of `collection`; NOT_FOUND once it was dropped.
  absl::StatusOr<std::shared_ptr<CollectionState>> FindCollection(
      const CollectionRecord& collection) const;
  absl::StatusOr<StoredDocument> ReadDocument(
      const CollectionState& state, uint32_t internal_id,
      const rocksdb::ReadOptions& read_options,
      DocumentParts parts = DocumentParts::kAll) const;

  rocksdb::ColumnFamilyHandle* handle(ColumnFamily cf) const {
    return handles_[static_cast<size_t>(cf)];
  }
  // The column family of KeptFamilies()[index].
  rocksdb::ColumnFamilyHandle* kept_handle(size_t index) const {
    return handles_[kNumColumnFamilies + index];
  }
  // Every family keyed by a document (kDocumentColumnFamilies and the kept
  // families'): what deleting it deletes.
  std::vector<rocksdb::ColumnFamilyHandle*> document_handles() const;

  const std::string dir_;
  const std::unique_ptr<rocksdb::DB> db_;
  const std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  const std::shared_ptr<rocksdb::Cache> block_cache_;
  // Mutable: Stats() probes the filesystem.
  mutable DiskSpaceGuard disk_guard_;
  std::shared_ptr<BlobGcSwitch> evidence_blob_gc_;
  std::unique_ptr<IdleSettler> idle_settler_;

  // Serializes creating and dropping collections. Their synced writes run
  // under this lock only, so lookups of other collections never wait on
  // an fsync. Lock order: ddl_mu_, collections_mu_, CollectionState::mu.
  Mutex ddl_mu_;
  uint32_t next_collection_id_ ABSL_GUARDED_BY(ddl_mu_) = 0;
  // Held exclusively only to add or remove a map entry.
  mutable SharedMutex collections_mu_;
  std::map<std::string, std::shared_ptr<CollectionState>, std::less<>>
      collections_ ABSL_GUARDED_BY(collections_mu_);  // by name
  struct Unreadable {
    std::optional<uint32_t> id;  // when the record decoded that far
    absl::Status reason;
  };
  std::map<std::string, Unreadable, std::less<>> unreadable_
      ABSL_GUARDED_BY(collections_mu_);
};

}  // namespace neardup::storage

#endif  // NEARDUP_STORAGE_STORE_H_
