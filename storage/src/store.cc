// Store: opening, format version, collections, checkpoints and stats.
// Document operations are in store_documents.cc.

#include "neardup/storage/store.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <cstdarg>
#include <filesystem>
#include <map>
#include <system_error>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "collection_state.h"
#include "neardup/base/absl_compat.h"
#include "neardup/base/status_macros.h"
#include "neardup/core/collection_fingerprinter.h"
#include "neardup/storage/column_families.h"
#include "neardup/storage/internal/blob_gc_switch.h"
#include "neardup/storage/internal/idle_settler.h"
#include "neardup/storage/internal/keys.h"
#include "neardup/storage/internal/record_codec.h"
#include "neardup/storage/validation.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/utilities/checkpoint.h"
#include "rocksdb/write_batch.h"
#include "rocksdb_status.h"
#include "rocksdb_tuning.h"
#include "signature_families.h"

namespace neardup::storage {
namespace {

bool IsKnownFamily(const std::string& name) {
  return FindKeptFamily(name) != nullptr ||
         std::any_of(
             kColumnFamilies.begin(), kColumnFamilies.end(),
             [&](const ColumnFamilyInfo& info) { return info.name == name; });
}

rocksdb::WriteOptions SyncedWrite() {
  rocksdb::WriteOptions options;
  options.sync = true;
  return options;
}

absl::StatusOr<uint32_t> ReadMetaCounter(rocksdb::DB& db,
                                         rocksdb::ColumnFamilyHandle* meta,
                                         std::string_view key) {
  std::string value;
  const rocksdb::Status status =
      db.Get(rocksdb::ReadOptions(), meta, key, &value);
  if (status.IsNotFound()) {
    return absl::DataLossError(
        absl::StrCat("meta entry \"", AbslView(key), "\" is missing"));
  }
  RETURN_IF_ERROR(
      FromRocksDb(status, absl::StrCat("read meta ", AbslView(key))));
  const std::optional<uint32_t> counter = keys::DecodeU32LittleEndian(value);
  if (!counter.has_value()) {
    return absl::DataLossError(
        absl::StrCat("meta entry \"", AbslView(key), "\" is not a u32"));
  }
  return *counter;
}

}  // namespace

std::string Store::EncodeEvidence(const CollectionRecord& collection,
                                  std::span<const uint64_t> shingles) {
  return EncodeEvidenceValue(EvidenceFamily::ConfigHash(collection), shingles,
                             EvidenceBitsOf(collection.config));
}

absl::StatusOr<std::unique_ptr<Store>> Store::Open(
    const std::string& dir, const StoreOptions& options) {
  RETURN_IF_ERROR(ValidateStoreOptions(options));
  std::error_code error;
  const bool fresh =
      !std::filesystem::exists(std::filesystem::path(dir) / "CURRENT", error);
  if (error) {
    return absl::UnavailableError(
        absl::StrCat("cannot inspect ", dir, ": ", error.message()));
  }

  RocksDbTuning tuning = MakeRocksDbTuning(options);
  std::vector<rocksdb::ColumnFamilyDescriptor> families =
      tuning.column_families;
  if (fresh) {
    if (!options.create_if_missing) {
      return absl::NotFoundError(absl::StrCat("no neardup store in ", dir));
    }
    std::filesystem::create_directories(dir, error);
    if (error) {
      return absl::UnavailableError(
          absl::StrCat("cannot create ", dir, ": ", error.message()));
    }
  } else {
    std::vector<std::string> existing;
    RETURN_IF_ERROR(FromRocksDb(
        rocksdb::DB::ListColumnFamilies(tuning.db_options, dir, &existing),
        absl::StrCat("list column families of ", dir)));
    // Refuse before opening: opening would add our families to a foreign
    // database.
    if (std::find(existing.begin(), existing.end(),
                  ColumnFamilyInfoOf(ColumnFamily::kMeta).name) ==
        existing.end()) {
      return absl::FailedPreconditionError(absl::StrCat(
          dir,
          " holds a RocksDB database that is not a neardup store (it has "
          "no \"meta\" column family)"));
    }
    for (const std::string& name : existing) {
      if (!IsKnownFamily(name)) {
        families.emplace_back(name, tuning.unknown_family_options);
      }
    }
  }

  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  RETURN_IF_ERROR(FromRocksDb(
      rocksdb::DB::Open(tuning.db_options, dir, families, &handles, &db),
      absl::StrCat("open ", dir)));
  std::unique_ptr<Store> store(
      new Store(dir, std::unique_ptr<rocksdb::DB>(db), std::move(handles),
                std::move(tuning.block_cache), options.min_free_disk_bytes));
  store->evidence_blob_gc_ = std::move(tuning.evidence_blob_gc);
  store->evidence_blob_gc_->Attach(store->db_.get(),
                                   store->handle(ColumnFamily::kEvidence));
  if (options.idle_settle_after.count() > 0) {
    store->idle_settler_ = std::make_unique<IdleSettler>(
        IdleSettlerOptions{.quiet = options.idle_settle_after,
                           .poll = std::min(options.idle_settle_after,
                                            std::chrono::milliseconds(1000))});
    store->idle_settler_->Attach(store->db_.get());
  }
  RETURN_IF_ERROR(store->InitializeOrCheckFormat(fresh));
  RETURN_IF_ERROR(store->LoadCollections());
  return store;
}

Store::Store(std::string dir, std::unique_ptr<rocksdb::DB> db,
             std::vector<rocksdb::ColumnFamilyHandle*> handles,
             std::shared_ptr<rocksdb::Cache> block_cache,
             uint64_t min_free_disk_bytes)
    : dir_(std::move(dir)),
      db_(std::move(db)),
      handles_(std::move(handles)),
      block_cache_(std::move(block_cache)),
      disk_guard_(db_.get(), min_free_disk_bytes,
                  DiskSpaceGuard::StatvfsProbe(dir_)) {}

void Store::NoteActivity() const {
  if (idle_settler_) idle_settler_->NoteActivity();
}

absl::Status Store::WriteGuarded(rocksdb::WriteBatch& batch, bool sync,
                                 DiskSpaceGuard::WriteKind kind,
                                 std::string_view what) {
  RETURN_IF_ERROR(disk_guard_.BeforeWrite(kind));
  rocksdb::WriteOptions options;
  options.sync = sync;
  const rocksdb::Status written = db_->Write(options, &batch);
  disk_guard_.AfterWrite(written);
  return FromRocksDb(written, what);
}

Store::~Store() {
  // Before the handles go: a compaction may still finish while closing.
  if (evidence_blob_gc_) evidence_blob_gc_->Detach();
  if (idle_settler_) idle_settler_->Detach();
  for (rocksdb::ColumnFamilyHandle* family : handles_) {
    db_->DestroyColumnFamilyHandle(family);
  }
  // Close() reports errors that the destructor of DB would swallow too; a
  // destructor has nowhere to send them, and the WAL makes them harmless.
  db_->Close().PermitUncheckedError();
}

absl::Status Store::InitializeOrCheckFormat(bool fresh) {
  rocksdb::ColumnFamilyHandle* meta = handle(ColumnFamily::kMeta);
  std::string value;
  const rocksdb::Status status =
      db_->Get(rocksdb::ReadOptions(), meta, keys::kFormatVersion, &value);
  if (status.IsNotFound()) {
    if (!fresh) {
      return absl::FailedPreconditionError(absl::StrCat(
          dir_,
          " has no neardup format_version: it is not a neardup store, "
          "or its creation was interrupted (then remove it)"));
    }
    rocksdb::WriteBatch batch;
    batch.Put(meta, keys::kFormatVersion,
              keys::EncodeU32LittleEndian(kFormatVersion));
    batch.Put(meta, keys::kNextCollectionId,
              keys::EncodeU32LittleEndian(keys::kFirstCollectionId));
    return FromRocksDb(db_->Write(SyncedWrite(), &batch),
                       absl::StrCat("initialize ", dir_));
  }
  RETURN_IF_ERROR(FromRocksDb(status, "read format_version"));
  const std::optional<uint32_t> version = keys::DecodeU32LittleEndian(value);
  if (!version.has_value()) {
    return absl::DataLossError(
        absl::StrCat(dir_, ": format_version is not a u32"));
  }
  if (*version > kFormatVersion) {
    return absl::FailedPreconditionError(absl::StrCat(
        dir_, " has store format version ", *version,
        ", written by a newer neardup; this build supports format version ",
        kFormatVersion));
  }
  if (*version < kOldestUpgradableFormat) {
    return absl::FailedPreconditionError(
        absl::StrCat(dir_, " has unsupported store format version ", *version,
                     "; this build supports format version ", kFormatVersion));
  }
  if (*version < kFormatVersion) {
    // Nothing to rewrite: older data reads as it is. The new number keeps
    // older builds away from the evidence, TLSH, vectors and kept families
    // they do not maintain.
    return FromRocksDb(db_->Put(SyncedWrite(), meta, keys::kFormatVersion,
                                keys::EncodeU32LittleEndian(kFormatVersion)),
                       absl::StrCat("upgrade the format version of ", dir_));
  }
  return absl::OkStatus();
}

absl::Status Store::LoadCollections() {
  rocksdb::ColumnFamilyHandle* meta = handle(ColumnFamily::kMeta);
  MutexLock ddl(&ddl_mu_);
  WriterLock lock(&collections_mu_);
  ASSIGN_OR_RETURN(next_collection_id_,
                   ReadMetaCounter(*db_, meta, keys::kNextCollectionId));

  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(
      rocksdb::ReadOptions(), handle(ColumnFamily::kCollections)));
  std::unique_ptr<rocksdb::Iterator> docs(
      db_->NewIterator(rocksdb::ReadOptions(), handle(ColumnFamily::kDocs)));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string key = it->key().ToString();
    const absl::Status loaded =
        LoadCollection(key, it->value().ToStringView(), *docs);
    // A failing read of the store itself (I/O, memory) is the store's
    // problem, not one collection's: it still fails Open.
    RETURN_IF_ERROR(FromRocksDb(docs->status(), "scan documents"));
    if (loaded.ok()) continue;
    if (loaded.code() != absl::StatusCode::kDataLoss &&
        loaded.code() != absl::StatusCode::kInvalidArgument &&
        loaded.code() != absl::StatusCode::kFailedPrecondition) {
      return loaded;
    }
    Unreadable& entry = unreadable_[key];
    entry.reason = loaded;
    // The id is kept (so that a drop removes the documents) only when it is
    // one this store could have handed out.
    if (auto record = DecodeCollectionRecord(it->value().ToStringView());
        record.ok() && record->name == key &&
        record->id >= keys::kFirstCollectionId &&
        record->id < next_collection_id_) {
      entry.id = record->id;
    }
  }
  RETURN_IF_ERROR(FromRocksDb(it->status(), "scan collections"));
  QuarantineSharedIds();
  return absl::OkStatus();
}

