#ifndef NEARDUP_STORAGE_SRC_ROCKSDB_TUNING_H_
#define NEARDUP_STORAGE_SRC_ROCKSDB_TUNING_H_

// RocksDB options for a neardup store: one bounded memory budget (block cache
// with memtables charged to it), bloom filters where lookups are by key,
// compression where values compress.

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "neardup/storage/internal/blob_gc_switch.h"
#include "neardup/storage/store_options.h"
#include "rocksdb/cache.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"

namespace neardup::storage {

struct RocksDbTuning {
  std::shared_ptr<rocksdb::Cache> block_cache;
  rocksdb::DBOptions db_options;
  // One per ColumnFamily, in enum order.
  std::vector<rocksdb::ColumnFamilyDescriptor> column_families;
  // For a column family this build does not know (added by a newer build):
  // RocksDB must open every family of a database.
  rocksdb::ColumnFamilyOptions unknown_family_options;
  // Registered as a listener in db_options; the Store attaches it to the
  // evidence family once the database is open.
  std::shared_ptr<BlobGcSwitch> evidence_blob_gc;
};

// INVALID_ARGUMENT names the offending field.
absl::Status ValidateStoreOptions(const StoreOptions& options);

RocksDbTuning MakeRocksDbTuning(const StoreOptions& options);

}  // namespace neardup::storage

#endif  // NEARDUP_STORAGE_SRC_ROCKSDB_TUNING_H_
