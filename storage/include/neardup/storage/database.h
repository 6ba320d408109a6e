#ifndef NEARDUP_STORAGE_DATABASE_H_
#define NEARDUP_STORAGE_DATABASE_H_

// The store plus one live Collection (fingerprinters + indexes) per stored
// collection. Opening rebuilds every index from RocksDB.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "neardup/core/collection_config.h"
#include "neardup/core/sync.h"
#include "neardup/storage/collection.h"
#include "neardup/storage/store.h"

namespace neardup::storage {

struct DatabaseOptions {
  StoreOptions store;
  int index_shards = MinHashIndexOptions{}.shards;
  int rebuild_threads = 0;  // 0: one per hardware thread
};

struct RebuildReport {
  std::string collection;
  uint64_t documents = 0;
  double seconds = 0;
  double docs_per_second() const {
    return seconds > 0 ? documents / seconds : 0;
  }
};

// Called once per collection as its index finishes loading.
using RebuildListener = std::function<void(const RebuildReport&)>;

// Thread-safe.
class Database {
 public:
  // Opens (or creates) the store in `dir`, then rebuilds every collection's
  // indexes, collections in parallel.
  static absl::StatusOr<std::unique_ptr<Database>> Open(
      const std::string& dir, const DatabaseOptions& options = {},
      RebuildListener on_rebuilt = nullptr);

  absl::StatusOr<std::shared_ptr<Collection>> CreateCollection(
      std::string_view name, const CollectionConfig& config);
  // NOT_FOUND when there is no such collection.
  absl::StatusOr<std::shared_ptr<Collection>> GetCollection(
      std::string_view name) const;
  std::vector<std::shared_ptr<Collection>> ListCollections() const;
  absl::Status DropCollection(std::string_view name);

  const std::vector<RebuildReport>& rebuild_reports() const {
    return rebuild_reports_;
  }
  Store& store() { return *store_; }
  const Store& store() const { return *store_; }

 private:
  explicit Database(std::unique_ptr<Store> store, DatabaseOptions options)
      : store_(std::move(store)), options_(options) {}

  absl::Status LoadAll(const RebuildListener& on_rebuilt);

  const std::unique_ptr<Store> store_;
  const DatabaseOptions options_;
  std::vector<RebuildReport> rebuild_reports_;  // written only while opening
  mutable SharedMutex mu_;
  std::map<std::string, std::shared_ptr<Collection>, std::less<>> collections_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace neardup::storage

#endif  // NEARDUP_STORAGE_DATABASE_H_