void Store::QuarantineSharedIds() {
  std::map<uint32_t, std::vector<std::string>> names_by_id;
  for (const auto& [name, state] : collections_) {
    names_by_id[state->record.id].push_back(name);
  }
  for (const auto& [id, names] : names_by_id) {
    if (names.size() < 2) continue;
    for (const std::string& name : names) {
      unreadable_[name] = {
          .id = id,
          .reason = absl::DataLossError(
              absl::StrCat("collection id ", id, " is used by ", names.size(),
                           " collection records")),
      };
      collections_.erase(name);
    }
  }
}

bool Store::IdInUseElsewhere(uint32_t id, std::string_view name) const {
  for (const auto& [other, state] : collections_) {
    if (other != name && state->record.id == id) return true;
  }
  for (const auto& [other, entry] : unreadable_) {
    if (other != name && entry.id == id) return true;
  }
  return false;
}

absl::Status Store::LoadCollection(std::string_view key, std::string_view value,
                                   rocksdb::Iterator& docs) {
  rocksdb::ColumnFamilyHandle* meta = handle(ColumnFamily::kMeta);
  ASSIGN_OR_RETURN(CollectionRecord record, DecodeCollectionRecord(value));
  if (record.name != key || record.id < keys::kFirstCollectionId ||
      record.id >= next_collection_id_) {
    return absl::DataLossError(
        absl::StrCat("collection record \"", AbslView(key), "\" (id ",
                     record.id, ") does not match its key or the id counter"));
  }
  ASSIGN_OR_RETURN(const uint32_t next_doc_id,
                   ReadMetaCounter(*db_, meta, keys::NextDocIdKey(record.id)));
  // A counter behind the stored ids would hand out an id twice.
  docs.SeekForPrev(keys::DocKey(record.id, keys::kInternalIdLimit));
  if (docs.Valid()) {
    const std::optional<uint32_t> last =
        keys::ParseDocKey(docs.key().ToStringView(), record.id);
    if (last.has_value() && *last >= next_doc_id) {
      return absl::DataLossError(
          absl::StrCat("collection \"", record.name, "\": stored internal id ",
                       *last, " is not below the id counter ", next_doc_id));
    }
  }
  const std::string name = record.name;
  collections_.emplace(
      name, std::make_shared<CollectionState>(std::move(record), next_doc_id));
  return absl::OkStatus();
}

