#ifndef NEARDUP_STORAGE_SRC_ROCKSDB_STATUS_H_
#define NEARDUP_STORAGE_SRC_ROCKSDB_STATUS_H_

#include <string_view>

#include "absl/status/status.h"
#include "rocksdb/status.h"

namespace neardup::storage {

// The one place RocksDB statuses become absl::Status. `context` says what
// was being done ("open /data/db", "put document"); the message is
// "<context>: <rocksdb message>".
absl::Status FromRocksDb(const rocksdb::Status& status,
                         std::string_view context);

}  // namespace neardup::storage

#endif  // NEARDUP_STORAGE_SRC_ROCKSDB_STATUS_H_
