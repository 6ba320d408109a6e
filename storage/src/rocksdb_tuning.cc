#include "rocksdb_tuning.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "neardup/core/kept_family.h"
#include "neardup/storage/column_families.h"
#include "rocksdb/convenience.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "rocksdb/write_buffer_manager.h"

namespace neardup::storage {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

struct Compressions {
  rocksdb::CompressionType upper_levels;
  rocksdb::CompressionType bottommost;
};

// LZ4 is cheap enough for the levels that are rewritten often; ZSTD packs the
// bottommost level, which holds most of the data, tighter. The Debian build
// has both, but fall back to whatever this librocksdb supports.
Compressions PickCompressions() {
  const std::vector<rocksdb::CompressionType> supported =
      rocksdb::GetSupportedCompressions();
  auto has = [&](rocksdb::CompressionType type) {
    return std::find(supported.begin(), supported.end(), type) !=
           supported.end();
  };
  Compressions picked{rocksdb::kNoCompression, rocksdb::kNoCompression};
  if (has(rocksdb::kLZ4Compression)) {
    picked.upper_levels = rocksdb::kLZ4Compression;
  } else if (has(rocksdb::kSnappyCompression)) {
    picked.upper_levels = rocksdb::kSnappyCompression;
  }
  picked.bottommost =
      has(rocksdb::kZSTD) ? rocksdb::kZSTD : picked.upper_levels;
  return picked;
}

struct FamilyTraits {
  bool point_lookups;  // bloom filter
  bool compressible;
  // Large values kept in blob files: compaction moves their keys only.
  bool blob_values = false;
};

FamilyTraits TraitsOf(ColumnFamily cf) {
  switch (cf) {
    case ColumnFamily::kCollections:
    case ColumnFamily::kIds:
    case ColumnFamily::kDocs:
      return {.point_lookups = true, .compressible = true};
    case ColumnFamily::kMinHash:
      // Slots are uniformly random 64-bit values: compression only costs CPU.
      return {.point_lookups = false, .compressible = false};
    case ColumnFamily::kEvidence:
      // Read by candidate id; already Elias-Fano coded (random hashes).
      // Written once per document and large (~7 bytes per shingle): in
      // blob files, compaction does not rewrite them level after level.
      return {
          .point_lookups = true, .compressible = false, .blob_values = true};
    case ColumnFamily::kText:
      return {.point_lookups = true, .compressible = true};
    default:
      return {.point_lookups = false, .compressible = true};
  }
}

rocksdb::ColumnFamilyOptions FamilyOptions(
    const StoreOptions& options, const std::shared_ptr<rocksdb::Cache>& cache,
    const Compressions& compressions, FamilyTraits traits) {
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = cache;
  // Index and filter blocks live in (and are bounded by) the shared cache.
  table.cache_index_and_filter_blocks = true;
  table.pin_l0_filter_and_index_blocks_in_cache = true;
  if (traits.point_lookups) {
    table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
    table.whole_key_filtering = true;
    // Filters and indexes in 4 KiB partitions under a small pinned top
    // level: a lookup loads one partition. A whole-file filter of a large
    // SST (~1.2 MB per million keys) does not fit a cache shard next to
    // others, so at millions of documents every upsert's id lookup read
    // and checksummed one again (40% of ingest CPU at 3M documents).
    table.index_type =
        rocksdb::BlockBasedTableOptions::IndexType::kTwoLevelIndexSearch;
    table.partition_filters = true;
    table.metadata_block_size = 4096;
    table.pin_top_level_index_and_filter = true;
  }

  rocksdb::ColumnFamilyOptions cf;
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  cf.level_compaction_dynamic_level_bytes = true;
  // The WriteBufferManager bounds the total; this bounds one memtable so a
  // single busy family flushes before it takes the whole budget.
  cf.write_buffer_size = std::max(kMiB, options.write_buffer_bytes / 4);
  if (traits.blob_values) {
    cf.enable_blob_files = true;
    cf.min_blob_size = 256;
    cf.blob_file_size = 256 << 20;
    // Deleted and replaced documents' sets are reclaimed by blob garbage
    // collection, which BlobGcSwitch turns on only while there is enough
    // garbage to collect.
    cf.enable_blob_garbage_collection = false;
    // Candidates' sets are read again and again: cached like blocks, in the
    // same budget (without a cache every read is a file read).
    cf.blob_cache = cache;
  }
  if (traits.compressible) {
    cf.compression = compressions.upper_levels;
    cf.bottommost_compression = compressions.bottommost;
  } else {
    cf.compression = rocksdb::kNoCompression;
    cf.bottommost_compression = rocksdb::kNoCompression;
  }
  return cf;
}

}  // namespace