absl::StatusOr<CollectionRecord> Store::CreateCollection(
    std::string_view name, const CollectionConfig& config) {
  RETURN_IF_ERROR(ValidateCollectionName(name));
  ASSIGN_OR_RETURN(CollectionConfig normalized,
                   NormalizeCollectionConfig(config));
  ASSIGN_OR_RETURN(const ConfigHashes hashes, ComputeConfigHashes(normalized));

  MutexLock ddl(&ddl_mu_);
  {
    ReaderLock lock(&collections_mu_);
    if (collections_.contains(name) || unreadable_.contains(name)) {
      return absl::AlreadyExistsError(
          absl::StrCat("collection \"", AbslView(name), "\" already exists"));
    }
  }
  if (next_collection_id_ >= keys::kCollectionIdLimit) {
    return absl::ResourceExhaustedError("collection ids exhausted");
  }
  CollectionRecord record{
      .id = next_collection_id_,
      .name = std::string(name),
      .config = std::move(normalized),
      .minhash_config_hash = hashes.minhash,
      .simhash_config_hash = hashes.simhash,
      .created_unix_micros = absl::ToUnixMicros(absl::Now()),
      .kept_config_hashes = std::move(hashes.kept),
  };
  rocksdb::ColumnFamilyHandle* meta = handle(ColumnFamily::kMeta);
  rocksdb::WriteBatch batch;
  batch.Put(handle(ColumnFamily::kCollections), name,
            EncodeCollectionRecord(record));
  batch.Put(meta, keys::kNextCollectionId,
            keys::EncodeU32LittleEndian(record.id + 1));
  batch.Put(meta, keys::NextDocIdKey(record.id),
            keys::EncodeU32LittleEndian(0));
  // Synced without collections_mu_: other collections stay readable.
  RETURN_IF_ERROR(
      WriteGuarded(batch, /*sync=*/true, DiskSpaceGuard::WriteKind::kGrowing,
                   absl::StrCat("create collection ", AbslView(name))));
  next_collection_id_ = record.id + 1;
  WriterLock lock(&collections_mu_);
  collections_.emplace(record.name,
                       std::make_shared<CollectionState>(record, 0));
  return record;
}

absl::StatusOr<CollectionRecord> Store::GetCollection(
    std::string_view name) const {
  ReaderLock lock(&collections_mu_);
  auto it = collections_.find(name);
  if (it == collections_.end()) {
    if (auto bad = unreadable_.find(name); bad != unreadable_.end()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "collection \"", AbslView(name), "\" cannot be loaded (",
          bad->second.reason.message(), "); drop it or restore a backup"));
    }
    return CollectionNotFound(name);
  }
  return it->second->record;
}

std::vector<CollectionRecord> Store::ListCollections() const {
  ReaderLock lock(&collections_mu_);
  std::vector<CollectionRecord> records;
  records.reserve(collections_.size());
  for (const auto& [name, state] : collections_) {
    records.push_back(state->record);
  }
  return records;
}

std::vector<UnreadableCollection> Store::UnreadableCollections() const {
  ReaderLock lock(&collections_mu_);
  std::vector<UnreadableCollection> out;
  out.reserve(unreadable_.size());
  for (const auto& [name, entry] : unreadable_) {
    out.push_back({name, entry.reason});
  }
  return out;
}

void Store::AddDropOfId(uint32_t id, rocksdb::WriteBatch& batch) const {
  const std::string begin = keys::CollectionPrefix(id);
  const std::string end = keys::CollectionRangeEnd(id);
  batch.Delete(handle(ColumnFamily::kMeta), keys::NextDocIdKey(id));
  batch.Delete(handle(ColumnFamily::kMeta), keys::LogSequenceKey(id));
  batch.Delete(handle(ColumnFamily::kMeta), keys::SnapshotLoadingKey(id));
  batch.DeleteRange(handle(ColumnFamily::kIds), begin, end);
  for (rocksdb::ColumnFamilyHandle* family : document_handles()) {
    batch.DeleteRange(family, begin, end);
  }
}