absl::Status ValidateStoreOptions(const StoreOptions& options) {
  if (options.block_cache_bytes == 0) {
    return absl::InvalidArgumentError("block_cache_bytes must be positive");
  }
  if (options.write_buffer_bytes == 0) {
    return absl::InvalidArgumentError("write_buffer_bytes must be positive");
  }
  if (options.write_buffer_bytes > options.block_cache_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("write_buffer_bytes (", options.write_buffer_bytes,
                     ") exceeds block_cache_bytes (", options.block_cache_bytes,
                     "): memtables are charged to the block cache"));
  }
  if (options.background_jobs < 1) {
    return absl::InvalidArgumentError("background_jobs must be at least 1");
  }
  if (!(options.blob_gc_stop_ratio > 0 &&
        options.blob_gc_stop_ratio <= options.blob_gc_start_ratio &&
        options.blob_gc_start_ratio <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("blob garbage collection ratios must satisfy 0 < stop (",
                     options.blob_gc_stop_ratio, ") <= start (",
                     options.blob_gc_start_ratio, ") <= 1"));
  }
  if (options.idle_settle_after.count() < 0) {
    return absl::InvalidArgumentError("idle_settle_after must not be negative");
  }
  return absl::OkStatus();
}

RocksDbTuning MakeRocksDbTuning(const StoreOptions& options) {
  RocksDbTuning tuning;
  tuning.block_cache = rocksdb::NewLRUCache(options.block_cache_bytes);

  rocksdb::DBOptions& db = tuning.db_options;
  db.create_if_missing = options.create_if_missing;
  db.create_missing_column_families = true;
  db.max_background_jobs = options.background_jobs;
  // Memtables of all families share one budget, charged to the block cache,
  // so cache + memtables stay within block_cache_bytes.
  db.write_buffer_manager = std::make_shared<rocksdb::WriteBufferManager>(
      options.write_buffer_bytes, tuning.block_cache);
  // A rarely written family (meta) would otherwise pin old WAL files forever;
  // past this size RocksDB flushes it so the WAL can be recycled.
  db.max_total_wal_size = 2 * options.write_buffer_bytes;
  db.bytes_per_sync = kMiB;
  db.keep_log_file_num = 4;
  db.max_log_file_size = 16 * kMiB;
  tuning.evidence_blob_gc = std::make_shared<BlobGcSwitch>(
      BlobGcPolicy{.enable_at = options.blob_gc_start_ratio,
                   .disable_below = options.blob_gc_stop_ratio});
  db.listeners.push_back(tuning.evidence_blob_gc);

  const Compressions compressions = PickCompressions();
  for (size_t i = 0; i < kNumColumnFamilies; ++i) {
    const auto cf = static_cast<ColumnFamily>(i);
    tuning.column_families.emplace_back(
        std::string(kColumnFamilies[i].name),
        FamilyOptions(options, tuning.block_cache, compressions, TraitsOf(cf)));
  }
  for (const KeptFamily* kept : KeptFamilies()) {  // after the fixed ones
    tuning.column_families.emplace_back(
        std::string(kept->name),
        FamilyOptions(options, tuning.block_cache, compressions,
                      {.point_lookups = false, .compressible = true}));
  }
  tuning.unknown_family_options =
      FamilyOptions(options, tuning.block_cache, compressions,
                    {.point_lookups = false, .compressible = true});
  return tuning;
}

}  // namespace neardup::storage