std::vector<rocksdb::ColumnFamilyHandle*> Store::document_handles() const {
  std::vector<rocksdb::ColumnFamilyHandle*> out;
  for (ColumnFamily family : kDocumentColumnFamilies) {
    out.push_back(handle(family));
  }
  for (size_t k = 0; k < KeptFamilies().size(); ++k) {
    out.push_back(kept_handle(k));
  }
  return out;
}

absl::Status Store::DropCollection(std::string_view name) {
  MutexLock ddl(&ddl_mu_);
  std::shared_ptr<CollectionState> state_owner;
  std::optional<Unreadable> unreadable;
  {
    ReaderLock lock(&collections_mu_);
    if (auto it = collections_.find(name); it != collections_.end()) {
      state_owner = it->second;
    } else if (auto bad = unreadable_.find(name); bad != unreadable_.end()) {
      unreadable = bad->second;
    } else {
      return CollectionNotFound(name);
    }
  }
  rocksdb::WriteBatch batch;
  batch.Delete(handle(ColumnFamily::kCollections), name);
  if (unreadable.has_value()) {
    bool shared = false;
    if (unreadable->id.has_value()) {
      ReaderLock lock(&collections_mu_);
      shared = IdInUseElsewhere(*unreadable->id, name);
    }
    // Documents under an id another record also claims are not this
    // record's to delete: only the record goes.
    if (unreadable->id.has_value() && !shared) {
      AddDropOfId(*unreadable->id, batch);
    }
    RETURN_IF_ERROR(WriteGuarded(
        batch, /*sync=*/true, DiskSpaceGuard::WriteKind::kShrinking,
        absl::StrCat("drop collection ", AbslView(name))));
    WriterLock lock(&collections_mu_);
    unreadable_.erase(unreadable_.find(name));
    return absl::OkStatus();
  }
  // Writers of this collection wait on its lock and then see `dropped`.
  CollectionState& state = *state_owner;
  {
    MutexLock state_lock(&state.mu);
    AddDropOfId(state.record.id, batch);
    RETURN_IF_ERROR(WriteGuarded(
        batch, /*sync=*/true, DiskSpaceGuard::WriteKind::kShrinking,
        absl::StrCat("drop collection ", AbslView(name))));
    state.dropped = true;
  }
  WriterLock lock(&collections_mu_);
  collections_.erase(collections_.find(name));
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<Store::CollectionState>> Store::FindCollection(
    const CollectionRecord& collection) const {
  ReaderLock lock(&collections_mu_);
  auto it = collections_.find(collection.name);
  if (it == collections_.end() || it->second->record.id != collection.id) {
    return absl::NotFoundError(
        absl::StrCat("collection \"", collection.name, "\" (id ", collection.id,
                     ") does not exist; it may have been dropped"));
  }
  return it->second;
}

namespace {

// Discards RocksDB's informational log.
class SilentLogger : public rocksdb::Logger {
 public:
  using rocksdb::Logger::Logv;
  void Logv(const char*, va_list) override {}
};

// Documents per collection in a checkpoint, read from a read-only open of
// it: exactly what it holds, whatever writers did meanwhile.
absl::StatusOr<std::map<std::string, uint64_t>> CountCheckpointDocuments(
    const std::string& dir) {
  rocksdb::DBOptions options;
  // Few files open at once, and no LOG file written into the backup.
  options.max_open_files = 64;
  options.info_log = std::make_shared<SilentLogger>();
  // Only what counting reads: a read-only open may take a subset.
  std::vector<std::string> names = {
      rocksdb::kDefaultColumnFamilyName,
      std::string(ColumnFamilyInfoOf(ColumnFamily::kCollections).name),
      std::string(ColumnFamilyInfoOf(ColumnFamily::kIds).name)};
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  for (const std::string& name : names) {
    families.emplace_back(name, rocksdb::ColumnFamilyOptions());
  }
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  RETURN_IF_ERROR(FromRocksDb(
      rocksdb::DB::OpenForReadOnly(options, dir, families, &handles, &raw),
      absl::StrCat("open checkpoint ", dir)));
  std::unique_ptr<rocksdb::DB> db(raw);
  // Handles go before the database.
  absl::Cleanup close = [&] {
    for (rocksdb::ColumnFamilyHandle* handle : handles) {
      db->DestroyColumnFamilyHandle(handle);
    }
    db->Close().PermitUncheckedError();
  };
  auto family = [&](ColumnFamily cf) -> rocksdb::ColumnFamilyHandle* {
    const auto it =
        std::find(names.begin(), names.end(), ColumnFamilyInfoOf(cf).name);
    return it == names.end() ? nullptr : handles[it - names.begin()];
  };
  if (family(ColumnFamily::kCollections) == nullptr ||
      family(ColumnFamily::kIds) == nullptr) {
    return absl::DataLossError(
        absl::StrCat("checkpoint ", dir, " lacks neardup's column families"));
  }
  rocksdb::ReadOptions read_options;
  read_options.fill_cache = false;
  std::map<std::string, uint64_t> documents;
  std::unique_ptr<rocksdb::Iterator> records(
      db->NewIterator(read_options, family(ColumnFamily::kCollections)));
  for (records->SeekToFirst(); records->Valid(); records->Next()) {
    auto record = DecodeCollectionRecord(records->value().ToStringView());
    if (!record.ok()) continue;  // quarantined: not counted
    const std::string end = keys::CollectionRangeEnd(record->id);
    const rocksdb::Slice upper_bound(end);
    rocksdb::ReadOptions scan = read_options;
    scan.iterate_upper_bound = &upper_bound;
    std::unique_ptr<rocksdb::Iterator> ids(
        db->NewIterator(scan, family(ColumnFamily::kIds)));
    uint64_t count = 0;
    for (ids->Seek(keys::CollectionPrefix(record->id)); ids->Valid();
         ids->Next()) {
      ++count;
    }
    RETURN_IF_ERROR(FromRocksDb(ids->status(), "count checkpoint documents"));
    documents[record->name] = count;
  }
  RETURN_IF_ERROR(
      FromRocksDb(records->status(), "read checkpoint collections"));
  return documents;
}

uint64_t DirectoryBytes(const std::string& dir) {
  uint64_t bytes = 0;
  std::error_code error;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(dir, error)) {
    if (entry.is_regular_file(error)) bytes += entry.file_size(error);
  }
  return bytes;
}

}  // namespace

absl::StatusOr<CheckpointInfo> Store::Checkpoint(const std::string& dir) {
  std::error_code error;
  if (std::filesystem::exists(dir, error)) {
    return absl::AlreadyExistsError(
        absl::StrCat("checkpoint directory ", dir, " already exists"));
  }
  rocksdb::Checkpoint* raw = nullptr;
  RETURN_IF_ERROR(FromRocksDb(rocksdb::Checkpoint::Create(db_.get(), &raw),
                              "create checkpoint"));
  std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
  CheckpointInfo info;
  // log_size_for_flush 0: memtables are flushed first, so the checkpoint
  // holds SST files and no log to replay.
  const rocksdb::Status created =
      checkpoint->CreateCheckpoint(dir, 0, &info.sequence_number);
  // Not AfterWrite: a full --backup-dir says nothing about the store's disk.
  RETURN_IF_ERROR(FromRocksDb(created, absl::StrCat("checkpoint into ", dir)));
  ASSIGN_OR_RETURN(info.documents, CountCheckpointDocuments(dir));
  info.bytes = DirectoryBytes(dir);
  return info;
}

StoreStats Store::Stats() const {
  struct {
    uint64_t available = 0;
    uint64_t capacity = 0;
  } disk;
  if (struct statvfs fs; statvfs(dir_.c_str(), &fs) == 0) {
    disk.available = static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
    disk.capacity = static_cast<uint64_t>(fs.f_blocks) * fs.f_frsize;
  }
  auto property = [&](const std::string& name) {
    uint64_t value = 0;
    return db_->GetAggregatedIntProperty(name, &value) ? value : 0;
  };
  // Counters from RocksDB's stats maps; a missing key reads as 0.
  auto map_value = [](const std::map<std::string, std::string>& map,
                      const std::string& key) -> uint64_t {
    const auto it = map.find(key);
    uint64_t value = 0;
    if (it != map.end()) (void)absl::SimpleAtoi(it->second, &value);
    return value;
  };
  std::map<std::string, std::string> db_stats;
  (void)db_->GetMapProperty(rocksdb::DB::Properties::kDBStats, &db_stats);
  uint64_t slowdowns = 0, stops = 0;
  for (rocksdb::ColumnFamilyHandle* family : handles_) {
    std::map<std::string, std::string> cf_stats;
    if (!db_->GetMapProperty(family, rocksdb::DB::Properties::kCFStats,
                             &cf_stats)) {
      continue;
    }
    slowdowns += map_value(cf_stats, "io_stalls.total_slowdown");
    stops += map_value(cf_stats, "io_stalls.total_stop");
  }
  DiskSpaceGuard::State guard = disk_guard_.Current();
  return {
      .live_sst_bytes = property(rocksdb::DB::Properties::kLiveSstFilesSize),
      .live_blob_bytes = property(rocksdb::DB::Properties::kLiveBlobFileSize),
      .blob_garbage_bytes =
          property(rocksdb::DB::Properties::kLiveBlobFileGarbageSize),
      .blob_gc_on = evidence_blob_gc_ && evidence_blob_gc_->enabled(),
      .blob_gc_starts = evidence_blob_gc_ ? evidence_blob_gc_->starts() : 0,
      .total_sst_bytes = property(rocksdb::DB::Properties::kTotalSstFilesSize),
      .estimated_pending_compaction_bytes =
          property(rocksdb::DB::Properties::kEstimatePendingCompactionBytes),
      .memtable_bytes = property(rocksdb::DB::Properties::kSizeAllMemTables),
      .write_stall_micros = map_value(db_stats, "db.user_write_stall_micros"),
      .write_slowdowns = slowdowns,
      .write_stops = stops,
      .block_cache_usage_bytes = block_cache_->GetUsage(),
      .block_cache_capacity_bytes = block_cache_->GetCapacity(),
      .disk_available_bytes = disk.available,
      .disk_capacity_bytes = disk.capacity,
      .disk_full = guard.full,
      .disk_full_reason = std::move(guard.reason),
      .disk_reserve_bytes = disk_guard_.reserve_bytes(),
  };
}

}  // namespace neardup::storage
